package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.core.TopicSelector;
import java.util.Map;
import java.util.Properties;

/**
 * A ClusterMirror's spec with its Secrets read: everything a reconcile needs to talk to the
 * clusters.
 *
 * @param mirrorName the name the destination's plugin registers the partitions under (a DNS label)
 * @param controlSecret the bearer secret of the control endpoints
 * @param controlTrustedCertificates PEM CA certificates of the control endpoints (HTTPS), or null
 *     for plain HTTP
 * @param controlClientCertificate the certificate the operator presents to the control endpoints
 *     (mutual TLS), or null
 * @param controlPort the control endpoint's port at each broker's advertised host
 * @param brokerEndpointOverrides broker id to host:port, from spec.destination.control
 * @param destinationProperties Admin client settings of the destination
 * @param sourceProperties Admin client settings of the source (also passed to the plugin)
 * @param sourceClientSecurity the subset of sourceProperties the plugin's fetcher needs
 */
public record ResolvedMirror(
    String mirrorName,
    String sourceBootstrapServers,
    String sourceClusterId,
    TopicSelector topics,
    String controlSecret,
    String controlTrustedCertificates,
    ControlClient.ClientCertificate controlClientCertificate,
    int controlPort,
    Map<Integer, String> brokerEndpointOverrides,
    Properties destinationProperties,
    Properties sourceProperties,
    Map<String, String> sourceClientSecurity) {

  /** Without a client certificate. */
  public ResolvedMirror(
      String mirrorName,
      String sourceBootstrapServers,
      String sourceClusterId,
      TopicSelector topics,
      String controlSecret,
      String controlTrustedCertificates,
      int controlPort,
      Map<Integer, String> brokerEndpointOverrides,
      Properties destinationProperties,
      Properties sourceProperties,
      Map<String, String> sourceClientSecurity) {
    this(
        mirrorName,
        sourceBootstrapServers,
        sourceClusterId,
        topics,
        controlSecret,
        controlTrustedCertificates,
        null,
        controlPort,
        brokerEndpointOverrides,
        destinationProperties,
        sourceProperties,
        sourceClientSecurity);
  }

  /**
   * How the control endpoints are reached: the secret, and TLS when trusted certificates are set.
   */
  public ControlClient.Channel controlChannel() {
    return new ControlClient.Channel(
        controlSecret, controlTrustedCertificates, controlClientCertificate);
  }

  /**
   * Everything but the secrets, for debug logs: the control secret and the client certificate's key
   * never appear (the channel prints only its kind), nor does the value of any client setting that
   * can hold a secret ({@link Redaction}: the SASL JAAS line with its password, keystore keys).
   */
  @Override
  public String toString() {
    return "ResolvedMirror[mirrorName="
        + mirrorName
        + ", sourceBootstrapServers="
        + sourceBootstrapServers
        + ", sourceClusterId="
        + sourceClusterId
        + ", controlChannel="
        + controlChannel()
        + ", controlPort="
        + controlPort
        + ", brokerEndpointOverrides="
        + brokerEndpointOverrides
        + ", destinationProperties="
        + Redaction.of(destinationProperties)
        + ", sourceProperties="
        + Redaction.of(sourceProperties)
        + ", sourceClientSecurity="
        + Redaction.of(sourceClientSecurity)
        + "]";
  }

  /**
   * The control endpoint of a broker the destination's metadata reports ({@code brokerHosts}: id to
   * advertised host), or null. An override of spec.destination.control.brokerEndpoints is used only
   * when it names that broker's own host (another port is fine): the operator never sends the
   * secret to an address the destination cluster does not vouch for.
   */
  public String controlAddress(int brokerId, Map<Integer, String> brokerHosts) {
    String host = brokerHosts.get(brokerId);
    if (host == null) {
      return null;
    }
    String override = brokerEndpointOverrides.get(brokerId);
    if (override != null) {
      String overrideHost = override.substring(0, override.lastIndexOf(':'));
      if (overrideHost.startsWith("[") && overrideHost.endsWith("]")) {
        overrideHost = overrideHost.substring(1, overrideHost.length() - 1);
      }
      return overrideHost.equalsIgnoreCase(host) ? override : null;
    }
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + controlPort;
  }
}
