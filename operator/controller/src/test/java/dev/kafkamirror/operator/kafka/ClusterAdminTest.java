package dev.kafkamirror.operator.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterAdminTest {

  @Test
  void mirrorTopicsTheOperatorCreatesForbidUncleanElectionAndNeedTwoInSyncReplicasFromRf3() {
    // Given the replication factors the operator picks (1 to 3 by broker count)
    // When the topic configs are chosen
    // Then unclean election is always off, and min.insync.replicas is 2 where RF >= 3
    assertThat(ClusterAdmin.mirrorTopicConfigs((short) 3))
        .isEqualTo(Map.of("unclean.leader.election.enable", "false", "min.insync.replicas", "2"));
    assertThat(ClusterAdmin.mirrorTopicConfigs((short) 2))
        .isEqualTo(Map.of("unclean.leader.election.enable", "false"));
    assertThat(ClusterAdmin.mirrorTopicConfigs((short) 1))
        .isEqualTo(Map.of("unclean.leader.election.enable", "false"));
  }

  @Test
  void theCountAControllerNamesInACreatePartitionsRefusalIsRead() {
    // Given Kafka 4.4's two refusals of a CreatePartitions that is not an increase, and others
    // When the count they name is read
    // Then it is the topic's count on the controller, and null for anything else
    assertThat(
            KafkaClusterAdmin.controllerCount(
                new org.apache.kafka.common.errors.InvalidPartitionsException(
                    "Topic already has 10000 partition(s).")))
        .isEqualTo(10_000);
    assertThat(
            KafkaClusterAdmin.controllerCount(
                new org.apache.kafka.common.errors.InvalidPartitionsException(
                    "The topic orders currently has 12 partition(s); 10 would not be an increase.")))
        .isEqualTo(12);
    assertThat(
            KafkaClusterAdmin.controllerCount(
                new org.apache.kafka.common.errors.InvalidPartitionsException(
                    "Number of partitions must be larger than 0.")))
        .isNull();
    assertThat(
            KafkaClusterAdmin.controllerCount(
                new org.apache.kafka.common.errors.PolicyViolationException(
                    "Topic already has 10000 partition(s).")))
        .isNull();
  }

  @Test
  void aPolicyAnAclOrARejectedConfigIsARefusalButAnOutageOrAFencedBrokerIsNot() {
    // Given Admin failures of each kind
    // When they are classified
    // Then policy, ACL, config and topic-name refusals are refusals; the others are not
    assertThat(call(new org.apache.kafka.common.errors.PolicyViolationException("no")).refusal())
        .isNotNull();
    assertThat(
            call(new org.apache.kafka.common.errors.TopicAuthorizationException(
                    "Authorization failed.", java.util.Set.of("orders")))
                .refusal())
        .isNotNull();
    assertThat(
            call(new org.apache.kafka.common.errors.InvalidConfigurationException("bad")).refusal())
        .isNotNull();
    assertThat(
            call(new org.apache.kafka.common.errors.InvalidReplicationFactorException(
                    "All brokers are currently fenced"))
                .refusal())
        .isNull();
    assertThat(call(new org.apache.kafka.common.errors.TimeoutException("slow")).refusal())
        .isNull();
    assertThat(
            call(new org.apache.kafka.common.errors.UnsupportedVersionException(
                    "CreatePartitions v4 is not supported during the roll"))
                .refusal())
        .isNull();
    assertThat(
            call(new org.apache.kafka.common.errors.SaslAuthenticationException("bad password"))
                .refusal())
        .isNull();
  }

  private static ClusterAdmin.KafkaCallException call(Throwable cause) {
    return new ClusterAdmin.KafkaCallException("cannot do it on destination: " + cause, cause);
  }
}
