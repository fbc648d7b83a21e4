package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.agent.PluginConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Authenticates the records of the stop-state topic: every record the plugin writes carries a
 * header {@value #HEADER} holding an HMAC-SHA256, keyed by a secret all destination brokers share,
 * over the state topic's name, the state partition, the record key and the value (a tombstone is
 * marked as such, so that a tombstone is authenticated too and cannot be turned into a record or
 * back).
 *
 * <p>Why: any client may produce to the state topic; a forged {@code STOPPED} record at a huge
 * leader epoch would otherwise be adopted by every broker and make a mirror writable with no
 * barrier. The broker refuses client appends whose records do not all verify (see {@code
 * StateTopicGuard}), and the reader ignores, counts and reports any record that does not verify.
 *
 * <p>What this does not stop: a record copied byte for byte from the same partition of the same
 * topic (a replay) verifies. Replays cannot advance a stop: the table fences by leader epoch and a
 * step never goes back, and the plugin's own writes are never above the newest epoch.
 *
 * <p>Immutable and thread-safe (a {@link Mac} per call).
 */
public final class StateRecordAuth {

  /** The header that carries the MAC. */
  public static final String HEADER = "cluster-mirror-mac";

  private static final String ALGORITHM = "HmacSHA256";
  private static final byte[] DOMAIN =
      "cluster-mirror stop-state record v1".getBytes(StandardCharsets.UTF_8);

  private final SecretKeySpec key;

  private StateRecordAuth(byte[] key) {
    this.key = new SecretKeySpec(key.clone(), ALGORITHM);
  }

  /** An authenticator for {@code key} (at least 16 bytes). */
  public static StateRecordAuth withKey(byte[] key) {
    if (key == null || key.length < 16) {
      throw new IllegalArgumentException("the stop-state MAC key must have at least 16 bytes");
    }
    return new StateRecordAuth(key);
  }

  /** The MAC of one record of {@code stateTopic}'s partition {@code partition}. */
  public byte[] mac(String stateTopic, int partition, byte[] recordKey, byte[] value) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update(DOMAIN);
      byte[] topic = stateTopic.getBytes(StandardCharsets.UTF_8);
      mac.update(ByteBuffer.allocate(8).putInt(topic.length).putInt(partition).array());
      mac.update(topic);
      update(mac, recordKey);
      update(mac, value);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  private static void update(Mac mac, byte[] bytes) {
    // -1 marks null (a tombstone value), so that null and empty never share a MAC.
    mac.update(ByteBuffer.allocate(4).putInt(bytes == null ? -1 : bytes.length).array());
    if (bytes != null) {
      mac.update(bytes);
    }
  }

  /**
   * Why the record does not verify, or empty when it does. The reason names the problem, never the
   * key or the expected MAC.
   */
  public Optional<String> check(
      String stateTopic, int partition, byte[] recordKey, byte[] value, byte[] presentedMac) {
    if (presentedMac == null) {
      return Optional.of("no " + HEADER + " header");
    }
    if (!MessageDigest.isEqual(mac(stateTopic, partition, recordKey, value), presentedMac)) {
      return Optional.of(
          HEADER + " header does not match (written by something without the state secret)");
    }
    return Optional.empty();
  }

  /**
   * Derives the MAC key from another secret (the control secret), for one purpose only; the same
   * derivation as {@link PluginConfig#deriveStateRecordKey}, which owns it.
   */
  public static byte[] deriveKey(String secret) {
    return PluginConfig.deriveStateRecordKey(secret);
  }

  private static volatile StateRecordAuth configured;
  private static volatile String configuredTopic;
  private static volatile String unavailableReason = "the plugin is not configured";

  /**
   * Sets this broker's authenticator and state topic (at agent start); {@code auth} empty when no
   * key is configured, with the reason: then no record verifies and the plugin writes none.
   */
  public static void configure(String stateTopic, Optional<StateRecordAuth> auth, String reason) {
    configuredTopic = stateTopic;
    configured = auth.orElse(null);
    unavailableReason = reason;
  }

  /** This broker's authenticator, empty when none is configured. */
  public static Optional<StateRecordAuth> configured() {
    return Optional.ofNullable(configured);
  }

  /** The state topic this broker guards, null before {@link #configure}. */
  public static String configuredTopic() {
    return configuredTopic;
  }

  /** Why there is no authenticator. */
  public static String unavailableReason() {
    return unavailableReason;
  }
}
