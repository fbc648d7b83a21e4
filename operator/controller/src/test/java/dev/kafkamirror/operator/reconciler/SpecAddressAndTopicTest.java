package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpecAddressAndTopicTest {

  @Test
  void aSourceAndDestinationThatShareABrokerInAnotherOrderOrCaseAreOneCluster() {
    assertThat(SpecResolver.addressProblem("a:9092,b:9092", "b:9092,a:9092"))
        .contains("both list b:9092")
        .contains("a cluster cannot mirror itself");
    assertThat(SpecResolver.addressProblem("Kafka-A:9092", "c:9092, kafka-a:9092"))
        .contains("kafka-a:9092");
    assertThat(SpecResolver.addressProblem("a:9092,b:9092", "a:9093,c:9092")).isNull();
  }

  @Test
  void illegalTopicNamesAreInvalidSpecNamingTheIndex() {
    assertThat(SpecResolver.topicProblem(List.of("orders", ""))).contains("spec.topics.names[1]");
    assertThat(SpecResolver.topicProblem(List.of("a/b"))).contains("'a/b'");
    assertThat(SpecResolver.topicProblem(List.of("with space"))).contains("names[0]");
    assertThat(SpecResolver.topicProblem(List.of(".."))).contains("names[0]");
    assertThat(SpecResolver.topicProblem(List.of("x".repeat(250))))
        .contains("250 characters")
        .doesNotContain("x".repeat(61));
    assertThat(SpecResolver.topicProblem(Arrays.asList("ok", null))).contains("names[1]");
    assertThat(SpecResolver.topicProblem(List.of("orders", "pay.v1_x-2", "x".repeat(249))))
        .isNull();
  }
}
