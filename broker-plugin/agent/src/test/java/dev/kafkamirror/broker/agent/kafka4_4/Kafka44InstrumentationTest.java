package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class Kafka44InstrumentationTest {

  @Test
  void theHookedTypesTheAgentPassesToByteBuddyCoverEveryTarget() {
    // Given every hooked method
    // When the agent asks which classes to hand to ByteBuddy
    // Then each target's class is among them: a missing one would load untransformed
    for (Kafka44Instrumentation.Target target : Kafka44Instrumentation.targets()) {
      assertThat(Kafka44Instrumentation.hookedTypes()).contains(target.typeName());
    }
    // And each of them has a target: the list is a constant, kept apart from the targets so that
    // premain need not build ByteBuddy's matchers
    assertThat(Kafka44Instrumentation.hookedTypes())
        .containsExactlyInAnyOrderElementsOf(
            Kafka44Instrumentation.targets().stream()
                .map(Kafka44Instrumentation.Target::typeName)
                .distinct()
                .toList());
    assertThat(new Kafka44Binding().hookedTypes())
        .containsExactlyInAnyOrderElementsOf(Kafka44Instrumentation.hookedTypes());
  }

  @Test
  void everyTargetMatchesItsMethodInTheKafka44ClassesOnTheClasspath() {
    // Given the Kafka 4.4 classes this module compiles against
    // When every target is checked the way the agent checks the broker's classes at start
    // Then none is missing: a missing one would leave the whole plugin untransformed
    assertThat(
            Kafka44Instrumentation.missingTargets(
                net.bytebuddy.pool.TypePool.Default.of(getClass().getClassLoader())))
        .isEmpty();
  }
}
