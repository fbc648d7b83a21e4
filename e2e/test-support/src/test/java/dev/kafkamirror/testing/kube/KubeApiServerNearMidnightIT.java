package dev.kafkamirror.testing.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/**
 * A start of the real etcd and kube-apiserver in the minutes before local midnight.
 *
 * <p>kube-api-test 7.5.2 bounds its start-up polls with {@code LocalTime}: a poll that begins less
 * than its timeout before midnight computes a deadline after the wrap, early in the day, and gives
 * up at its first unanswered check ("etcd did not start properly"). A CI run that crossed midnight
 * lost every operator IT to it. This test moves the JVM's default time zone so that the local clock
 * reads 23:59, which is the only way to put the real library in that window on demand.
 */
class KubeApiServerNearMidnightIT {

  @Test
  void aStartBegunAMinuteBeforeMidnightStillBringsUpTheApiServer() throws Exception {
    TimeZone original = TimeZone.getDefault();
    try {
      // Given a local clock that reads 23:59 and at least 10 s before midnight
      if (LocalTime.now(ZoneOffset.UTC).getSecond() > 50) {
        Thread.sleep(10_000);
      }
      TimeZone.setDefault(zoneWhereItIsNow(23, 59));
      LocalTime startedAt = LocalTime.now();
      assertThat(startedAt.getHour()).isEqualTo(23);
      assertThat(startedAt.getMinute()).isEqualTo(59);

      // When the harness starts etcd and kube-apiserver
      try (KubeApiServerHarness apiServer = KubeApiServerHarness.start();
          KubernetesClient client = apiServer.newClient()) {
        // Then the API server answers, whichever side of midnight it became ready on
        assertThat(client.namespaces().withName("default").get()).isNotNull();
      }
    } finally {
      TimeZone.setDefault(original);
    }
  }

  /**
   * A fixed-offset zone, in whole minutes, in which the local time is now {@code hour:minute} (and
   * the seconds of UTC). Offsets from -18 to +18 hours reach every time of day.
   */
  private static TimeZone zoneWhereItIsNow(int hour, int minute) {
    LocalTime utc = LocalTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
    int offsetMinutes = (hour * 60 + minute) - (utc.getHour() * 60 + utc.getMinute());
    if (offsetMinutes > 12 * 60) {
      offsetMinutes -= 24 * 60;
    } else if (offsetMinutes < -12 * 60) {
      offsetMinutes += 24 * 60;
    }
    return TimeZone.getTimeZone(ZoneOffset.ofTotalSeconds(offsetMinutes * 60));
  }
}
