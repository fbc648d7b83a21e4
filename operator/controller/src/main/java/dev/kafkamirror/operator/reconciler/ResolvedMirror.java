package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.core.TopicSelector;
import java.util.Map;
import java.util.Properties;

/**
 * A ClusterMirror's spec with its Secrets read: everything a reconcile needs to talk to the
 * clusters.
 *
 * @param mirrorName the name the destination's plugin registers the partitions under (a DNS label)
 * @param controlSecret the bearer secret of the control endpoints
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
    int controlPort,
    Map<Integer, String> brokerEndpointOverrides,
    Properties destinationProperties,
    Properties sourceProperties,
    Map<String, String> sourceClientSecurity) {

  /** The control endpoint of a broker, override first. */
  public String controlAddress(int brokerId, Map<Integer, String> brokerHosts) {
    String override = brokerEndpointOverrides.get(brokerId);
    if (override != null) {
      return override;
    }
    String host = brokerHosts.get(brokerId);
    if (host == null) {
      return null;
    }
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + controlPort;
  }
}
