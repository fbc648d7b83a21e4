package dev.kafkamirror.broker.core.stop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FenceChoiceTest {

  @Test
  void picksTheFirstInSyncReplicaThatHoldsTheMembership() {
    // Given replicas [1, 3, 2], all in sync, and only 1 and 2 hold the membership
    // When leader 1 chooses where to fence to
    FenceChoice.Choice c = FenceChoice.choose(1, List.of(1, 3, 2), Set.of(1, 2, 3), Set.of(1, 2));
    // Then it skips 3, which would lead a mirror it does not know
    assertThat(c.target()).isEqualTo(2);
    assertThat(c.refusal()).isNull();
  }

  @Test
  void picksAHolderInAssignmentOrder() {
    FenceChoice.Choice c = FenceChoice.choose(1, List.of(1, 3, 2), Set.of(1, 2, 3), Set.of(2, 3));
    assertThat(c.target()).isEqualTo(3);
  }

  @Test
  void refusesNamingBrokersWhenNoInSyncReplicaHoldsIt() {
    // Given 2 holds it but is out of sync, and 3 is in sync but does not hold it
    FenceChoice.Choice c = FenceChoice.choose(1, List.of(1, 2, 3), Set.of(1, 3), Set.of(1, 2));
    // Then there is no target, and the refusal names replicas, ISR and holders
    assertThat(c.target()).isNull();
    assertThat(c.noOtherReplica()).isFalse();
    assertThat(c.refusal())
        .contains("replicas [1, 2, 3]")
        .contains("in-sync [1, 3]")
        .contains("membership acknowledged by brokers [1, 2]");
  }

  @Test
  void aSingleReplicaHasNothingToFence() {
    FenceChoice.Choice c = FenceChoice.choose(1, List.of(1), Set.of(1), Set.of());
    assertThat(c.noOtherReplica()).isTrue();
  }
}
