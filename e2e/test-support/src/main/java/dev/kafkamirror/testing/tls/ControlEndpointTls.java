package dev.kafkamirror.testing.tls;

import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Path;

/**
 * The broker settings that put the plugin's control endpoint on TLS with the material of {@link
 * TestCertificates}, shared by the ITs that test the endpoint over TLS. Stateless.
 */
public final class ControlEndpointTls {

  /** The prefix of the control endpoint's settings in server.properties. */
  public static final String PREFIX = "cluster.mirror.control.";

  private ControlEndpointTls() {}

  /** A broker with the agent, a control listener of its own and the test secret. */
  public static KafkaClusterConfig.Builder withControlEndpoint(String name, Path agentJar) {
    return KafkaClusterConfig.builder(name)
        .javaAgent(agentJar, null)
        .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
        .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET);
  }

  /** The endpoint serves TLS with the broker's key and chain inline as PEM. */
  public static KafkaClusterConfig.Builder pemKeyAndChain(
      KafkaClusterConfig.Builder builder, TestCertificates certs) {
    return builder
        .brokerProperty(PREFIX + "ssl.keystore.type", "PEM")
        .brokerProperty(
            PREFIX + "ssl.keystore.key", certs.privateKeyPem("broker").replace("\n", "\\n"))
        .brokerProperty(
            PREFIX + "ssl.keystore.certificate.chain",
            certs.certificateChainPem("broker").replace("\n", "\\n"));
  }

  /** The endpoint requires a client certificate signed by the CA (mutual TLS). */
  public static KafkaClusterConfig.Builder clientCertificatesRequired(
      KafkaClusterConfig.Builder builder, TestCertificates certs) {
    return builder
        .brokerProperty(PREFIX + "ssl.truststore.location", certs.truststore().toString())
        .brokerProperty(PREFIX + "ssl.truststore.type", "PKCS12")
        .brokerProperty(PREFIX + "ssl.truststore.password", TestCertificates.PASSWORD)
        .brokerProperty(PREFIX + "ssl.client.auth", "required");
  }
}
