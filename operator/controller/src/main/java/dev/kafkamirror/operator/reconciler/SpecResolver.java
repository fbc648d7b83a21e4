package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import dev.kafkamirror.operator.api.v1alpha1.SaslUser;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.api.v1alpha1.TlsClientCertificate;
import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.core.TopicSelector;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the Secrets a ClusterMirror references and turns its spec into client settings. What it
 * resolves is logged at debug without a secret value ({@link ResolvedMirror#toString}).
 */
public final class SpecResolver {

  private static final Logger LOG = LoggerFactory.getLogger(SpecResolver.class);

  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");

  /** Where Secrets are read: the API server, or a map in a unit test. */
  @FunctionalInterface
  public interface SecretSource {
    /** The Secret {@code namespace/name}, or null when it does not exist. */
    Secret get(String namespace, String name);
  }

  private final SecretSource secrets;

  /** Reads Secrets from the API server. */
  public SpecResolver(KubernetesClient client) {
    this((ns, name) -> client.secrets().inNamespace(ns).withName(name).get());
  }

  public SpecResolver(SecretSource secrets) {
    this.secrets = secrets;
  }

  /**
   * @throws InvalidSpecException naming the field, Secret and key when something cannot be resolved
   */
  public ResolvedMirror resolve(ClusterMirror cr) throws InvalidSpecException {
    ClusterMirrorSpec spec = cr.getSpec();
    String ns = cr.getMetadata().getNamespace();
    String mirror = cr.getMetadata().getName();
    if (spec == null
        || spec.getSource() == null
        || spec.getDestination() == null
        || spec.getTopics() == null) {
      throw new InvalidSpecException(
          "ClusterMirror " + ns + "/" + cr.getMetadata().getName() + " has no complete spec");
    }
    TopicSelector topics;
    try {
      topics =
          TopicSelector.of(
              spec.getTopics().getNames(),
              spec.getTopics().getInclude(),
              spec.getTopics().getExclude());
    } catch (IllegalArgumentException e) {
      throw new InvalidSpecException(e.getMessage());
    }
    String addresses =
        addressProblem(
            spec.getSource().getBootstrapServers(), spec.getDestination().getBootstrapServers());
    if (addresses != null) {
      throw new InvalidSpecException(addresses);
    }
    String topicNames = topicProblem(spec.getTopics().getNames());
    if (topicNames != null) {
      throw new InvalidSpecException(topicNames);
    }
    ControlSettings control =
        control(ns, mirror, spec.getDestination().getControl(), "spec.destination.control");
    Properties destination = new Properties();
    destination.put("bootstrap.servers", spec.getDestination().getBootstrapServers());
    destination.putAll(
        securityProperties(
            ns, mirror, spec.getDestination().getSecurity(), "spec.destination.security"));
    Map<String, String> sourceSecurity =
        securityProperties(ns, mirror, spec.getSource().getSecurity(), "spec.source.security");
    Properties source = new Properties();
    source.put("bootstrap.servers", spec.getSource().getBootstrapServers());
    source.putAll(sourceSecurity);
    ResolvedMirror resolved =
        new ResolvedMirror(
            mirrorName(cr.getMetadata().getName()),
            spec.getSource().getBootstrapServers(),
            spec.getSource().getClusterId(),
            topics,
            control.secret(),
            control.trustedCertificates(),
            control.clientCertificate(),
            control.port(),
            control.overrides(),
            destination,
            source,
            Map.copyOf(sourceSecurity));
    LOG.debug("clusterMirror={}/{} resolved: {}", ns, mirror, resolved);
    return resolved;
  }

  /**
   * For a failback (spec.initialSync TruncateAndRestore): the source's plugin control endpoints
   * (spec.source.control), as a mirror whose "destination" is the source, so that the source's
   * partitions are described the way a destination's are.
   *
   * @throws InvalidSpecException when spec.source.control is missing or cannot be resolved
   */
  public ResolvedMirror resolveSourceControl(ClusterMirror cr, ResolvedMirror mirror)
      throws InvalidSpecException {
    String ns = cr.getMetadata().getNamespace();
    String name = cr.getMetadata().getName();
    var endpoint = cr.getSpec().getSource().getControl();
    if (endpoint == null) {
      throw new InvalidSpecException(
          "spec.initialSync TruncateAndRestore of ClusterMirror "
              + ns
              + "/"
              + name
              + " requires spec.source.control: the source's recorded stop (last mirrored offset and"
              + " source epoch) is read from its plugin's control endpoint");
    }
    ControlSettings control = control(ns, name, endpoint, "spec.source.control");
    return new ResolvedMirror(
        mirror.mirrorName(),
        mirror.sourceBootstrapServers(),
        mirror.sourceClusterId(),
        mirror.topics(),
        control.secret(),
        control.trustedCertificates(),
        control.clientCertificate(),
        control.port(),
        control.overrides(),
        mirror.sourceProperties(),
        mirror.sourceProperties(),
        mirror.sourceClientSecurity());
  }

  /** A control endpoint's settings with its Secrets read; its string never shows the secret. */
  private record ControlSettings(
      String secret,
      String trustedCertificates,
      ControlClient.ClientCertificate clientCertificate,
      int port,
      Map<Integer, String> overrides) {

    @Override
    public String toString() {
      return "ControlSettings[tls="
          + (trustedCertificates != null)
          + ", clientCertificate="
          + clientCertificate
          + ", port="
          + port
          + ", overrides="
          + overrides
          + "]";
    }
  }

  private ControlSettings control(
      String ns,
      String mirror,
      dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint control,
      String prefix)
      throws InvalidSpecException {
    String secret = readSecret(ns, mirror, control.getSecretRef(), prefix + ".secretRef").trim();
    String controlCa = null;
    if (control.getTlsTrustedCertificate() != null) {
      String field = prefix + ".tlsTrustedCertificate";
      controlCa = readSecret(ns, mirror, control.getTlsTrustedCertificate(), field);
      try {
        ControlClient.sslContext(controlCa);
      } catch (IllegalArgumentException e) {
        throw new InvalidSpecException(
            secretKey(
                    field,
                    ns,
                    control.getTlsTrustedCertificate().getName(),
                    control.getTlsTrustedCertificate().getKey())
                + " holds no usable PEM certificate: "
                + e.getMessage());
      }
    }
    ControlClient.ClientCertificate clientCertificate = null;
    if (control.getTlsClientCertificateSecret() != null) {
      String field = prefix + ".tlsClientCertificateSecret";
      if (controlCa == null) {
        throw new InvalidSpecException(
            field + " requires " + prefix + ".tlsTrustedCertificate (mutual TLS needs TLS)");
      }
      String name = control.getTlsClientCertificateSecret();
      clientCertificate =
          clientCertificate(
              field,
              ns,
              name,
              TLS_CRT,
              TLS_KEY,
              readSecret(ns, mirror, keyRef(name, TLS_CRT), field),
              readSecret(ns, mirror, keyRef(name, TLS_KEY), field));
    }
    Map<Integer, String> overrides = new HashMap<>();
    if (control.getBrokerEndpoints() != null) {
      for (BrokerControlEndpoint e : control.getBrokerEndpoints()) {
        overrides.put(e.getBrokerId(), e.getAddress());
      }
    }
    return new ControlSettings(
        secret, controlCa, clientCertificate, control.getPort(), Map.copyOf(overrides));
  }

  /** The key of the client certificate Secret holding the PEM certificate chain, leaf first. */
  public static final String TLS_CRT = "tls.crt";

  /** The key of the client certificate Secret holding the PEM PKCS#8 private key. */
  public static final String TLS_KEY = "tls.key";

  private static SecretKeyRef keyRef(String name, String key) {
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName(name);
    ref.setKey(key);
    return ref;
  }

  /**
   * The client certificate of Secret {@code ns/name}, checked: a usable chain and a private key
   * that belongs to its leaf.
   *
   * @throws InvalidSpecException naming the Secret and the key that is wrong; never the PEM text
   */
  static ControlClient.ClientCertificate clientCertificate(
      String ns, String name, String chainPem, String keyPem) throws InvalidSpecException {
    return clientCertificate(
        "spec.destination.control.tlsClientCertificateSecret",
        ns,
        name,
        TLS_CRT,
        TLS_KEY,
        chainPem,
        keyPem);
  }

  /**
   * The client certificate read from keys {@code chainKey} and {@code keyKey} of Secret {@code
   * ns/name} for {@code field}, checked: a usable chain and a private key that belongs to its leaf.
   *
   * @throws InvalidSpecException naming the field, the Secret and the key that is wrong; never the
   *     PEM text
   */
  static ControlClient.ClientCertificate clientCertificate(
      String field,
      String ns,
      String name,
      String chainKey,
      String keyKey,
      String chainPem,
      String keyPem)
      throws InvalidSpecException {
    ControlClient.ClientCertificate certificate =
        new ControlClient.ClientCertificate(chainPem, keyPem);
    try {
      ControlClient.keyManagers(certificate);
    } catch (ControlClient.InvalidClientCertificateException e) {
      String key =
          e.part() == ControlClient.InvalidClientCertificateException.Part.CERTIFICATE_CHAIN
              ? chainKey
              : keyKey;
      throw new InvalidSpecException(
          secretKey(field, ns, name, key)
              + " is not usable: "
              + e.getMessage()
              + "; put the PEM certificate chain (leaf first) under "
              + chainKey
              + " and its unencrypted PKCS#8 PEM private key (BEGIN PRIVATE KEY) under "
              + keyKey);
    }
    return certificate;
  }

  /** The resource name when it is a DNS label (the plugin's rule), else a stable derived label. */
  static String mirrorName(String resourceName) {
    if (DNS_LABEL.matcher(resourceName).matches()) {
      return resourceName;
    }
    String hash = Integer.toHexString(resourceName.hashCode());
    String base = resourceName.replaceAll("[^a-z0-9-]", "-");
    base = base.substring(0, Math.min(base.length(), 50)).replaceAll("^-+|-+$", "");
    return (base.isEmpty() ? "cm" : base) + "-" + hash;
  }

  private Map<String, String> securityProperties(
      String ns, String mirror, ClientSecurity security, String field) throws InvalidSpecException {
    Map<String, String> props = new LinkedHashMap<>();
    if (security == null) {
      return props;
    }
    boolean tls = Boolean.TRUE.equals(security.getTls());
    boolean sasl = security.getSaslMechanism() != null;
    // The admission rules refuse these too; an object written before them is refused here.
    if (security.getSaslCredentials() != null && security.getSaslUser() != null) {
      throw new InvalidSpecException(
          field
              + ".saslCredentials and "
              + field
              + ".saslUser are mutually exclusive: keep one (saslUser reads the username and the"
              + " password from separate keys)");
    }
    if (security.getSaslUser() != null && !sasl) {
      throw new InvalidSpecException(
          field
              + ".saslUser requires "
              + field
              + ".saslMechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)");
    }
    if (security.getTlsClientCertificate() != null && !tls) {
      throw new InvalidSpecException(
          field + ".tlsClientCertificate requires " + field + ".tls: true (mutual TLS needs TLS)");
    }
    props.put(
        "security.protocol",
        tls ? (sasl ? "SASL_SSL" : "SSL") : (sasl ? "SASL_PLAINTEXT" : "PLAINTEXT"));
    if (security.getTlsTrustedCertificate() != null) {
      props.put("ssl.truststore.type", "PEM");
      props.put(
          "ssl.truststore.certificates",
          readSecret(
              ns, mirror, security.getTlsTrustedCertificate(), field + ".tlsTrustedCertificate"));
    }
    if (security.getTlsClientCertificate() != null) {
      TlsClientCertificate certificate = security.getTlsClientCertificate();
      String certificateField = field + ".tlsClientCertificate";
      String name = certificate.getSecretName();
      String chain =
          readSecret(ns, mirror, keyRef(name, certificate.getCertificateKey()), certificateField);
      String key = readSecret(ns, mirror, keyRef(name, certificate.getKeyKey()), certificateField);
      clientCertificate(
          certificateField,
          ns,
          name,
          certificate.getCertificateKey(),
          certificate.getKeyKey(),
          chain,
          key);
      props.put("ssl.keystore.type", "PEM");
      props.put("ssl.keystore.certificate.chain", chain);
      props.put("ssl.keystore.key", key);
    }
    if (sasl) {
      String user;
      String password;
      if (security.getSaslUser() != null) {
        SaslUser saslUser = security.getSaslUser();
        String userField = field + ".saslUser";
        if (saslUser.getUsername() != null && saslUser.getUsernameSecretKeyRef() != null) {
          throw new InvalidSpecException(
              userField
                  + ".username and "
                  + userField
                  + ".usernameSecretKeyRef are mutually exclusive: keep one");
        }
        if (saslUser.getUsername() != null) {
          user = saslUser.getUsername().trim();
        } else {
          SecretKeyRef ref = saslUser.getUsernameSecretKeyRef();
          user =
              nonEmpty(
                  readSecret(ns, mirror, ref, userField + ".usernameSecretKeyRef").trim(),
                  userField + ".usernameSecretKeyRef",
                  ns,
                  ref,
                  "the username");
        }
        if (user.isEmpty()) {
          throw new InvalidSpecException(
              userField + " has no username: set username or usernameSecretKeyRef");
        }
        SecretKeyRef passwordRef = saslUser.getPasswordSecretKeyRef();
        password =
            nonEmpty(
                withoutTrailingLineBreak(
                    readSecret(ns, mirror, passwordRef, userField + ".passwordSecretKeyRef")),
                userField + ".passwordSecretKeyRef",
                ns,
                passwordRef,
                "the password");
      } else {
        String credentials =
            readSecret(ns, mirror, security.getSaslCredentials(), field + ".saslCredentials")
                .trim();
        int colon = credentials.indexOf(':');
        if (colon <= 0) {
          throw new InvalidSpecException(
              secretKey(
                      field + ".saslCredentials",
                      ns,
                      security.getSaslCredentials().getName(),
                      security.getSaslCredentials().getKey())
                  + " must hold 'username:password'");
        }
        user = credentials.substring(0, colon);
        password = credentials.substring(colon + 1);
      }
      SaslMechanism mechanism = security.getSaslMechanism();
      String module =
          mechanism == SaslMechanism.PLAIN
              ? "org.apache.kafka.common.security.plain.PlainLoginModule"
              : "org.apache.kafka.common.security.scram.ScramLoginModule";
      props.put(
          "sasl.mechanism",
          switch (mechanism) {
            case PLAIN -> "PLAIN";
            case SCRAM_SHA_256 -> "SCRAM-SHA-256";
            case SCRAM_SHA_512 -> "SCRAM-SHA-512";
          });
      props.put(
          "sasl.jaas.config",
          module
              + " required username=\""
              + escape(user)
              + "\" password=\""
              + escape(password)
              + "\";");
    }
    return props;
  }

  /** {@code value} without one trailing line break (a Secret made from a file often has one). */
  private static String withoutTrailingLineBreak(String value) {
    if (value.endsWith("\r\n")) {
      return value.substring(0, value.length() - 2);
    }
    if (value.endsWith("\n")) {
      return value.substring(0, value.length() - 1);
    }
    return value;
  }

  private static String nonEmpty(
      String value, String field, String ns, SecretKeyRef ref, String what)
      throws InvalidSpecException {
    if (value.isEmpty()) {
      throw new InvalidSpecException(
          secretKey(field, ns, ref.getName(), ref.getKey()) + " is empty; put " + what + " there");
    }
    return value;
  }

  /**
   * How an InvalidSpec message names key {@code key} of Secret {@code ns/name} for {@code field}.
   */
  private static String secretKey(String field, String ns, String name, String key) {
    return field + ": Secret " + ns + "/" + name + " key " + key;
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private String readSecret(String ns, String mirror, SecretKeyRef ref, String field)
      throws InvalidSpecException {
    if (ref == null) {
      throw new InvalidSpecException(field + " is required");
    }
    Secret secret = secrets.get(ns, ref.getName());
    if (secret == null) {
      throw new InvalidSpecException(
          field + ": Secret " + ns + "/" + ref.getName() + " does not exist");
    }
    if (!SecretOptIn.allows(secret, mirror)) {
      // Only names: the Secret's value never leaves the operator.
      throw new InvalidSpecException(
          field
              + ": Secret "
              + ns
              + "/"
              + ref.getName()
              + " is not opted in for ClusterMirror "
              + mirror
              + "; a Secret is read only when its annotation "
              + SecretOptIn.ANNOTATION
              + " lists this ClusterMirror's name (or *)");
    }
    if (secret.getData() != null && secret.getData().containsKey(ref.getKey())) {
      return new String(
          Base64.getDecoder().decode(secret.getData().get(ref.getKey())), StandardCharsets.UTF_8);
    }
    if (secret.getStringData() != null && secret.getStringData().containsKey(ref.getKey())) {
      return secret.getStringData().get(ref.getKey());
    }
    throw new InvalidSpecException(
        field + ": Secret " + ns + "/" + ref.getName() + " has no key " + ref.getKey());
  }

  /** A spec that cannot be acted on; the message names the field and the object. */
  private static final java.util.regex.Pattern LEGAL_TOPIC =
      java.util.regex.Pattern.compile(dev.kafkamirror.contract.ControlLimits.TOPIC_PATTERN);

  /**
   * Why the source and destination bootstrap lists describe the same cluster (an address in both,
   * in whatever order or case), or null.
   */
  static String addressProblem(String source, String destination) {
    if (source == null || destination == null) {
      return null;
    }
    java.util.Set<String> sourceAddresses = new java.util.TreeSet<>();
    for (String a : source.split(",")) {
      sourceAddresses.add(a.trim().toLowerCase(java.util.Locale.ROOT));
    }
    for (String a : destination.split(",")) {
      String address = a.trim().toLowerCase(java.util.Locale.ROOT);
      if (sourceAddresses.contains(address)) {
        return "spec.source.bootstrapServers and spec.destination.bootstrapServers both list "
            + address
            + ": a cluster cannot mirror itself";
      }
    }
    return null;
  }

  /**
   * The first name of spec.topics.names that is not a legal Kafka topic name, described; or null.
   */
  static String topicProblem(List<String> names) {
    if (names == null) {
      return null;
    }
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      if (n == null || !LEGAL_TOPIC.matcher(n).matches() || n.equals(".") || n.equals("..")) {
        String shown =
            n == null
                ? "null"
                : n.length() > 60 ? n.substring(0, 60) + "... (" + n.length() + " characters)" : n;
        return "spec.topics.names["
            + i
            + "] '"
            + shown
            + "' is not a legal Kafka topic name (1 to 249 of [a-zA-Z0-9._-], not '.' or '..')";
      }
    }
    return null;
  }

  public static final class InvalidSpecException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidSpecException(String message) {
      super(message);
    }
  }
}
