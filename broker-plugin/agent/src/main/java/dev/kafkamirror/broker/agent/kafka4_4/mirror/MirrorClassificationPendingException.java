package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import org.apache.kafka.common.errors.RetriableException;

/**
 * {@link MirrorRegistry#readOnlyReason} cannot tell yet whether a partition is a mirror: this
 * broker has mirror registrations on disk (or an unreadable registry file), or its cluster has a
 * stop-state topic, and it has not read the cluster's mirror membership since it started. Guards
 * refuse the write with a retriable error; the window ends when the stop-state reader has caught up
 * once (normally seconds after the broker starts; it retries every 0.5 s while the topic cannot be
 * read).
 */
public final class MirrorClassificationPendingException extends RetriableException {

  private static final long serialVersionUID = 1L;

  public MirrorClassificationPendingException(String message) {
    super(message);
  }
}
