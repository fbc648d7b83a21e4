package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The agent jar's prebuilt classes ({@link PrebuiltClasses}): when they apply (every hooked class
 * file's SHA-256 stored under its name), when they do not (then the agent takes the ByteBuddy
 * path), and that the ones this build put in the jar are exactly what the ByteBuddy path makes of
 * the same Kafka class files, so that the two cannot drift apart.
 */
class PrebuiltClassesTest {

  private static final String UNIFIED_LOG = "org/apache/kafka/storage/internals/log/UnifiedLog";
  private static final String LOG_SEGMENT = "org/apache/kafka/storage/internals/log/LogSegment";
  private static final byte[] LOG_ORIGINAL = {1, 2, 3};
  private static final byte[] SEGMENT_ORIGINAL = {4, 5, 6};
  private static final byte[] LOG_PREBUILT = {7, 8};
  private static final byte[] SEGMENT_PREBUILT = {9};

  /** An agent jar's resources holding {@code classes}: internal name to original and prebuilt. */
  private static Map<String, byte[]> jar(Map<String, byte[][]> classes) {
    Map<String, byte[]> resources = new HashMap<>();
    StringBuilder index = new StringBuilder("# a comment line\n");
    classes.forEach(
        (name, originalAndPrebuilt) -> {
          String hash = PrebuiltClasses.sha256(originalAndPrebuilt[0]);
          index.append(hash).append('=').append(name).append('\n');
          resources.put(PrebuiltClasses.DIRECTORY + hash + ".bin", originalAndPrebuilt[1]);
        });
    resources.put(PrebuiltClasses.INDEX, index.toString().getBytes(StandardCharsets.UTF_8));
    return resources;
  }

  private static Map<String, byte[][]> bothClasses() {
    return Map.of(
        UNIFIED_LOG, new byte[][] {LOG_ORIGINAL, LOG_PREBUILT},
        LOG_SEGMENT, new byte[][] {SEGMENT_ORIGINAL, SEGMENT_PREBUILT});
  }

  @Test
  void everyClassFileWithItsHashStoredUnderItsNameGetsItsPrebuiltBytes() {
    // Given an agent jar with prebuilt classes for both class files
    PrebuiltClasses prebuilt = new PrebuiltClasses(jar(bothClasses())::get);

    // When the broker's class files are exactly those
    PrebuiltClasses.Lookup lookup =
        prebuilt.lookup(Map.of(UNIFIED_LOG, LOG_ORIGINAL, LOG_SEGMENT, SEGMENT_ORIGINAL));

    // Then the lookup is complete, with each class's prebuilt bytes
    assertThat(lookup.complete()).isTrue();
    assertThat(lookup.transformed()).containsOnlyKeys(UNIFIED_LOG, LOG_SEGMENT);
    assertThat(lookup.transformed().get(UNIFIED_LOG)).isEqualTo(LOG_PREBUILT);
    assertThat(lookup.transformed().get(LOG_SEGMENT)).isEqualTo(SEGMENT_PREBUILT);
  }

  @Test
  void oneClassFileThatDiffersMakesTheLookupIncompleteNamingIt() {
    // Given an agent jar with prebuilt classes for both class files
    PrebuiltClasses prebuilt = new PrebuiltClasses(jar(bothClasses())::get);

    // When the broker's LogSegment differs by one byte (a patched Kafka build)
    PrebuiltClasses.Lookup lookup =
        prebuilt.lookup(Map.of(UNIFIED_LOG, LOG_ORIGINAL, LOG_SEGMENT, new byte[] {4, 5, 7}));

    // Then no prebuilt bytes are used at all, and the reason names the class that differs
    assertThat(lookup.complete()).isFalse();
    assertThat(lookup.transformed()).isEmpty();
    assertThat(lookup.unmatched()).containsExactly(LOG_SEGMENT);
    assertThat(lookup.why())
        .contains("org.apache.kafka.storage.internals.log.LogSegment")
        .contains("differ from the Kafka build(s) the agent jar holds prebuilt classes for")
        .doesNotContain("UnifiedLog");
  }

  @Test
  void aHashStoredForAnotherClassDoesNotMatch() {
    // Given an agent jar whose prebuilt UnifiedLog has the same original bytes as the broker's
    // LogSegment
    PrebuiltClasses prebuilt = new PrebuiltClasses(jar(bothClasses())::get);

    // When the broker's LogSegment has UnifiedLog's original bytes
    PrebuiltClasses.Lookup lookup =
        prebuilt.lookup(Map.of(UNIFIED_LOG, LOG_ORIGINAL, LOG_SEGMENT, LOG_ORIGINAL));

    // Then LogSegment has no prebuilt bytes: a hash counts only under its class's name
    assertThat(lookup.complete()).isFalse();
    assertThat(lookup.unmatched()).containsExactly(LOG_SEGMENT);
  }

