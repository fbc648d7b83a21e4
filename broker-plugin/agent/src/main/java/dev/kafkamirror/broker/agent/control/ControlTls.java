package dev.kafkamirror.broker.agent.control;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ServerSocketFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;

/**
 * TLS for the control endpoint, configured the way Kafka users configure TLS: the broker settings
 * {@value #PREFIX}{@code ssl.*} are Kafka's own {@code ssl.*} settings (keystore and truststore
 * location, type JKS, PKCS12 or PEM, passwords, inline PEM {@code ssl.keystore.key} and {@code
 * ssl.keystore.certificate.chain}, {@code ssl.truststore.certificates}, protocols, cipher suites),
 * read by Kafka's {@link DefaultSslEngineFactory}. {@value #CLIENT_AUTH} ({@code required}, {@code
 * requested}, {@code none}) turns on client certificates (mTLS) against the truststore.
 *
 * <p>Without a keystore the endpoint refuses to start, unless {@value #INSECURE_PLAINTEXT} is
 * {@code true}: then it serves plain HTTP, and the bearer secret and the source's passwords cross
 * the network in clear text.
 */
public final class ControlTls {

  /** The prefix of the endpoint's TLS settings. */
  public static final String PREFIX = "cluster.mirror.control.";

  /** Broker setting: serve plain HTTP (the secret and passwords in clear text). */
  public static final String INSECURE_PLAINTEXT = "cluster.mirror.control.insecure.plaintext";

  /** Broker setting: {@code required}, {@code requested} or {@code none} (default). */
  public static final String CLIENT_AUTH = "cluster.mirror.control.ssl.client.auth";

  private ControlTls() {}

  /** Whether the settings configure TLS (a keystore, by file or inline PEM). */
  public static boolean configured(Map<String, String> settings) {
    return settings.containsKey(PREFIX + SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG)
        || settings.containsKey(PREFIX + SslConfigs.SSL_KEYSTORE_KEY_CONFIG);
  }

  /** Whether the settings ask for plain HTTP explicitly. */
  public static boolean insecurePlaintext(Map<String, String> settings) {
    String value = settings.getOrDefault(INSECURE_PLAINTEXT, "false").trim();
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(
          INSECURE_PLAINTEXT + " must be true or false, got '" + value + "'");
    }
    return value.equals("true");
  }

  /**
   * The server sockets the endpoint listens with: TLS when configured, plain when explicitly
   * insecure.
   *
   * @throws IllegalArgumentException when neither, or both, naming the settings to set
   */
  public static ServerSocketFactory serverSockets(Map<String, String> settings) {
    boolean tls = configured(settings);
    boolean plain = insecurePlaintext(settings);
    if (tls && plain) {
      throw new IllegalArgumentException(
          INSECURE_PLAINTEXT
              + "=true and a keystore under "
              + PREFIX
              + "ssl.* are both set; choose one");
    }
    if (!tls) {
      if (!plain) {
        throw new IllegalArgumentException(
            "the control endpoint needs TLS: set "
                + PREFIX
                + SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG
                + " (or "
                + PREFIX
                + SslConfigs.SSL_KEYSTORE_KEY_CONFIG
                + " and "
                + PREFIX
                + SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG
                + " in PEM), or "
                + INSECURE_PLAINTEXT
                + "=true to send the secret in clear text");
      }
      return ServerSocketFactory.getDefault();
    }
    Map<String, Object> parsed = parse(settings);
    DefaultSslEngineFactory factory = new DefaultSslEngineFactory();
    factory.configure(parsed);
    SSLContext context = factory.sslContext();
    String clientAuth = settings.getOrDefault(CLIENT_AUTH, "none").trim().toLowerCase(Locale.ROOT);
    if (!List.of("none", "requested", "required").contains(clientAuth)) {
      throw new IllegalArgumentException(
          CLIENT_AUTH + " must be required, requested or none, got '" + clientAuth + "'");
    }
    @SuppressWarnings("unchecked")
    List<String> protocols = (List<String>) parsed.get(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG);
    @SuppressWarnings("unchecked")
    List<String> ciphers = (List<String>) parsed.get(SslConfigs.SSL_CIPHER_SUITES_CONFIG);
    ServerSocketFactory delegate = context.getServerSocketFactory();
    return new ServerSocketFactory() {
      private ServerSocket configure(ServerSocket socket) {
        SSLServerSocket ssl = (SSLServerSocket) socket;
        if (protocols != null && !protocols.isEmpty()) {
          ssl.setEnabledProtocols(protocols.toArray(String[]::new));
        }
        if (ciphers != null && !ciphers.isEmpty()) {
          ssl.setEnabledCipherSuites(ciphers.toArray(String[]::new));
        }
        if (clientAuth.equals("required")) {
          ssl.setNeedClientAuth(true);
        } else if (clientAuth.equals("requested")) {
          ssl.setWantClientAuth(true);
        }
        return ssl;
      }

      @Override
      public ServerSocket createServerSocket() throws IOException {
        return configure(delegate.createServerSocket());
      }

      @Override
      public ServerSocket createServerSocket(int port) throws IOException {
        return configure(delegate.createServerSocket(port));
      }

      @Override
      public ServerSocket createServerSocket(int port, int backlog) throws IOException {
        return configure(delegate.createServerSocket(port, backlog));
      }

      @Override
      public ServerSocket createServerSocket(int port, int backlog, InetAddress address)
          throws IOException {
        return configure(delegate.createServerSocket(port, backlog, address));
      }
    };
  }

  /** The {@value #PREFIX}{@code ssl.*} settings as Kafka's client SSL definition parses them. */
  static Map<String, Object> parse(Map<String, String> settings) {
    Map<String, String> ssl = new HashMap<>();
    settings.forEach(
        (k, v) -> {
          if (k.startsWith(PREFIX + "ssl.") && !k.equals(CLIENT_AUTH)) {
            ssl.put(k.substring(PREFIX.length()), v);
          }
        });
    ConfigDef def = new ConfigDef();
    SslConfigs.addClientSslSupport(def);
    Map<String, Object> parsed = new HashMap<>(def.parse(ssl));
    // A server does not verify its clients' host names.
    parsed.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
    return parsed;
  }
}
