package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventAggregatorTest {

  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  private static EventAggregator.Key key(String message) {
    return new EventAggregator.Key("ns", "orders", "uid-1", "Warning", "Degraded", message);
  }

  @Test
  void aRepeatedEventGrowsTheCountOfOneObjectAndKeepsItsFirstTimestamp() {
    // Given an aggregator that wrote one Event
    EventAggregator aggregator = new EventAggregator(16);
    EventAggregator.Write first = aggregator.next(key("unclean election on t-0"), T0);

    // When the same Event is said twice more
    EventAggregator.Write second =
        aggregator.next(key("unclean election on t-0"), T0.plusSeconds(5));
    EventAggregator.Write third =
        aggregator.next(key("unclean election on t-0"), T0.plusSeconds(9));

    // Then the first is a create, the repeats update the same object with a growing count
    assertThat(first.create()).isTrue();
    assertThat(first.count()).isEqualTo(1);
    assertThat(second.create()).isFalse();
    assertThat(third.create()).isFalse();
    assertThat(second.name()).isEqualTo(first.name());
    assertThat(third.name()).isEqualTo(first.name());
    assertThat(second.count()).isEqualTo(2);
    assertThat(third.count()).isEqualTo(3);
    assertThat(third.firstTimestamp()).isEqualTo(T0);
    assertThat(third.lastTimestamp()).isEqualTo(T0.plusSeconds(9));
    assertThat(aggregator.size()).isEqualTo(1);
  }

  @Test
  void anotherMessageReasonTypeOrObjectIsAnotherEvent() {
    // Given an aggregator that wrote one Event
    EventAggregator aggregator = new EventAggregator(16);
    EventAggregator.Write base = aggregator.next(key("a"), T0);

    // When Events differing in one field each are said
    EventAggregator.Write otherMessage = aggregator.next(key("b"), T0);
    EventAggregator.Write otherReason =
        aggregator.next(new EventAggregator.Key("ns", "orders", "uid-1", "Warning", "X", "a"), T0);
    EventAggregator.Write otherType =
        aggregator.next(
            new EventAggregator.Key("ns", "orders", "uid-1", "Normal", "Degraded", "a"), T0);
    EventAggregator.Write otherObject =
        aggregator.next(
            new EventAggregator.Key("ns", "orders", "uid-2", "Warning", "Degraded", "a"), T0);

    // Then each is a new object with its own name
    assertThat(java.util.List.of(otherMessage, otherReason, otherType, otherObject))
        .allSatisfy(
            w -> {
              assertThat(w.create()).isTrue();
              assertThat(w.count()).isEqualTo(1);
            })
        .extracting(EventAggregator.Write::name)
        .doesNotHaveDuplicates()
        .doesNotContain(base.name());
  }

  @Test
  void theNameIsStableAcrossAggregatorsSoThatARestartedOperatorFindsTheObject() {
    // Given two aggregators (an operator before and after a restart)
    EventAggregator before = new EventAggregator(16);
    EventAggregator after = new EventAggregator(16);

    // When both say the same Event
    EventAggregator.Write written = before.next(key("m"), T0);
    EventAggregator.Write again = after.next(key("m"), T0.plusSeconds(60));

    // Then they name the same object, a valid name that starts with the resource's name
    assertThat(again.name()).isEqualTo(written.name()).matches("orders\\.[0-9a-f]{16}");
  }

  @Test
  void anObjectReadBackAfterARefusedCreateContinuesItsCount() {
    // Given a restarted operator whose create was refused: the object holds count 7 since T0
    EventAggregator aggregator = new EventAggregator(16);
    aggregator.next(key("m"), T0.plusSeconds(100));

    // When it continues from what it read
    EventAggregator.Write continued = aggregator.seen(key("m"), 7, T0, T0.plusSeconds(100));
    EventAggregator.Write next = aggregator.next(key("m"), T0.plusSeconds(110));

    // Then the count goes on from 7, and the series keeps its first timestamp
    assertThat(continued.create()).isFalse();
    assertThat(continued.count()).isEqualTo(8);
    assertThat(next.count()).isEqualTo(9);
    assertThat(next.firstTimestamp()).isEqualTo(T0);
  }

  @Test
  void aForgottenOrEvictedSeriesStartsAgainWithACreate() {
    // Given an aggregator that remembers 2 series, holding "a" and "b"
    EventAggregator aggregator = new EventAggregator(2);
    aggregator.next(key("a"), T0);
    aggregator.next(key("b"), T0);

    // When "c" is said (evicting "a", the least recently used) and "b" is forgotten (object gone)
    aggregator.next(key("c"), T0);
    aggregator.forget(key("b"));

    // Then "a" and "b" are created again, "c" is a repeat
    assertThat(aggregator.next(key("a"), T0.plusSeconds(1)).create()).isTrue();
    assertThat(aggregator.next(key("b"), T0.plusSeconds(1)).create()).isTrue();
    assertThat(aggregator.size()).isEqualTo(2);
  }

  @Test
  void aLongResourceNameIsCutSoThatTheEventNameIsValid() {
    // Given a resource name of the longest length Kubernetes allows
    String longName = "n".repeat(253);

    // When its Event is named
    String name =
        EventAggregator.eventName(
            new EventAggregator.Key("ns", longName, "u", "Normal", "Started", "m"));

    // Then the name fits in 253 characters and keeps the hash
    assertThat(name).hasSize(253).matches("n+\\.[0-9a-f]{16}");
  }
}
