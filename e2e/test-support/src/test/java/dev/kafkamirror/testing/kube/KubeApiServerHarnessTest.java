package dev.kafkamirror.testing.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ProtocolException;
import org.junit.jupiter.api.Test;

/** Which failed starts of kube-api-test the harness tries again. */
class KubeApiServerHarnessTest {

  @Test
  void aHealthCheckThatReadItsOwnRequestBackIsRecognisedThroughTheCauses() {
    // Given the failure a CI run saw: etcd's health check answered by its own request line
    Throwable selfConnect =
        new IllegalStateException(
            "kube-api-test could not start the API server",
            new RuntimeException(
                new ProtocolException("Invalid status line: \"GET /health HTTP/1.1\"")));
    // Then it is recognised, however deep the cause
    assertThat(KubeApiServerHarness.readItsOwnRequest(selfConnect)).isTrue();
  }

  @Test
  void anyOtherStartFailureIsNotTriedAgain() {
    // Given failures that say something about etcd or the API server themselves
    Throwable otherStatusLine =
        new IllegalStateException(
            new ProtocolException("Invalid status line: \"HTTP/1.1 500 boom\""));
    Throwable died = new IllegalStateException("kube-apiserver or etcd exited during start-up");
    Throwable refused = new IllegalStateException(new java.net.ConnectException("refused"));
    // Then none of them counts as a self-connect
    assertThat(KubeApiServerHarness.readItsOwnRequest(otherStatusLine)).isFalse();
    assertThat(KubeApiServerHarness.readItsOwnRequest(died)).isFalse();
    assertThat(KubeApiServerHarness.readItsOwnRequest(refused)).isFalse();
  }
}
