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
        TransactionGuard.decide(List.of(PLAIN, MIRROR), tp -> Optional.ofNullable(reasons.get(tp)))
            .map(TransactionGuard.Refusal::reason);
    // Then the add is refused, naming the mirror
    assertThat(refusal).hasValue("orders-0 is a read-only mirror of a-to-b");
  }

  @Test
  void anAddThatTheBrokerCannotClassifyYetIsRetriedNotFailed() {
    // Given a coordinator that has not read the cluster's mirror membership since it started
    // When an ordinary transaction adds a partition
    Optional<TransactionGuard.Refusal> refusal =
        TransactionGuard.decide(
            List.of(PLAIN),
            tp -> {
              throw new dev.kafkamirror.broker.agent.kafka4_4.mirror
                  .MirrorClassificationPendingException(tp + " cannot be classified yet");
            });
    // Then the producer is asked to retry (a retriable error), not failed for good
    assertThat(refusal).isPresent();
    assertThat(refusal.get().error())
        .isEqualTo(org.apache.kafka.common.protocol.Errors.COORDINATOR_LOAD_IN_PROGRESS);
    assertThat(refusal.get().error().exception())
        .isInstanceOf(org.apache.kafka.common.errors.RetriableException.class);
  }

  @Test
  void aMirrorPartitionBesideOneNotYetClassifiedIsRefusedForGood() {
    Optional<TransactionGuard.Refusal> refusal =
        TransactionGuard.decide(
            List.of(PLAIN, MIRROR),
            tp -> {
              if (tp.equals(MIRROR)) {
                return Optional.of("orders-0 is a read-only mirror of a-to-b");
              }
              throw new dev.kafkamirror.broker.agent.kafka4_4.mirror
                  .MirrorClassificationPendingException(tp + " cannot be classified yet");
            });
    assertThat(refusal.get().error())
        .isEqualTo(org.apache.kafka.common.protocol.Errors.INVALID_RECORD);
  }

  @Test
  void aLookupThatFailsRefusesTheAdd() {
    Optional<TransactionGuard.Refusal> refusal =
        TransactionGuard.decide(
            List.of(PLAIN),
            tp -> {
              throw new IllegalStateException("registry broken");
            });
    assertThat(refusal.get().error())
        .isEqualTo(org.apache.kafka.common.protocol.Errors.INVALID_RECORD);
    assertThat(refusal.get().reason()).contains("plain-0").contains("registry broken");
  }

  @Test
  void anAddOfOrdinaryPartitionsPasses() {
    assertThat(TransactionGuard.decide(List.of(PLAIN), tp -> Optional.empty())).isEmpty();
  }
}
