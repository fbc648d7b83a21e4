package dev.kafkamirror.broker.agent.kafka4_4.stop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader of the stop-state topic and its catch-up loop: one daemon thread that (re)opens the
 * clients, reads every partition from the beginning into {@link StopStateTables} and keeps
 * following the topic. Part of {@link StopStateStore}.
 *
 * <p>Invariant ({@link #sync}): a round starts by fetching the end offsets and ends when the
 * consumer has reached them; a sync that started at time t returns only after a round that started
 * at or after t has caught up, so the tables then hold every record acknowledged before t. A failed
 * round closes the clients, records the error and starts over after a back-off; the reopened
 * consumer reads from the beginning again.
 *
 * <p>Threading: the reader thread owns the consumer; {@link #sync} may be called from any thread
 * (it wakes the reader's poll and waits on {@code progress}); listeners run on the reader thread
 * after every round that caught up.
 */
final class StopStateReader {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopStateStore");
  private static final long RETRY_BACKOFF_MS = 500L;

  private final String topic;
  private final StateTopicClients clients;
  private final StopStateTables tables;
  private final List<Runnable> caughtUpListeners = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private final Object progress = new Object();
  private volatile boolean running = true;
  private volatile long caughtUpAsOfNanos = Long.MIN_VALUE;
  private volatile long syncRequestedNanos = Long.MIN_VALUE;
  private volatile String lastError;

  StopStateReader(String topic, StateTopicClients clients, StopStateTables tables) {
    this.topic = topic;
    this.clients = clients;
    this.tables = tables;
    this.thread = new Thread(this::readLoop, "cluster-mirror-stop-state-reader");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Runs {@code listener} on the reader thread after every round that caught up. */
  void onCaughtUp(Runnable listener) {
    caughtUpListeners.add(listener);
  }

  /** The last problem reading or creating the topic, if the reader is not caught up. */
  Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  /** Whether the tables have caught up with the topic at least once. */
  boolean caughtUpOnce() {
    return caughtUpAsOfNanos != Long.MIN_VALUE;
  }

  /**
   * Waits until the tables hold every record acknowledged before this call.
   *
   * @throws StopStateUnavailableException after {@code timeoutMs}, naming the last error
   */
  void sync(long timeoutMs) throws StopStateUnavailableException {
    long start = System.nanoTime();
    try {
      awaitCaughtUpSince(start, timeoutMs);
    } finally {
      LOG.debug("stop-state sync: {} ms", (System.nanoTime() - start) / 1_000_000L);
    }
  }

  /** Ends the loop (the thread closes the clients on its way out). */
  void stop() {
    running = false;
    clients.wakeupAll();
  }

  /** Waits up to {@code timeoutMs} for the loop to end after {@link #stop}; whether it has. */
  boolean awaitStopped(long timeoutMs) throws InterruptedException {
    thread.join(timeoutMs);
    return !thread.isAlive();
  }

  private void awaitCaughtUpSince(long start, long timeoutMs) throws StopStateUnavailableException {
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    syncRequestedNanos = start;
    clients.wakeup();
    synchronized (progress) {
      while (caughtUpAsOfNanos == Long.MIN_VALUE || caughtUpAsOfNanos - start < 0) {
        long leftNanos = deadline - System.nanoTime();
        if (leftNanos <= 0) {
          throw new StopStateUnavailableException(
              "the stop-state topic "
                  + topic
                  + " could not be read up to date within "
                  + timeoutMs
                  + " ms"
                  + (lastError == null ? "" : ": " + lastError));
        }
        try {
          progress.wait(Math.max(1L, TimeUnit.NANOSECONDS.toMillis(leftNanos)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StopStateUnavailableException("interrupted while reading " + topic);
        }
      }
    }
  }

  private void readLoop() {
    while (running) {
      try {
        clients.open();
        readUntilClosed();
      } catch (WakeupException e) {
        // a sync request; go round again
      } catch (Exception e) {
        if (!running) {
          break;
        }
        lastError = e.toString();
        LOG.warn("stop-state topic {}: {}; retrying", topic, e.toString());
        clients.close();
        try {
          Thread.sleep(RETRY_BACKOFF_MS);
        } catch (InterruptedException ie) {
          break;
        }
      }
    }
    clients.close();
  }

  private void readUntilClosed() {
    KafkaConsumer<byte[], byte[]> c = clients.consumer();
    while (running) {
      long roundStart = System.nanoTime();
      boolean forSync =
          syncRequestedNanos - roundStart <= 0
              && syncRequestedNanos != Long.MIN_VALUE
              && roundStart - syncRequestedNanos < TimeUnit.SECONDS.toNanos(1);
      Map<TopicPartition, Long> ends =
          clients.endOffsetsConsumer().endOffsets(c.assignment(), Duration.ofSeconds(10));
      long endsRead = System.nanoTime();
      int polls = 0;
      int records = 0;
      // Poll only while behind: a poll with nothing to read waits its whole timeout.
      while (!reached(c, ends)) {
        polls++;
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(50))) {
          tables.fold(r);
          records++;
        }
      }
      long caughtUp = System.nanoTime();
      lastError = null;
      synchronized (progress) {
        caughtUpAsOfNanos = roundStart;
        progress.notifyAll();
      }
      for (Runnable listener : caughtUpListeners) {
        try {
          listener.run();
        } catch (RuntimeException e) {
          LOG.warn("stop-state listener failed", e);
        }
      }
      if (forSync) {
        LOG.debug(
            "stop-state round for a sync: end offsets {} ms, {} polls for {} records {} ms,"
                + " listeners after it {} ms",
            (endsRead - roundStart) / 1_000_000L,
            polls,
            records,
            (caughtUp - endsRead) / 1_000_000L,
            (System.nanoTime() - caughtUp) / 1_000_000L);
      }
      if (syncRequestedNanos - roundStart <= 0) {
        // Nobody waits: follow the topic at a relaxed pace (a sync request wakes this poll).
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          tables.fold(r);
        }
      }
    }
  }

  private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      if (c.position(end.getKey()) < end.getValue()) {
        return false;
      }
    }
    return true;
  }
}
