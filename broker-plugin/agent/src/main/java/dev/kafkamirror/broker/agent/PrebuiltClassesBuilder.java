package dev.kafkamirror.broker.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The build step that makes the agent jar's {@link PrebuiltClasses}: run by the agent module's pom
 * (exec-maven-plugin, phase {@code process-classes}, before the tests and the shading) in a JVM
 * whose class path is the module's compile class path, so the Kafka build of the project's BOM. For
 * that Kafka it checks, as the agent would at start, that the version is supported and that every
 * hook target is there ({@code missingTargets}), transforms each hooked class with the same code
 * the agent runs otherwise ({@link ByteBuddyTransformations}) and writes the results. Any failure
 * (a missing target, a class ByteBuddy cannot transform, a result that differs between two runs or
 * that names a package the agent jar relocates) fails the build, naming the cause.
 *
 * <p>Never run by the agent itself.
 */
public final class PrebuiltClassesBuilder {

  /**
   * Packages the agent jar shades under other names: a prebuilt class naming one would not link in
   * the shaded jar, so none may (the advice is inlined: its own references to ByteBuddy's
   * annotations are not copied).
   */
  static final List<String> RELOCATED =
      List.of("net/bytebuddy", "net.bytebuddy", "com/fasterxml/jackson", "com.fasterxml.jackson");

  private PrebuiltClassesBuilder() {}

  /** What was built: per internal name, the original class file and the transformed one. */
  record Built(
      String kafkaVersion, Map<String, byte[]> originals, Map<String, byte[]> transformed) {}