  @Test
  void anAgentJarWithoutAnIndexHasNoPrebuiltClasses() {
    // Given an agent jar without the index
    PrebuiltClasses prebuilt = new PrebuiltClasses(path -> null);

    // When the broker's class files are looked up
    PrebuiltClasses.Lookup lookup =
        prebuilt.lookup(Map.of(UNIFIED_LOG, LOG_ORIGINAL, LOG_SEGMENT, SEGMENT_ORIGINAL));

    // Then none has prebuilt bytes, and the reason names the missing index
    assertThat(lookup.complete()).isFalse();
    assertThat(lookup.unmatched()).containsExactly(LOG_SEGMENT, UNIFIED_LOG);
    assertThat(lookup.why()).contains(PrebuiltClasses.INDEX);
  }

  @Test
  void anIndexedClassWhosePrebuiltBytesAreMissingIsReportedAsADamagedJar() {
    // Given an agent jar whose index lists UnifiedLog's hash but lacks its prebuilt bytes
    Map<String, byte[]> resources = jar(bothClasses());
    resources.remove(PrebuiltClasses.DIRECTORY + PrebuiltClasses.sha256(LOG_ORIGINAL) + ".bin");
    PrebuiltClasses prebuilt = new PrebuiltClasses(resources::get);

    // When the broker's class files are exactly those of the index
    PrebuiltClasses.Lookup lookup =
        prebuilt.lookup(Map.of(UNIFIED_LOG, LOG_ORIGINAL, LOG_SEGMENT, SEGMENT_ORIGINAL));

    // Then the lookup is incomplete, saying the jar is damaged and which file is missing
    assertThat(lookup.complete()).isFalse();
    assertThat(lookup.unmatched()).containsExactly(UNIFIED_LOG);
    assertThat(lookup.why())
        .contains("the agent jar is damaged")
        .contains(PrebuiltClasses.sha256(LOG_ORIGINAL) + ".bin");
  }

  @Test
  void theAgentJarsPrebuiltClassesAreWhatTheByteBuddyPathMakesOfTheBuildsKafka() throws Exception {
    // Given the binding and the Kafka build on this class path (the project's BOM Kafka, the one
    // the build step prebuilt the hooked classes for)
    KafkaBinding binding = KafkaBinding.load().orElseThrow();
    ClassLoader app = ClassLoader.getSystemClassLoader();
    Map<String, byte[]> originals = new TreeMap<>();
    for (String name : binding.hookedTypes()) {
      String internal = name.replace('.', '/');
      try (InputStream in = app.getResourceAsStream(internal + ".class")) {
        originals.put(internal, in.readAllBytes());
      }
    }

    // When the agent looks them up in the prebuilt classes the build put on this class path, and
    // when the ByteBuddy path transforms the same class files as the agent does at run time
    PrebuiltClasses.Lookup lookup = PrebuiltClasses.inAgentJar().lookup(originals);
    List<String> errors = new ArrayList<>();
    ClassFileTransformer byteBuddy =
        ByteBuddyTransformations.transformer(binding, (type, error) -> errors.add(type));
    Map<String, byte[]> atRunTime = new TreeMap<>();
    for (Map.Entry<String, byte[]> original : originals.entrySet()) {
      atRunTime.put(
          original.getKey(),
          ByteBuddyTransformations.transformAhead(
              byteBuddy, app, original.getKey(), original.getValue()));
    }

    // Then every hooked class is prebuilt, with exactly the bytes the ByteBuddy path makes
    assertThat(lookup.complete()).as(lookup.why()).isTrue();
    assertThat(errors).isEmpty();
    assertThat(lookup.transformed()).containsOnlyKeys(originals.keySet());
    for (String internal : originals.keySet()) {
      assertThat(lookup.transformed().get(internal))
          .as("the prebuilt %s", internal)
          .isNotEqualTo(originals.get(internal))
          .isEqualTo(atRunTime.get(internal));
    }
  }

  @Test
  void theBuildStepFindsAReferenceToARelocatedPackageThatTheTransformationAdded()
      throws IOException {
    // Given a class file, and the same with a reference to ByteBuddy added
    byte[] original = "\u0001\u0010java/lang/Object".getBytes(StandardCharsets.ISO_8859_1);
    byte[] withByteBuddy =
        (new String(original, StandardCharsets.ISO_8859_1) + "net/bytebuddy/asm/Advice")
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] withJackson =
        "com/fasterxml/jackson/databind/ObjectMapper".getBytes(StandardCharsets.ISO_8859_1);

    // When the build step checks them, Then it names the relocated package the transformation
    // added, and not one the original Kafka class named already (the broker's own Jackson)
    assertThat(PrebuiltClassesBuilder.introducedRelocatedName(original, withByteBuddy))
        .isEqualTo("net/bytebuddy");
    assertThat(PrebuiltClassesBuilder.introducedRelocatedName(original, original)).isNull();
    assertThat(PrebuiltClassesBuilder.introducedRelocatedName(withJackson, withJackson)).isNull();
  }
}
