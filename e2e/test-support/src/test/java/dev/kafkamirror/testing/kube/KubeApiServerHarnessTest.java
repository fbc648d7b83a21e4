package dev.kafkamirror.testing.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubeapitest.KubeAPITestException;
import java.net.ProtocolException;
import java.time.Duration;
import java.time.LocalTime;
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

  @Test
  void aQuickGiveUpInTheLastTwoMinutesOfTheDayIsTheWrappedDeadline() {
    // Given the failure a CI run saw when its shared API server started at 23:58:40
    Throwable wrapped =
        new IllegalStateException(
            "kube-api-test could not start the API server",
            new KubeAPITestException("etcd did not start properly"));
    // Then it is recognised, and the next start waits until just after midnight
    assertThat(
            KubeApiServerHarness.gaveUpOnAWrappedDeadline(
                wrapped, LocalTime.of(23, 58, 40), Duration.ofMillis(900)))
        .isTrue();
    assertThat(KubeApiServerHarness.untilPastMidnight(LocalTime.of(23, 58, 40)))
        .isBetween(Duration.ofSeconds(81), Duration.ofSeconds(81).plusMillis(1));
  }

  @Test
  void aGiveUpThatRanItsTimeoutOrCameEarlierInTheDayIsARealFailure() {
    // Given the same message from a poll that waited its whole timeout, or failed at noon
    Throwable gaveUp =
        new IllegalStateException(
            new KubeAPITestException("Kube API Server did not start properly"));
    // Then neither is tried again
    assertThat(
            KubeApiServerHarness.gaveUpOnAWrappedDeadline(
                gaveUp, LocalTime.of(23, 59, 30), Duration.ofSeconds(120)))
        .isFalse();
    assertThat(
            KubeApiServerHarness.gaveUpOnAWrappedDeadline(
                gaveUp, LocalTime.of(12, 0), Duration.ofMillis(900)))
        .isFalse();
    // And another failure near midnight is not either
    assertThat(
            KubeApiServerHarness.gaveUpOnAWrappedDeadline(
                new IllegalStateException("kube-apiserver or etcd exited during start-up"),
                LocalTime.of(23, 59, 30),
                Duration.ofMillis(900)))
        .isFalse();
  }
}
