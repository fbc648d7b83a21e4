package dev.kafkamirror.broker.core.producerstate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.producerstate.ResetVerification.ProducerEntry;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResetVerificationTest {

  @Test
  void anEmptyProducerStatePasses() {
    assertThat(ResetVerification.refusal("orders-0", 1, 10L, false, List.of(), List.of()))
        .isEmpty();
  }

  @Test
  void producersThatWroteAfterTheBarrierPass() {
    // Given only producers whose last data batch is after the barrier at offset 10
    Optional<String> refusal =
        ResetVerification.refusal(
            "orders-0",
            1,
            10L,
            false,
            List.of(new ProducerEntry(7L, 11L), new ProducerEntry(8L, 20L)),
            List.of(new OpenTransaction(8L, 15L)));
    // Then nothing from before the barrier remains
    assertThat(refusal).isEmpty();
  }

  @Test
  void aProducerFromBeforeTheBarrierRefusesNamingPartitionBarrierBrokerAndProducerIds() {
    // Given the reset failed: the source's producers 0 and 3 remain below the barrier at 10
    Optional<String> refusal =
        ResetVerification.refusal(
            "orders-2",
            3,
            10L,
            false,
            List.of(
                new ProducerEntry(3L, 9L), new ProducerEntry(0L, 4L), new ProducerEntry(5L, 12L)),
            List.of());
    // Then the check refuses and says what remains, where, and what to do
    assertThat(refusal).isPresent();
    assertThat(refusal.get())
        .contains("orders-2")
        .contains("barrier at offset 10")
        .contains("broker 3")
        .contains("producer ids [0, 3]")
        .contains("last data offsets [4, 9]")
        .contains("read-only")
        .contains("make-writable")
        .doesNotContain("5]");
  }

  @Test
  void anEntryWithoutAnyDataBatchCountsAsFromBeforeTheBarrierWhileNoClientCanHaveWritten() {
    // Given the leader before the partition turns writable: nothing can have been written since
    assertThat(
            ResetVerification.refusal(
                "orders-0", 1, 10L, true, List.of(new ProducerEntry(42L, -1L)), List.of()))
        .get()
        .asString()
        .contains("producer ids [42]");
  }

  @Test
  void anEntryWithoutAnyDataBatchIsNotCountedOnceClientsMayHaveWritten() {
    // Given a follower of a writable leader: a local transaction (transaction version 2) committed
    // after the barrier leaves an entry without batches, its epoch bumped by the commit
    assertThat(
            ResetVerification.refusal(
                "orders-0", 1, 10L, false, List.of(new ProducerEntry(1L, -1L)), List.of()))
        .isEmpty();
    // But a source producer with a data batch below the barrier still refuses
    assertThat(
            ResetVerification.refusal(
                "orders-0",
                1,
                10L,
                false,
                List.of(new ProducerEntry(1L, -1L), new ProducerEntry(0L, 9L)),
                List.of()))
        .get()
        .asString()
        .contains("producer ids [0]");
  }

  @Test
  void aTransactionOpenedBeforeTheBarrierRefuses() {
    assertThat(
            ResetVerification.refusal(
                "orders-0", 1, 10L, false, List.of(), List.of(new OpenTransaction(6L, 2L))))
        .get()
        .asString()
        .contains("transactions of producer ids [6] opened at offsets [2]");
  }
}
