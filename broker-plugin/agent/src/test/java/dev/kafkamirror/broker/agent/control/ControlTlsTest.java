package dev.kafkamirror.broker.agent.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import javax.net.ServerSocketFactory;
import org.junit.jupiter.api.Test;

class ControlTlsTest {

  @Test
  void withoutTlsAndWithoutTheInsecureSettingTheEndpointDoesNotStart() {
    assertThatThrownBy(() -> ControlTls.serverSockets(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cluster.mirror.control.ssl.keystore.location")
        .hasMessageContaining(ControlTls.INSECURE_PLAINTEXT);
  }

  @Test
  void plainHttpOnlyBehindTheExplicitlyInsecureSetting() {
    assertThat(ControlTls.serverSockets(Map.of(ControlTls.INSECURE_PLAINTEXT, "true")))
        .isSameAs(ServerSocketFactory.getDefault());
    assertThatThrownBy(() -> ControlTls.serverSockets(Map.of(ControlTls.INSECURE_PLAINTEXT, "yes")))
        .hasMessageContaining("must be true or false");
  }

  @Test
  void aKeystoreAndTheInsecureSettingTogetherAreRefused() {
    assertThatThrownBy(
            () ->
                ControlTls.serverSockets(
                    Map.of(
                        ControlTls.INSECURE_PLAINTEXT,
                        "true",
                        "cluster.mirror.control.ssl.keystore.location",
                        "/nonexistent.p12")))
        .hasMessageContaining("choose one");
  }
}
