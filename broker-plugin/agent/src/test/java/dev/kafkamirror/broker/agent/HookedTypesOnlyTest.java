package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.utility.JavaModule;
import org.junit.jupiter.api.Test;

class HookedTypesOnlyTest {

  private static final String HOOKED = "org.apache.kafka.storage.internals.log.UnifiedLog";
  private static final byte[] ORIGINAL = {1, 2, 3};
  private static final byte[] TRANSFORMED = {4, 5, 6};

  /** Records which classes reach ByteBuddy's transformer, and transforms each of them. */
  private static final class RecordingTransformer
      extends ResettableClassFileTransformer.AbstractBase {
    final List<String> offered = Collections.synchronizedList(new ArrayList<>());

    @Override
    public byte[] transform(
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain,
        byte[] classfileBuffer) {
      offered.add(className);
      return TRANSFORMED;
    }

    @Override
    public byte[] transform(
        Module module,
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain,
        byte[] classfileBuffer) {
      return transform(loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    }

    @Override
    public Iterator<AgentBuilder.Transformer> iterator(
        TypeDescription typeDescription,
        ClassLoader classLoader,
        JavaModule module,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain) {
      return Collections.emptyIterator();
    }

    @Override
    public boolean reset(
        Instrumentation instrumentation,
        ResettableClassFileTransformer classFileTransformer,
        AgentBuilder.RedefinitionStrategy redefinitionStrategy,
        AgentBuilder.RedefinitionStrategy.DiscoveryStrategy redefinitionDiscoveryStrategy,
        AgentBuilder.RedefinitionStrategy.BatchAllocator redefinitionBatchAllocator,
        AgentBuilder.RedefinitionStrategy.Listener redefinitionListener) {
      return false;
    }
  }

  private final RecordingTransformer byteBuddy = new RecordingTransformer();
  private final StartupCost cost = new StartupCost(Set.of(HOOKED.replace('.', '/')));
  private final HookedTypesOnly hook = new HookedTypesOnly(byteBuddy, Set.of(HOOKED), cost);

  @Test
  void aClassTheAgentDoesNotHookNeverReachesByteBuddyAndLoadsUnchanged() throws Exception {
    // Given the hook for UnifiedLog only
    // When the broker loads other classes, through both of the JVM's entry points
    byte[] viaModule =
        hook.transform(
            Object.class.getModule(),
            getClass().getClassLoader(),
            "org/apache/kafka/storage/internals/log/LogConfig",
            null,
            null,
            ORIGINAL);
    byte[] viaLoader =
        hook.transform(getClass().getClassLoader(), "kafka/server/KafkaApis", null, null, ORIGINAL);
    byte[] hidden = hook.transform(getClass().getClassLoader(), null, null, null, ORIGINAL);

    // Then ByteBuddy is not asked about any of them, and each loads as it is
    assertThat(byteBuddy.offered).isEmpty();
    assertThat(viaModule).isNull();
    assertThat(viaLoader).isNull();
    assertThat(hidden).isNull();
  }

  @Test
  void aHookedClassIsTransformedByByteBuddyThroughEitherEntryPoint() throws Exception {
    // Given the hook for UnifiedLog
    String internal = HOOKED.replace('.', '/');
    // When the broker loads it (the JVM calls the module-aware entry point since Java 9)
    byte[] viaModule =
        hook.transform(
            Object.class.getModule(), getClass().getClassLoader(), internal, null, null, ORIGINAL);
    byte[] viaLoader = hook.transform(getClass().getClassLoader(), internal, null, null, ORIGINAL);

    // Then ByteBuddy transforms it both times
    assertThat(byteBuddy.offered).containsExactly(internal, internal);
    assertThat(viaModule).isEqualTo(TRANSFORMED);
    assertThat(viaLoader).isEqualTo(TRANSFORMED);
  }

  @Test
  void theStartUpCostIsReportedOnlyOnceEveryHookedClassIsTransformedAndTheSettingsApplied()
      throws Exception {
    // Given an installed agent
    cost.premainDone(120_000_000L);
    cost.settingsApplied(30_000_000L);
    assertThat(cost.summary()).isEmpty();

    // When its one hooked class is transformed
    hook.transform(getClass().getClassLoader(), HOOKED.replace('.', '/'), null, null, ORIGINAL);

    // Then the line names each part
    assertThat(cost.summary())
        .get()
        .asString()
        .startsWith("start-up cost ")
        .contains("premain 120 ms")
        .contains("transforming 1 hooked classes")
        .contains("applying the plugin's settings 30 ms");
  }
}
