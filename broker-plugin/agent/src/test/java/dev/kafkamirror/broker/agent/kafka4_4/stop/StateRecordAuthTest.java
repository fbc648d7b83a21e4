package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StateRecordAuthTest {

  private static final StateRecordAuth AUTH =
      StateRecordAuth.withKey(StateRecordAuth.deriveKey("test-secret-0123456789abcdef"));
  private static final byte[] KEY = "{\"v\":0}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VALUE = "{\"step\":\"STOPPED\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void aRecordSignedWithTheSharedKeyVerifies() {
    // Given a record signed by a broker with the shared key
    byte[] mac = AUTH.mac("__cluster_mirror_state", 3, KEY, VALUE);
    // Then another broker with the same secret verifies it
    StateRecordAuth other =
        StateRecordAuth.withKey(StateRecordAuth.deriveKey("test-secret-0123456789abcdef"));
    assertThat(other.check("__cluster_mirror_state", 3, KEY, VALUE, mac)).isEmpty();
  }

  @Test
  void anythingChangedOrMissingDoesNotVerify() {
    byte[] mac = AUTH.mac("__cluster_mirror_state", 3, KEY, VALUE);
    // no header at all
    assertThat(AUTH.check("__cluster_mirror_state", 3, KEY, VALUE, null))
        .hasValueSatisfying(r -> assertThat(r).contains("no " + StateRecordAuth.HEADER));
    // another value, key, partition or topic under the same MAC
    assertThat(AUTH.check("__cluster_mirror_state", 3, KEY, KEY, mac)).isPresent();
    assertThat(AUTH.check("__cluster_mirror_state", 3, VALUE, VALUE, mac)).isPresent();
    assertThat(AUTH.check("__cluster_mirror_state", 4, KEY, VALUE, mac)).isPresent();
    assertThat(AUTH.check("other_state", 3, KEY, VALUE, mac)).isPresent();
    // a record turned into a tombstone, and a tombstone turned into an empty value
    assertThat(AUTH.check("__cluster_mirror_state", 3, KEY, null, mac)).isPresent();
    byte[] tombstone = AUTH.mac("__cluster_mirror_state", 3, KEY, null);
    assertThat(AUTH.check("__cluster_mirror_state", 3, KEY, null, tombstone)).isEmpty();
    assertThat(AUTH.check("__cluster_mirror_state", 3, KEY, new byte[0], tombstone)).isPresent();
    // a key derived from another secret
    StateRecordAuth stranger =
        StateRecordAuth.withKey(StateRecordAuth.deriveKey("another-secret-0123456789"));
    assertThat(stranger.check("__cluster_mirror_state", 3, KEY, VALUE, mac))
        .hasValueSatisfying(r -> assertThat(r).contains("does not match"));
  }

  @Test
  void theReasonNeverShowsTheKeyOrTheExpectedMac() {
    byte[] expected = AUTH.mac("__cluster_mirror_state", 3, KEY, VALUE);
    String reason = AUTH.check("__cluster_mirror_state", 3, KEY, VALUE, new byte[32]).orElseThrow();
    assertThat(reason).doesNotContain("test-secret").doesNotContain(hex(expected));
  }

  @Test
  void refusesAShortKey() {
    assertThatThrownBy(() -> StateRecordAuth.withKey(new byte[8]))
        .hasMessageContaining("at least 16 bytes");
  }

  private static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) {
      out.append(String.format("%02x", b));
    }
    return out.toString();
  }
}
