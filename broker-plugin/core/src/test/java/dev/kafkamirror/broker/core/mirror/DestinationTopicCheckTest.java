package dev.kafkamirror.broker.core.mirror;

import static dev.kafkamirror.broker.core.mirror.DestinationTopicCheck.Verdict.KEEP;
import static dev.kafkamirror.broker.core.mirror.DestinationTopicCheck.Verdict.REMOVE;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DestinationTopicCheckTest {

  private static final String OLD_ID = "old-topic-id";
  private static final String NEW_ID = "new-topic-id";

  @Test
  void aRegistrationOfADeletedDestinationTopicIsRemoved() {
    // Given a registration tied to OLD_ID, and caught-up metadata without that id (deleted)
    // When the broker hosts no log of the name any more
    // Then it is removed
    assertThat(DestinationTopicCheck.decide(OLD_ID, true, false, null)).isEqualTo(REMOVE);
  }

  @Test
  void aRegistrationOfADestinationTopicDeletedAndCreatedAgainIsRemoved() {
    // Given a registration tied to OLD_ID, and the name now a topic with NEW_ID whose log this
    // broker hosts; the metadata holds no OLD_ID
    // When decided, Then it is removed
    assertThat(DestinationTopicCheck.decide(OLD_ID, true, false, NEW_ID)).isEqualTo(REMOVE);
  }

  @Test
  void aRegistrationOfALiveTopicIsKept() {
    // Given the metadata holds the registered id, hosted here or not, Then kept
    assertThat(DestinationTopicCheck.decide(OLD_ID, true, true, OLD_ID)).isEqualTo(KEEP);
    assertThat(DestinationTopicCheck.decide(OLD_ID, true, true, null)).isEqualTo(KEEP);
  }

  @Test
  void metadataNotCaughtUpYetKeepsEveryRegistration() {
    // Given a broker that starts: its metadata cache does not show the topic yet
    // When decided, Then kept, whatever else is known
    assertThat(DestinationTopicCheck.decide(OLD_ID, false, false, null)).isEqualTo(KEEP);
    assertThat(DestinationTopicCheck.decide(OLD_ID, false, false, NEW_ID)).isEqualTo(KEEP);
  }

  @Test
  void aHostedLogWithTheRegisteredIdKeepsTheRegistrationWhateverTheCacheSays() {
    // Given a cache that (wrongly) lacks the id while this broker hosts its log
    // Then kept: the topic lives
    assertThat(DestinationTopicCheck.decide(OLD_ID, true, false, OLD_ID)).isEqualTo(KEEP);
  }

  @Test
  void aRegistrationWithNoRecordedDestinationTopicIdIsKept() {
    // Given a registration that never had a source topic id pinned (never appended a record)
    // When the name is gone, or another topic's, Then kept: which topic it was made for is unknown
    assertThat(DestinationTopicCheck.decide(null, true, false, null)).isEqualTo(KEEP);
    assertThat(DestinationTopicCheck.decide(null, true, false, NEW_ID)).isEqualTo(KEEP);
  }
}
