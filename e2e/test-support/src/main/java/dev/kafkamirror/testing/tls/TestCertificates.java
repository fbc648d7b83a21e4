package dev.kafkamirror.testing.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for tests, made by the JDK's keytool in a directory of the test's: a CA, and
 * certificates it signs for 127.0.0.1/localhost (a server) or a client, as PKCS12 keystores and as
 * PEM text.
 */
public final class TestCertificates {

  /** The password of every keystore made here. */
  public static final String PASSWORD = "test-store-password";

  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /**
   * A broker's TLS settings for server.properties: {@code name}'s key pair (its certificate signed
   * by this CA) as its key store and this CA as its trust store, PEM text on one line each ({@link
   * #inline}), for every listener of the broker that speaks TLS.
   */
  public Map<String, String> brokerTlsProperties(String name) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("ssl.keystore.type", "PEM");
    settings.put("ssl.keystore.key", inline(privateKeyPem(name)));
    settings.put("ssl.keystore.certificate.chain", inline(certificateChainPem(name)));
    settings.put("ssl.truststore.type", "PEM");
    settings.put("ssl.truststore.certificates", inline(caPemText()));
    return settings;
  }

  /**
   * PEM text as one line of a properties file: line ends written as {@code \n}, which {@link
   * java.util.Properties#load} reads back as line ends (keytool ends the CA's base64 lines with CR
   * LF; the CRs are dropped).
   */
  public static String inline(String pem) {
    return pem.replace("\r", "").replace("\n", "\\n");
  }

  /** Makes a CA in {@code dir}. */
  public static TestCertificates create(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    TestCertificates certs = new TestCertificates(dir);
    certs.keytool(
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=cluster-mirror-test-ca",
        "-validity",
        "2",
        "-ext",
        "bc:c",
        "-keystore",
        certs.ca().toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        PASSWORD,
        "-keypass",
        PASSWORD);
    certs.keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "ca",
        "-keystore",
        certs.ca().toString(),
        "-storepass",
        PASSWORD,
        "-file",
        certs.caPem().toString());
    return certs;
  }

  private Path ca() {
    return dir.resolve("ca.p12");
  }

  /** The CA's certificate, PEM. */
  public Path caPem() {
    return dir.resolve("ca.pem");
  }

  /** The CA's certificate as PEM text. */
  public String caPemText() {
    try {
      return Files.readString(caPem());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A PKCS12 keystore (password {@value #PASSWORD}) with a key and a certificate for {@code name}
   * signed by the CA, valid for 127.0.0.1 and localhost.
   */
  public Path keystore(String name) {
    Path store = dir.resolve(name + ".p12");
    if (Files.exists(store)) {
      return store;
    }
    Path csr = dir.resolve(name + ".csr");
    Path signed = dir.resolve(name + ".crt");
    keytool(
        "-genkeypair",
        "-alias",
        name,
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + name,
        "-validity",
        "2",
        "-keystore",
        store.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        PASSWORD,
        "-keypass",
        PASSWORD);
    keytool(
        "-certreq",
        "-alias",
        name,
        "-keystore",
        store.toString(),
        "-storepass",
        PASSWORD,
        "-file",
        csr.toString());
    keytool(
        "-gencert",
        "-alias",
        "ca",
        "-keystore",
        ca().toString(),
        "-storepass",
        PASSWORD,
        "-infile",
        csr.toString(),
        "-outfile",
        signed.toString(),
        "-rfc",
        "-validity",
        "2",
        "-ext",
        "san=ip:127.0.0.1,dns:localhost");
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        "ca",
        "-file",
        caPem().toString(),
        "-keystore",
        store.toString(),
        "-storepass",
        PASSWORD);
    keytool(
        "-importcert",
        "-alias",
        name,
        "-file",
        signed.toString(),
        "-keystore",
        store.toString(),
        "-storepass",
        PASSWORD);
    return store;
  }

  /** A PKCS12 truststore (password {@value #PASSWORD}) holding the CA. */
  public Path truststore() {
    Path store = dir.resolve("truststore.p12");
    if (!Files.exists(store)) {
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          "ca",
          "-file",
          caPem().toString(),
          "-keystore",
          store.toString(),
          "-storetype",
          "PKCS12",
          "-storepass",
          PASSWORD);
    }
    return store;
  }

  /** The unencrypted PKCS#8 private key of {@code name}'s keystore, PEM. */
  public String privateKeyPem(String name) {
    try {
      KeyStore ks = load(keystore(name));
      Key key = ks.getKey(name, PASSWORD.toCharArray());
      return pem("PRIVATE KEY", key.getEncoded());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The certificate chain (leaf first) of {@code name}'s keystore, PEM. */
  public String certificateChainPem(String name) {
    try {
      KeyStore ks = load(keystore(name));
      List<String> out = new ArrayList<>();
      for (Certificate c : ks.getCertificateChain(name)) {
        out.add(pem("CERTIFICATE", c.getEncoded()));
      }
      return String.join("", out);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyStore load(Path path) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(path)) {
      ks.load(in, PASSWORD.toCharArray());
    }
    return ks;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private void keytool(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("keytool.log").toFile())
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("keytool did not finish in 60 s: " + command);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "keytool failed ("
                + p.exitValue()
                + "): "
                + command
                + "\n"
                + Files.readString(dir.resolve("keytool.log")));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run keytool: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
