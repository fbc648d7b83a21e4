package dev.kafkamirror.operator.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlHeaders;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError;
import dev.kafkamirror.contract.RequestError;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client of the broker plugin's control endpoint. Calls, bodies, field names, error codes and
 * limits are the contract's ({@link ControlCall}, {@link ControlRequest}, {@link Fields}, {@link
 * PartitionError}, {@link ControlLimits}): every call a POST with a bearer secret, batched per
 * broker (at most {@link ControlLimits#MAX_PARTITIONS} partitions per call), one result per
 * partition. A partition carries {@code sourceClusterId} exactly on the calls that require it.
 *
 * <p><b>Pacing per endpoint.</b> However many reconciles call one broker's endpoint at once, at
 * most {@link ControlLimits#CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT} calls are in flight to it (keyed
 * by its address, shared by every ClusterMirror); the others wait here, in arrival order, at most
 * as long as one call may take, and are then failed as {@link ControlResult#BUSY} without being
 * sent. A call the endpoint answers 503 {@code OVERLOADED} (it did nothing) is sent again up to
 * {@link ControlLimits#OVERLOADED_RETRIES} times after doubling pauses; then it fails naming the
 * broker and the attempts.
 *
 * <p>Thread-safe: one instance serves every reconcile.
 */
public final class ControlClient implements BrokerControl {

  /** The plugin's limit per call. */
  public static final int MAX_PARTITIONS_PER_CALL = ControlLimits.MAX_PARTITIONS;

  private final ObjectMapper mapper = new ObjectMapper();
  private final HttpClient http;
  private final long connectTimeoutMs;
  private final long stepTimeoutMs;

  /** One HTTPS client per set of trusted CA certificates (PEM). */
  private final Map<String, HttpClient> tlsClients = new ConcurrentHashMap<>();

  private final Pacing pacing;

  /** The calls in flight to each endpoint, by its address; fair, so waiting calls go in order. */
  private final Map<String, Semaphore> inFlight = new ConcurrentHashMap<>();

  /**
   * How calls to one endpoint are paced.
   *
   * @param callsInFlightPerEndpoint the most calls in flight to one endpoint
   * @param waitForTurnMs how long a call waits for its turn before it fails as {@link
   *     ControlResult#BUSY}, unsent
   * @param overloadedRetries how often a call answered OVERLOADED is sent again
   * @param firstOverloadedPauseMs the pause before the first repeat; each next one doubles
   */
  record Pacing(
      int callsInFlightPerEndpoint,
      long waitForTurnMs,
      int overloadedRetries,
      long firstOverloadedPauseMs) {

    Pacing {
      if (callsInFlightPerEndpoint < 1
          || waitForTurnMs < 0
          || overloadedRetries < 0
          || firstOverloadedPauseMs < 0) {
        throw new IllegalArgumentException("control call pacing out of range: " + this);
      }
    }

    /** The contract's pacing; a call waits for its turn as long as one call may take. */
    static Pacing of(long stepTimeoutMs) {
      return new Pacing(
          ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT,
          callTimeoutMs(stepTimeoutMs),
          ControlLimits.OVERLOADED_RETRIES,
          ControlLimits.OVERLOADED_FIRST_PAUSE_MS);
    }
  }

  /** How long the client waits for one answer: the broker's time for the call and some slack. */
  private static long callTimeoutMs(long stepTimeoutMs) {
    return stepTimeoutMs + 15_000L;
  }

  /**
   * How the control endpoints of one destination are reached.
   *
   * @param secret the bearer secret
   * @param trustedCertificatesPem the PEM CA certificates the endpoints' certificates chain to: the
   *     calls go over HTTPS and the endpoints' host names are verified; null for plain HTTP (the
   *     secret in clear text)
   * @param clientCertificate the certificate the operator presents (mutual TLS), or null; only with
   *     {@code trustedCertificatesPem}
   */
  public record Channel(
      String secret, String trustedCertificatesPem, ClientCertificate clientCertificate) {

    /** A channel without a client certificate. */
    public Channel(String secret, String trustedCertificatesPem) {
      this(secret, trustedCertificatesPem, null);
    }

    /** Whether the channel is encrypted. */
    public boolean tls() {
      return trustedCertificatesPem != null;
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
      return "Channel["
          + (tls() ? (clientCertificate != null ? "MUTUAL TLS" : "TLS") : "INSECURE PLAINTEXT")
          + "]";
    }
  }

  /**
   * The client certificate the operator presents to the control endpoints.
   *
   * @param certificateChainPem PEM certificates, leaf first
   * @param privateKeyPem the leaf's unencrypted PKCS#8 private key, PEM ({@code BEGIN PRIVATE KEY})
   */
  public record ClientCertificate(String certificateChainPem, String privateKeyPem) {

    /** Never prints the key (nor the chain). */
    @Override
    public String toString() {
      return "ClientCertificate[PEM, not shown]";
    }
  }

  /**
   * A client certificate's PEM that cannot be used. The message names which part ({@link #part()})
   * is wrong and why, never the PEM text itself.
   */
  public static final class InvalidClientCertificateException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Which PEM is wrong: the certificate chain or the private key. */
    public enum Part {
      CERTIFICATE_CHAIN,
      PRIVATE_KEY
    }

    private final Part part;

    InvalidClientCertificateException(Part part, String message) {
      super(message);
      this.part = part;
    }

    public Part part() {
      return part;
    }
  }

  /**
   * @param connectTimeoutMs how long to wait for a TCP connection to a broker's endpoint
   * @param stepTimeoutMs the {@code timeoutMs} sent with each call (how long the broker may work)
   */
  public ControlClient(long connectTimeoutMs, long stepTimeoutMs) {
    this(connectTimeoutMs, stepTimeoutMs, Pacing.of(stepTimeoutMs));
  }

  ControlClient(long connectTimeoutMs, long stepTimeoutMs, Pacing pacing) {
    this.connectTimeoutMs = connectTimeoutMs;
    this.http = builder().build();
    this.stepTimeoutMs = stepTimeoutMs;
    this.pacing = pacing;
  }

  private HttpClient.Builder builder() {
    return HttpClient.newBuilder()
        .connectTimeout(Duration.ofMillis(connectTimeoutMs))
        .version(HttpClient.Version.HTTP_1_1);
  }

  /** The client for {@code channel}: HTTPS trusting its CA certificates, or plain HTTP. */
  private HttpClient client(Channel channel) {
    if (!channel.tls()) {
      return http;
    }
    ClientCertificate identity = channel.clientCertificate();
    String cacheKey =
        identity == null
            ? channel.trustedCertificatesPem()
            : channel.trustedCertificatesPem()
                + "\0"
                + identity.certificateChainPem()
                + "\0"
                + identity.privateKeyPem();
    return tlsClients.computeIfAbsent(
        cacheKey,
        k -> builder().sslContext(sslContext(channel.trustedCertificatesPem(), identity)).build());
  }

  /**
   * An SSL context that trusts exactly the PEM certificates given and presents {@code identity}
   * (null: no client certificate).
   *
   * @throws IllegalArgumentException when the trusted text holds no certificate
   * @throws InvalidClientCertificateException when {@code identity} cannot be used
   */
  public static SSLContext sslContext(String pem, ClientCertificate identity) {
    SSLContext context = sslContext(pem);
    if (identity == null) {
      return context;
    }
    try {
      SSLContext mutual = SSLContext.getInstance("TLS");
      mutual.init(keyManagers(identity), trustManagers(pem), null);
      return mutual;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot build the TLS context: " + e.getMessage(), e);
    }
  }

  /**
   * The key managers that present {@code identity}: its chain (leaf first) with its private key.
   * Checks that the key is PKCS#8 PEM of an RSA, EC or EdDSA key and belongs to the leaf (a test
   * signature verified with the leaf's public key).
   *
   * @throws InvalidClientCertificateException naming the part that is wrong, never its text
   */
  public static KeyManager[] keyManagers(ClientCertificate identity) {
    List<Certificate> chain;
    try {
      chain =
          new ArrayList<>(
              CertificateFactory.getInstance("X.509")
                  .generateCertificates(
                      new ByteArrayInputStream(
                          identity.certificateChainPem().getBytes(StandardCharsets.US_ASCII))));
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.CERTIFICATE_CHAIN,
          "the certificate chain is not PEM X.509 certificates ("
              + e.getClass().getSimpleName()
              + ")");
    }
    if (chain.isEmpty()) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.CERTIFICATE_CHAIN,
          "the certificate chain holds no PEM certificate");
    }
    PrivateKey key = privateKey(identity.privateKeyPem(), chain.get(0).getPublicKey());
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] password = "in-memory".toCharArray();
      store.setKeyEntry("client", key, password, chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, password);
      return kmf.getKeyManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.PRIVATE_KEY,
          "the private key and certificate chain cannot be used together ("
              + e.getClass().getSimpleName()
              + ")");
    }
  }

  private static final java.util.regex.Pattern PKCS8_PEM =
      java.util.regex.Pattern.compile(
          "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  private static PrivateKey privateKey(String pem, java.security.PublicKey leafKey) {
    java.util.regex.Matcher m = PKCS8_PEM.matcher(pem);
    if (!m.find()) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.PRIVATE_KEY,
          "the private key is not an unencrypted PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----)");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(1));
    } catch (IllegalArgumentException e) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.PRIVATE_KEY,
          "the private key's PEM body is not base64");
    }
    String algorithm = leafKey.getAlgorithm();
    PrivateKey key;
    try {
      key = KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.PRIVATE_KEY,
          "the private key is not a PKCS#8 "
              + algorithm
              + " key matching the leaf certificate ("
              + e.getClass().getSimpleName()
              + ")");
    }
    if (!matches(key, leafKey)) {
      throw new InvalidClientCertificateException(
          InvalidClientCertificateException.Part.PRIVATE_KEY,
          "the private key does not belong to the first (leaf) certificate of the chain");
    }
    return key;
  }

  /** Whether a signature made with {@code key} verifies with {@code leafKey}. */
  private static boolean matches(PrivateKey key, java.security.PublicKey leafKey) {
    String signature =
        switch (leafKey.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> leafKey.getAlgorithm(); // EdDSA, Ed25519, Ed448
        };
    try {
      byte[] probe = "cluster-mirror-client-certificate-check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(signature);
      signer.initSign(key);
      signer.update(probe);
      byte[] signed = signer.sign();
      Signature verifier = Signature.getInstance(signature);
      verifier.initVerify(leafKey);
      verifier.update(probe);
      return verifier.verify(signed);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static javax.net.ssl.TrustManager[] trustManagers(String pem)
      throws GeneralSecurityException {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(
                  new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      return tmf.getTrustManagers();
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /**
   * An SSL context that trusts exactly the PEM certificates given.
   *
   * @throws IllegalArgumentException when the text holds no certificate
   */
  public static SSLContext sslContext(String pem) {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(
                  new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      if (i == 0) {
        throw new IllegalArgumentException("no PEM certificate found");
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot read the trusted certificates: " + e, e);
    }
  }

  /**
   * The contract's control call of {@code action}, or null for the actions that call nothing (NONE,
   * WAIT). The one mapping from the core's actions to the wire.
   */
  public static ControlCall callOf(Action action) {
    return switch (action) {
      case NONE, WAIT -> null;
      case START_MIRRORING -> ControlCall.START_MIRRORING;
      case PAUSE -> ControlCall.PAUSE;
      case RESUME -> ControlCall.RESUME;
      case REMOVE_FETCHERS -> ControlCall.REMOVE_FETCHERS;
      case TRUNCATE -> ControlCall.TRUNCATE;
      case PERSIST_OFFSETS -> ControlCall.PERSIST_OFFSETS;
      case WRITE_BARRIER -> ControlCall.BARRIER;
      case MAKE_WRITABLE -> ControlCall.MAKE_WRITABLE;
    };
  }

  /** Describes partitions on one broker. */
  @Override
  public List<ControlResult> describe(
      int brokerId, String address, Channel channel, List<PartitionKey> partitions) {
    return post(
        brokerId, address, channel, ControlCall.DESCRIBE, partitions, null, null, null, null);
  }

  /**
   * Sends one action for {@code partitions} to one broker.
   *
   * @param sourceClusterId sent with every partition of the calls that require it
   * @param mirrorName and {@code source}: for START_MIRRORING only
   */
  @Override
  public List<ControlResult> act(
      Action action,
      int brokerId,
      String address,
      Channel channel,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source) {
    ControlCall call = callOf(action);
    if (call == null) {
      throw new IllegalArgumentException("action " + action + " makes no control call");
    }
    return post(
        brokerId,
        address,
        channel,
        call,
        partitions,
        call.sourceClusterIdRequired() ? sourceClusterId : null,
        call.takesMirrorSource() ? mirrorName : null,
        call.takesMirrorSource() ? source : null,
        null);
  }

  @Override
  public List<ControlResult> startFailback(
      int brokerId,
      String address,
      Channel channel,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback) {
    return post(
        brokerId,
        address,
        channel,
        ControlCall.START_MIRRORING,
        partitions,
        sourceClusterId,
        mirrorName,
        source,
        failback);
  }

  private List<ControlResult> post(
      int brokerId,
      String address,
      Channel channel,
      ControlCall call,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback) {
    List<ControlResult> out = new ArrayList<>();
    for (int from = 0; from < partitions.size(); from += MAX_PARTITIONS_PER_CALL) {
      List<PartitionKey> batch =
          partitions.subList(from, Math.min(partitions.size(), from + MAX_PARTITIONS_PER_CALL));
      out.addAll(
          postBatch(
              brokerId,
              address,
              channel,
              call,
              batch,
              sourceClusterId,
              mirrorName,
              source,
              failback));
    }
    return out;
  }

  /** The body of one call, as the contract writes it. */
  ControlRequest request(
      List<PartitionKey> batch,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source) {
    return request(batch, sourceClusterId, mirrorName, source, null);
  }

  /** The body of one call; a failback start carries each partition's alignment. */
  ControlRequest request(
      List<PartitionKey> batch,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback) {
    List<ControlRequest.Partition> partitions = new ArrayList<>(batch.size());
    for (PartitionKey key : batch) {
      ControlRequest.AlignTo alignTo = null;
      if (failback != null) {
        alignTo = failback.alignTo().get(key);
        if (alignTo == null) {
          throw new IllegalArgumentException(
              "failback start of " + key + " without an alignment: never sent unaligned");
        }
      }
      partitions.add(
          new ControlRequest.Partition(key.topic(), key.partition(), sourceClusterId, alignTo));
    }
    return failback == null
        ? new ControlRequest(partitions, stepTimeoutMs, mirrorName, source)
        : new ControlRequest(
            partitions,
            stepTimeoutMs,
            mirrorName,
            source,
            dev.kafkamirror.contract.InitialSync.TRUNCATE_AND_RESTORE,
            failback.dryRun());
  }

  private List<ControlResult> postBatch(
      int brokerId,
      String address,
      Channel channel,
      ControlCall call,
      List<PartitionKey> batch,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback) {
    String path = call.path();
    String body = request(batch, sourceClusterId, mirrorName, source, failback).toJson();
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create((channel.tls() ? "https://" : "http://") + address + path))
            .timeout(Duration.ofMillis(callTimeoutMs(stepTimeoutMs)))
            .header(ControlHeaders.CONTENT_TYPE, ControlHeaders.JSON)
            .header(ControlHeaders.AUTHORIZATION, ControlHeaders.BEARER_PREFIX + channel.secret())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> response;
    int attempts = 0;
    try {
      while (true) {
        attempts++;
        response = sendInTurn(address, channel, request);
        if (response == null) {
          return allFailed(
              batch,
              brokerId,
              ControlResult.BUSY,
              "the operator already has "
                  + pacing.callsInFlightPerEndpoint()
                  + " calls in flight to the control endpoint of broker "
                  + brokerId
                  + " at "
                  + address
                  + " and none ended within "
                  + pacing.waitForTurnMs()
                  + " ms, so "
                  + path
                  + " was not sent; a later reconcile repeats it. If this persists, the"
                  + " broker is slow to answer: look at its log");
        }
        if (!isOverloaded(response) || attempts > pacing.overloadedRetries()) {
          break;
        }
        Thread.sleep(pacing.firstOverloadedPauseMs() << (attempts - 1));
      }
    } catch (IOException e) {
      return allFailed(
          batch,
          brokerId,
          ControlResult.UNREACHABLE,
          "control endpoint of broker " + brokerId + " at " + address + " unreachable: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return allFailed(batch, brokerId, ControlResult.UNREACHABLE, "interrupted");
    }
    if (response.statusCode() != 200) {
      // OVERLOADED is the one refusal that promises nothing was done; it was repeated.
      String what =
          isOverloaded(response)
              ? " "
                  + RequestError.Code.OVERLOADED
                  + " "
                  + attempts
                  + " times (nothing was done): another client keeps its control endpoint busy;"
                  + " a later reconcile repeats the call. Last answer: "
              : ": ";
      return allFailed(
          batch,
          brokerId,
          ControlResult.HTTP_ERROR,
          "broker "
              + brokerId
              + " at "
              + address
              + " answered "
              + path
              + " with HTTP "
              + response.statusCode()
              + what
              + abbreviate(response.body()));
    }
    JsonNode root;
    try {
      root = mapper.readTree(response.body());
    } catch (IOException e) {
      return allFailed(
          batch,
          brokerId,
          ControlResult.HTTP_ERROR,
          "broker " + brokerId + " answered " + path + " with invalid JSON: " + e);
    }
    Map<PartitionKey, JsonNode> byKey = new HashMap<>();
    for (JsonNode r : root.path(Fields.RESULTS)) {
      byKey.put(
          new PartitionKey(r.path(Fields.TOPIC).asText(), r.path(Fields.PARTITION).asInt()), r);
    }
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : batch) {
      JsonNode r = byKey.get(key);
      if (r == null) {
        out.add(
            new ControlResult(
                key,
                brokerId,
                null,
                ControlResult.MISSING_RESULT,
                "broker " + brokerId + " returned no result for " + key + " on " + path));
      } else if (r.has(Fields.ERROR)) {
        JsonNode error = r.get(Fields.ERROR);
        String internal = PartitionError.Code.INTERNAL.name();
        String code = error.isObject() ? error.path(Fields.CODE).asText(internal) : internal;
        String message = error.isObject() ? error.path(Fields.MESSAGE).asText() : error.asText();
        out.add(
            new ControlResult(
                key,
                brokerId,
                r,
                code,
                path + " on broker " + brokerId + " for " + key + ": " + message));
      } else {
        out.add(new ControlResult(key, brokerId, r, null, null));
      }
    }
    return out;
  }

  /**
   * Sends {@code request} once it is its turn at {@code address}: null when no turn came within the
   * pacing's wait (nothing sent).
   */
  private HttpResponse<String> sendInTurn(String address, Channel channel, HttpRequest request)
      throws IOException, InterruptedException {
    Semaphore turns =
        inFlight.computeIfAbsent(
            address, a -> new Semaphore(pacing.callsInFlightPerEndpoint(), true));
    if (!turns.tryAcquire(pacing.waitForTurnMs(), TimeUnit.MILLISECONDS)) {
      return null;
    }
    try {
      return client(channel).send(request, HttpResponse.BodyHandlers.ofString());
    } finally {
      turns.release();
    }
  }

  private static boolean isOverloaded(HttpResponse<String> response) {
    return response.statusCode() == RequestError.Code.OVERLOADED.httpStatus();
  }

  private static List<ControlResult> allFailed(
      List<PartitionKey> batch, int brokerId, String code, String message) {
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : batch) {
      out.add(new ControlResult(key, brokerId, null, code, message));
    }
    return out;
  }

  private static String abbreviate(String text) {
    return text == null || text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }
}
