package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TransactionGuardTest {

  private static final TopicPartition MIRROR = new TopicPartition("orders", 0);
  private static final TopicPartition PLAIN = new TopicPartition("plain", 0);

  @Test
  void anAddWithAMirrorPartitionIsRefusedWithItsReason() {
    // Given one partition that must stay read-only
    Map<TopicPartition, String> reasons =
        Map.of(MIRROR, "orders-0 is a read-only mirror of a-to-b");
    // When a transaction adds it together with an ordinary partition
    Optional<String> refusal =
        TransactionGuard.refusal(
            List.of(PLAIN, MIRROR), tp -> Optional.ofNullable(reasons.get(tp)));
    // Then the add is refused, naming the mirror
    assertThat(refusal).hasValue("orders-0 is a read-only mirror of a-to-b");
  }

  @Test
  void anAddOfOrdinaryPartitionsPasses() {
    assertThat(TransactionGuard.refusal(List.of(PLAIN), tp -> Optional.empty())).isEmpty();
  }
}
