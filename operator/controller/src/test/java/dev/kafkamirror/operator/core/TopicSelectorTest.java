package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TopicSelectorTest {

  @Test
  void excludeWinsOverNamesAndIncludeAndInternalTopicsNeverMatch() {
    // Given names, an include pattern and an exclude pattern
    TopicSelector s =
        TopicSelector.of(List.of("a", "tmp-1"), List.of("orders\\..*"), List.of("tmp-.*"));

    // When topics are selected
    List<String> selected =
        s.select(List.of("a", "tmp-1", "orders.eu", "orders", "__consumer_offsets", "b"));

    // Then
    assertThat(selected).containsExactly("a", "orders.eu");
  }

  @Test
  void aBadPatternNamesTheFieldAndThePattern() {
    assertThatThrownBy(() -> TopicSelector.of(null, List.of("ok", "(unclosed"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.topics.include[1]")
        .hasMessageContaining("(unclosed");
  }
}
