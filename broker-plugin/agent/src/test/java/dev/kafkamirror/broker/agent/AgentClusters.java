package dev.kafkamirror.broker.agent;

import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test clusters with the agent jar built by this module attached to every broker. */
final class AgentClusters {

  private AgentClusters() {}

  static Path agentJar() {
    String jar = System.getProperty("cmo.agent.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException(
          "the agent jar is missing ("
              + jar
              + "); run the integration tests through Maven after package");
    }
    return Path.of(jar);
  }

  /** A cluster builder with the agent, its control endpoint and the test secret on every broker. */
  static KafkaClusterConfig.Builder withAgent(String name) {
    return KafkaClusterConfig.builder(name)
        .javaAgent(agentJar(), null)
        .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
        .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
        .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true");
  }
}
