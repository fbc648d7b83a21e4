package dev.kafkamirror.broker.core.stop.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeadershipInFlightTest {

  @Test
  void aLeadershipInTheImageThatTheReplicaHasNotAppliedIsAwaited() {
    // Given the image names broker 2 leader in epoch 6
    // Then broker 2 awaits it while its replica is missing, a follower, or leads in epoch 5
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, false, false, 0)).isTrue();
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, true, false, 5)).isTrue();
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, true, true, 5)).isTrue();
  }

  @Test
  void anAppliedLeadershipOrOneOfAnotherBrokerIsNotAwaited() {
    // Given a replica leading in the image's epoch, Then nothing is awaited
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, true, true, 6)).isFalse();
    // Given an image that names another broker or no leader, Then nothing is awaited here
    assertThat(LeadershipInFlight.awaiting(2, 3, 6, true, false, 5)).isFalse();
    assertThat(LeadershipInFlight.awaiting(2, -1, 6, true, false, 5)).isFalse();
  }
}
