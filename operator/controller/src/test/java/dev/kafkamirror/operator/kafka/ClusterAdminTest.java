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
}