  /**
   * @param args the output directory, the module's {@code target/classes}
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException(
          "usage: PrebuiltClassesBuilder <output directory (the agent module's target/classes)>;"
              + " got "
              + Arrays.toString(args));
    }
    long started = System.nanoTime();
    Built built = build(PrebuiltClassesBuilder.class.getClassLoader());
    Path directory = write(Path.of(args[0]), built);
    System.out.println(
        "cluster mirror agent build: prebuilt "
            + built.transformed().size()
            + " hooked classes for Kafka "
            + built.kafkaVersion()
            + " into "
            + directory
            + " in "
            + (System.nanoTime() - started) / 1_000_000
            + " ms");
  }

  /** Checks and transforms the hooked classes {@code kafka} holds; throws on any failure. */
  static Built build(ClassLoader kafka) {
    KafkaBinding binding =
        KafkaBinding.load()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no "
                            + KafkaBinding.class.getName()
                            + " service on the build's class path: check"
                            + " META-INF/services/"
                            + KafkaBinding.class.getName()));
    String version =
        SupportedKafkaVersions.kafkaVersionOn(kafka)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no Kafka version on the build's class path ("
                            + SupportedKafkaVersions.KAFKA_VERSION_RESOURCE
                            + " missing): the agent module must depend on kafka-clients"));
    SupportedKafkaVersions supported = SupportedKafkaVersions.declared();
    if (!supported.supports(version)) {
      throw new IllegalStateException(
          "the build's Kafka "
              + version
              + " is not one the agent supports ("
              + supported.patterns()
              + " in "
              + SupportedKafkaVersions.RESOURCE
              + "): align the BOM's kafka.version and that resource");
    }
    List<String> missing = ByteBuddyTransformations.missingTargets(binding, kafka);
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "Kafka "
              + version
              + " on the build's class path lacks methods the plugin hooks: "
              + missing
              + "; fix the targets in the binding ("
              + binding.getClass().getName()
              + ")");
    }
    Map<String, byte[]> originals = new TreeMap<>();
    for (String name : new java.util.TreeSet<>(binding.hookedTypes())) {
      String internal = name.replace('.', '/');
      originals.put(internal, classFile(kafka, internal));
    }
    Map<String, byte[]> first = transformAll(binding, kafka, originals);
    // A second, independent run must give the same bytes: the agent's run-time path is a third.
    Map<String, byte[]> second = transformAll(binding, kafka, originals);
    for (String internal : originals.keySet()) {
      if (!Arrays.equals(first.get(internal), second.get(internal))) {
        throw new IllegalStateException(
            "ByteBuddy transformed "
                + internal.replace('/', '.')
                + " into different bytes in two runs: the prebuilt classes would not be what the"
                + " agent makes at run time; find what varies (a map's order, a random name)");
      }
      List<String> inaccessible = inaccessibleAgentMembers(first.get(internal), kafka);
      if (!inaccessible.isEmpty()) {
        throw new IllegalStateException(
            "the transformed "
                + internal.replace('/', '.')
                + " uses "
                + inaccessible
                + ", which code inlined into Kafka's class cannot reach (IllegalAccessError at run"
                + " time, which the advice would suppress: the hook would silently do nothing):"
                + " make the class and the member public");
      }
      String named = introducedRelocatedName(originals.get(internal), first.get(internal));
      if (named != null) {
        throw new IllegalStateException(
            "the transformed "
                + internal.replace('/', '.')
                + " names "
                + named
                + ", which the agent jar relocates (maven-shade-plugin): inline no reference to"
                + " it in the advice");
      }
    }
    return new Built(version, Map.copyOf(originals), Map.copyOf(first));
  }

  private static Map<String, byte[]> transformAll(
      KafkaBinding binding, ClassLoader kafka, Map<String, byte[]> originals) {
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    ClassFileTransformer transformer =
        ByteBuddyTransformations.transformer(
            binding, (typeName, error) -> errors.add(typeName + ": " + error));
    Map<String, byte[]> transformed = new TreeMap<>();
    for (Map.Entry<String, byte[]> original : originals.entrySet()) {
      byte[] result =
          ByteBuddyTransformations.transformAhead(
              transformer, kafka, original.getKey(), original.getValue());
      if (result == null || !errors.isEmpty()) {
        throw new IllegalStateException(
            "ByteBuddy did not transform "
                + original.getKey().replace('/', '.')
                + (errors.isEmpty() ? " (no error reported)" : ": " + errors)
                + "; fix the advice or its target in the binding");
      }
      transformed.put(original.getKey(), result);
    }
    return transformed;
  }

  /**
   * The agent's methods and fields that {@code classFile} calls or reads but that are not public or
   * sit in a class that is not public, as {@code owner.name descriptor}: advice code is inlined
   * into Kafka's class, in another package, where only public members of public classes can be
   * reached. A member that cannot be found is reported too.
   */
  static List<String> inaccessibleAgentMembers(byte[] classFile, ClassLoader loader) {
    List<String> found = new ArrayList<>();
    new net.bytebuddy.jar.asm.ClassReader(classFile)
        .accept(
            new net.bytebuddy.jar.asm.ClassVisitor(net.bytebuddy.jar.asm.Opcodes.ASM9) {
              @Override
              public net.bytebuddy.jar.asm.MethodVisitor visitMethod(
                  int access, String name, String descriptor, String signature, String[] ex) {
                return new net.bytebuddy.jar.asm.MethodVisitor(net.bytebuddy.jar.asm.Opcodes.ASM9) {
                  @Override
                  public void visitMethodInsn(
                      int opcode, String owner, String member, String desc, boolean itf) {
                    check(owner, member, desc, true);
                  }

                  @Override
                  public void visitFieldInsn(int opcode, String owner, String member, String desc) {
                    check(owner, member, desc, false);
                  }

                  private void check(String owner, String member, String desc, boolean method) {
                    if (!owner.startsWith("dev/kafkamirror/")) {
                      return;
                    }
                    String what = owner.replace('/', '.') + "." + member + " " + desc;
                    if (!found.contains(what) && !reachable(owner, member, desc, method, loader)) {
                      found.add(what);
                    }
                  }
                };
              }
            },
            net.bytebuddy.jar.asm.ClassReader.SKIP_DEBUG);
    return found;
  }

  private static boolean reachable(
      String owner, String member, String desc, boolean method, ClassLoader loader) {
    try {
      Class<?> type = Class.forName(owner.replace('/', '.'), false, loader);
      if (!java.lang.reflect.Modifier.isPublic(type.getModifiers())) {
        return false;
      }
      if (method && member.equals("<init>")) {
        for (java.lang.reflect.Constructor<?> k : type.getDeclaredConstructors()) {
          if (net.bytebuddy.jar.asm.Type.getConstructorDescriptor(k).equals(desc)) {
            return java.lang.reflect.Modifier.isPublic(k.getModifiers());
          }
        }
        return false;
      }
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        if (method) {
          for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(member)
                && net.bytebuddy.jar.asm.Type.getMethodDescriptor(m).equals(desc)) {
              return java.lang.reflect.Modifier.isPublic(m.getModifiers());
            }
          }
        } else {
          for (java.lang.reflect.Field f : c.getDeclaredFields()) {
            if (f.getName().equals(member)) {
              return java.lang.reflect.Modifier.isPublic(f.getModifiers());
            }
          }
        }
      }
      return false;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The first relocated package that {@code transformed} names and {@code original} does not (a
   * Kafka class may name the broker's own Jackson, which stays as it is), or null.
   */
  static String introducedRelocatedName(byte[] original, byte[] transformed) {
    String before = new String(original, StandardCharsets.ISO_8859_1);
    String after = new String(transformed, StandardCharsets.ISO_8859_1);
    return RELOCATED.stream()
        .filter(name -> after.contains(name) && !before.contains(name))
        .findFirst()
        .orElse(null);
  }

  private static byte[] classFile(ClassLoader loader, String internal) {
    try (InputStream in = loader.getResourceAsStream(internal + ".class")) {
      if (in == null) {
        throw new IllegalStateException(
            internal.replace('/', '.') + " has no class file on the build's class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read the class file of " + internal.replace('/', '.') + ": " + e, e);
    }
  }

  /** Writes {@code built} under {@code classes}; returns the directory written. */
  static Path write(Path classes, Built built) throws IOException {
    Path directory = classes.resolve(PrebuiltClasses.DIRECTORY);
    Files.createDirectories(directory);
    try (DirectoryStream<Path> stale = Files.newDirectoryStream(directory, "*.bin")) {
      for (Path file : stale) {
        Files.delete(file);
      }
    }
    StringBuilder index =
        new StringBuilder()
            .append("# The hooked classes of Kafka ")
            .append(built.kafkaVersion())
            .append(", transformed at build time by ")
            .append(PrebuiltClassesBuilder.class.getName())
            .append(".\n# <sha-256 of the original class file>=<internal name>;")
            .append(" the transformed class file is <sha-256>.bin. Do not edit.\n");
    for (Map.Entry<String, byte[]> original : new TreeMap<>(built.originals()).entrySet()) {
      String hash = PrebuiltClasses.sha256(original.getValue());
      Files.write(directory.resolve(hash + ".bin"), built.transformed().get(original.getKey()));
      index.append(hash).append('=').append(original.getKey()).append('\n');
    }
    Files.writeString(
        classes.resolve(PrebuiltClasses.INDEX), index.toString(), StandardCharsets.UTF_8);
    return directory;
  }
}
