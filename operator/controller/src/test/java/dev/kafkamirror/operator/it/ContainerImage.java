package dev.kafkamirror.operator.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.testing.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An OCI image tarball (what {@code jib:buildTar} writes with {@code <format>OCI</format>})
 * unpacked the way a container runtime would: {@code index.json} to the manifest, the manifest to
 * the config and the layers, each layer extracted in order into one root filesystem (as root, so
 * that owners and modes are the image's).
 *
 * @param reference the image reference recorded in the index ({@code
 *     org.opencontainers.image.ref.name})
 * @param rootfs the unpacked root filesystem
 * @param entrypoint the config's Entrypoint followed by its Cmd
 * @param environment the config's Env
 * @param user the config's User ({@code uid[:gid]})
 * @param workingDir the config's WorkingDir ({@code /} when unset)
 * @param labels the config's Labels
 */
record ContainerImage(
    String reference,
    Path rootfs,
    List<String> entrypoint,
    Map<String, String> environment,
    String user,
    String workingDir,
    Map<String, String> labels) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TAR_TIMEOUT = Duration.ofSeconds(180);

  /** Unpacks {@code tarball} under {@code workDir} (a new, empty directory). */
  static ContainerImage unpack(Path tarball, Path workDir) throws IOException {
    if (!Files.isRegularFile(tarball)) {
      throw new IllegalStateException(
          "the operator image "
              + tarball
              + " is missing: build it with ./mvnw -pl operator/controller -am package (Jib's"
              + " buildTar; -Dcmo.image.skip=true or -DskipTests leave it out)");
    }
    Path layout = workDir.resolve("oci");
    Path rootfs = workDir.resolve("rootfs");
    Files.createDirectories(layout);
    Files.createDirectories(rootfs);
    tar(List.of("tar", "-xf", tarball.toString(), "-C", layout.toString()));
    JsonNode index = read(layout.resolve("index.json"));
    JsonNode descriptor = index.path("manifests").path(0);
    String reference =
        descriptor.path("annotations").path("org.opencontainers.image.ref.name").asText("");
    JsonNode manifest = read(blob(layout, descriptor.path("digest").asText()));
    JsonNode config = read(blob(layout, manifest.path("config").path("digest").asText()));
    for (JsonNode layer : manifest.path("layers")) {
      Path blob = blob(layout, layer.path("digest").asText());
      tar(List.of("tar", "-xzf", blob.toString(), "-C", rootfs.toString(), "--numeric-owner"));
      try (Stream<Path> files = Files.walk(rootfs)) {
        List<Path> whiteouts =
            files.filter(p -> p.getFileName().toString().startsWith(".wh.")).toList();
        if (!whiteouts.isEmpty()) {
          throw new IllegalStateException(
              "layer " + layer.path("digest").asText() + " has whiteouts " + whiteouts);
        }
      }
    }
    JsonNode c = config.path("config");
    List<String> entrypoint = new ArrayList<>();
    c.path("Entrypoint").forEach(n -> entrypoint.add(n.asText()));
    c.path("Cmd").forEach(n -> entrypoint.add(n.asText()));
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : c.path("Env")) {
      String kv = e.asText();
      int eq = kv.indexOf('=');
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    Map<String, String> labels = new LinkedHashMap<>();
    c.path("Labels").properties().forEach(f -> labels.put(f.getKey(), f.getValue().asText()));
    String workingDir = c.path("WorkingDir").asText("");
    return new ContainerImage(
        reference,
        rootfs,
        List.copyOf(entrypoint),
        env,
        c.path("User").asText(""),
        workingDir.isEmpty() ? "/" : workingDir,
        labels);
  }

  /**
   * The command that runs this image's entrypoint as a container runtime would with the chart's pod
   * settings: in new mount and PID namespaces (the entrypoint is PID 1), the root filesystem
   * bind-mounted read-only ({@code readOnlyRootFilesystem: true}) with an empty tmpfs on /tmp (the
   * chart's emptyDir) and a fresh /proc, chrooted, as the image's user, in its working directory.
   * The network is the host's, so loopback reaches the test's API server and brokers. Every mount
   * lives in the new mount namespace and goes with it. When the returned process dies, the
   * entrypoint gets SIGTERM ({@code --kill-child=SIGTERM}), as from a kubelet.
   */
  List<String> runCommand() {
    String[] ids = user.split(":", 2);
    String uid = ids[0];
    String gid = ids.length > 1 ? ids[1] : ids[0];
    String inNamespaces =
        "set -e; r=\"$1\"; wd=\"$2\"; uid=\"$3\"; gid=\"$4\"; shift 4;"
            + " mount --rbind \"$r\" \"$r\"; mount -o remount,bind,ro \"$r\";"
            + " mount -t tmpfs -o mode=1777 tmpfs \"$r/tmp\"; mount -t proc proc \"$r/proc\";"
            + " exec unshare --root=\"$r\" --wd=\"$wd\" --setuid=\"$uid\" --setgid=\"$gid\""
            + " \"$@\"";
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "unshare",
            "--mount",
            "--pid",
            "--fork",
            "--kill-child=SIGTERM",
            "/bin/sh",
            "-c",
            inNamespaces,
            "sh",
            rootfs.toString(),
            workingDir,
            uid,
            gid));
    command.addAll(entrypoint);
    return command;
  }

  private static Path blob(Path layout, String digest) {
    if (!digest.startsWith("sha256:")) {
      throw new IllegalStateException("unexpected digest '" + digest + "' in " + layout);
    }
    return layout.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
  }

  private static JsonNode read(Path file) throws IOException {
    return JSON.readTree(Files.readString(file));
  }

  private static void tar(List<String> command) {
    Commands.run(TAR_TIMEOUT, command).requireSuccess();
  }
}
