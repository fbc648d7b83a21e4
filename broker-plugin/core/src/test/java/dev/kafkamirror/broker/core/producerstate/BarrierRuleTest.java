package dev.kafkamirror.broker.core.producerstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class BarrierRuleTest {

  private static BatchSummary data(long offset, long pid) {
    return new BatchSummary(offset, offset, 100, pid, false, false);
  }

  private static BatchSummary barrier(long offset) {
    return new BatchSummary(offset, offset, 80, -1, true, true);
  }

  private static BatchSummary marker(long offset, long pid) {
    return new BatchSummary(offset, offset, 78, pid, true, false);
  }

  @Test
  void splitKeepsEverythingUpToAndIncludingTheFirstBarrier() {
    BarrierSplit split =
        BarrierSplit.of(List.of(data(0, 5), data(1, 6), barrier(2), data(3, 5), barrier(4)));
    assertThat(split.batchesToKeep()).isEqualTo(3);
    assertThat(split.bytesToKeep()).isEqualTo(280);
    assertThat(split.cut()).isTrue();

    assertThat(BarrierSplit.of(List.of(data(0, 5), barrier(1))))
        .isEqualTo(new BarrierSplit(2, 180, false));
    assertThat(BarrierSplit.of(List.of(data(0, 5), data(1, 5))))
        .isEqualTo(new BarrierSplit(2, 200, false));
    assertThat(BarrierSplit.of(List.of())).isEqualTo(new BarrierSplit(0, 0, false));
  }

  /** A sink that behaves like Kafka: collected updates become visible only when flushed. */
  private static final class RecordingSink implements ReplaySink<BatchSummary> {
    final List<BatchSummary> collected = new ArrayList<>();
    final Set<Long> producers = new LinkedHashSet<>();
    final List<String> operations = new ArrayList<>();

    @Override
    public void collect(BatchSummary batch) {
      collected.add(batch);
      operations.add("collect " + batch.baseOffset());
    }

    @Override
    public void flushCollected() {
      collected.forEach(b -> producers.add(b.producerId()));
      collected.clear();
      operations.add("flush");
    }

    @Override
    public void resetAtBarrier(long barrierOffset) {
      producers.clear();
      operations.add("reset " + barrierOffset);
    }
  }

  @Test
  void replayInLogOrderDropsProducersBeforeTheBarrierAndKeepsThoseAfter() {
    // Given a segment: PIDs 5 and 6, a barrier, PID 5 again (a new local producer), PID 9, a COMMIT
    // marker
    List<BatchSummary> segment =
        List.of(data(0, 5), data(1, 6), barrier(2), data(3, 5), data(4, 9), marker(5, 9));
    RecordingSink sink = new RecordingSink();

    // When it is replayed
    int barriers = InOrderReplay.replay(segment, Function.identity(), sink);

    // Then updates before the barrier were flushed before the reset, and only later producers
    // remain
    assertThat(barriers).isEqualTo(1);
    assertThat(sink.operations)
        .containsExactly(
            "collect 0",
            "collect 1",
            "flush",
            "reset 2",
            "collect 3",
            "collect 4",
            "collect 5",
            "flush");
    assertThat(sink.producers).containsExactly(5L, 9L);
  }

  @Test
  void replayWithTwoBarriersKeepsOnlyWhatFollowsTheLast() {
    RecordingSink sink = new RecordingSink();
    InOrderReplay.replay(
        List.of(data(0, 1), barrier(1), data(2, 2), barrier(3), barrier(4), data(5, 3)),
        Function.identity(),
        sink);
    assertThat(sink.producers).containsExactly(3L);
  }

  /** A producer state with open transactions and a transaction index, like Kafka's. */
  private static final class FakeState implements ProducerStateTarget {
    final Set<Long> producers = new LinkedHashSet<>(List.of(5L, 6L, 7L));
    final List<OpenTransaction> open = new ArrayList<>(List.of(new OpenTransaction(6, 10)));
    final List<String> abortedIndex = new ArrayList<>();

    @Override
    public int producerCount() {
      return producers.size();
    }

    @Override
    public List<OpenTransaction> openTransactions() {
      return List.copyOf(open);
    }

    @Override
    public void abortInTransactionIndex(OpenTransaction transaction, long abortOffset) {
      abortedIndex.add(
          transaction.producerId() + "@" + transaction.firstOffset() + ".." + abortOffset);
      open.remove(transaction);
    }

    @Override
    public void clearProducers() {
      producers.clear();
    }
  }

  @Test
  void resetAbortsOpenTransactionsInTheIndexThenRemovesEveryProducer() {
    FakeState state = new FakeState();

    ResetOutcome outcome = ProducerStateReset.apply(state, 20);

    assertThat(outcome.producersRemoved()).isEqualTo(3);
    assertThat(outcome.forcedAborts()).containsExactly(new OpenTransaction(6, 10));
    assertThat(state.abortedIndex).containsExactly("6@10..20");
    assertThat(state.producers).isEmpty();
    assertThat(state.open).isEmpty();
  }

  @Test
  void aDuplicateBarrierIsHarmless() {
    FakeState state = new FakeState();
    ProducerStateReset.apply(state, 20);

    ResetOutcome second = ProducerStateReset.apply(state, 21);

    assertThat(second.producersRemoved()).isZero();
    assertThat(second.forcedAborts()).isEmpty();
    assertThat(state.abortedIndex).hasSize(1);
  }

  @Test
  void refusesStateThatIsAheadOfTheBarrier() {
    FakeState state = new FakeState();
    state.open.add(new OpenTransaction(7, 30));
    assertThatThrownBy(() -> ProducerStateReset.apply(state, 20))
        .hasMessageContaining("producerId 7")
        .hasMessageContaining("offset 30")
        .hasMessageContaining("offset 20");
  }
}
