package dev.kafkamirror.broker.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The hooked classes already transformed, carried in the agent jar for the Kafka builds it supports
 * and keyed by the SHA-256 of each original class file. {@link PrebuiltClassesBuilder} makes them
 * at build time with the same ByteBuddy code the agent runs otherwise ({@link
 * ByteBuddyTransformations}), after the same hook check; the build fails when it cannot.
 *
 * <p>At start, the agent reads the hooked classes' class files from the broker's classpath, hashes
 * them and {@linkplain #lookup looks them up}: when every one is here, the agent installs with
 * these bytes and never loads ByteBuddy (the hook check is implied: the same bytes passed it at
 * build time). When any one is not (a patched Kafka build, another Kafka version), the agent takes
 * the ByteBuddy path, as before there were prebuilt classes.
 *
 * <p>The layout, under {@link #DIRECTORY}: {@code index.properties}, one line per prebuilt class,
 * {@code <sha-256 of the original class file, lower-case hex>=<internal name>}; and beside it
 * {@code <sha-256>.bin}, the transformed class file (not {@code .class}, so that shading leaves it
 * as it is). No class of ByteBuddy is named here.
 */
final class PrebuiltClasses {

  static final String DIRECTORY = "META-INF/cluster-mirror/prebuilt/";
  static final String INDEX = DIRECTORY + "index.properties";

  /** Reads a resource of the agent jar; null when there is none. */
  interface Resources {
    byte[] read(String path) throws IOException;
  }

  /**
   * What the lookup found: the prebuilt bytes per internal name when {@link #complete}, else which
   * classes have none and why.
   */
  record Lookup(Map<String, byte[]> transformed, List<String> unmatched, String why) {

    /** Whether every class looked up has prebuilt bytes. */
    boolean complete() {
      return unmatched.isEmpty();
    }
  }

  private final Resources resources;

  PrebuiltClasses(Resources resources) {
    this.resources = resources;
  }

  /** The prebuilt classes in the agent jar (resources of the agent's own class loader). */
  static PrebuiltClasses inAgentJar() {
    ClassLoader jar = PrebuiltClasses.class.getClassLoader();
    return new PrebuiltClasses(
        path -> {
          try (InputStream in = jar.getResourceAsStream(path)) {
            return in == null ? null : in.readAllBytes();
          }
        });
  }

  /** The lower-case hex SHA-256 of {@code bytes}. */
  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM offers no SHA-256 MessageDigest", e);
    }
  }

  /**
   * Looks up every class of {@code originals} (internal name to its original class file). Complete
   * only when each one's hash is in the index under the same name and its prebuilt bytes are there;
   * never throws.
   */
  Lookup lookup(Map<String, byte[]> originals) {
    List<String> all = new ArrayList<>(new TreeMap<>(originals).keySet());
    Properties index = new Properties();
    try {
      byte[] text = resources.read(INDEX);
      if (text == null) {
        return new Lookup(
            Map.of(), all, "the agent jar holds no prebuilt classes (no " + INDEX + ")");
      }
      index.load(new StringReader(new String(text, StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      return new Lookup(Map.of(), all, "cannot read " + INDEX + " from the agent jar: " + e);
    }
    Map<String, byte[]> transformed = new TreeMap<>();
    List<String> unmatched = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    for (String name : all) {
      String hash;
      try {
        hash = sha256(originals.get(name));
      } catch (RuntimeException e) {
        unmatched.add(name);
        unreadable.add(name + ": " + e);
        continue;
      }
      if (!name.equals(index.getProperty(hash))) {
        unmatched.add(name);
        continue;
      }
      String path = DIRECTORY + hash + ".bin";
      byte[] bytes;
      try {
        bytes = resources.read(path);
      } catch (IOException | RuntimeException e) {
        bytes = null;
      }
      if (bytes == null) {
        unmatched.add(name);
        unreadable.add(path + " (listed in " + INDEX + ") unreadable");
        continue;
      }
      transformed.put(name, bytes);
    }
    if (unmatched.isEmpty()) {
      return new Lookup(Map.copyOf(transformed), List.of(), "");
    }
    String why =
        unmatched.stream().map(n -> n.replace('/', '.')).toList()
            + " on the broker's classpath differ from the Kafka build(s) the agent jar holds"
            + " prebuilt classes for"
            + (unreadable.isEmpty() ? "" : "; the agent jar is damaged: " + unreadable);
    return new Lookup(Map.of(), List.copyOf(unmatched), why);
  }
}
