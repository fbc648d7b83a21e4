package dev.kafkamirror.broker.agent.bench;

import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A producer on a thread of its own that writes records round-robin into every partition of one
 * topic at a fixed rate, from its construction until {@link #stopAndFlush} or {@link #close}: the
 * "source takes new writes" load of {@link MirrorThroughputBenchmark} (while a side copies) and of
 * {@link MirrorLagBenchmark} (the steady rate whose lag it measures).
 *
 * <p>Pacing: every millisecond it sends what is due since its start ({@code recordsPerSecond} times
 * the time elapsed), so a stall (a full buffer, a slow broker) is caught up at once rather than
 * lost. A failed send does not stop it: it is counted ({@link #failed}), and {@link #stopAndFlush}
 * reports the first one. The values come from a pool made up front (see {@link #pool}), so that
 * writing them costs the writer little CPU: a benchmark shares the machine's cores with it.
 *
 * <p>Thread-safety: {@link #stopAndFlush}, {@link #close} and the counters are called by the
 * benchmark's thread; the writing happens on the writer's own thread.
 */
final class PacedWriter implements AutoCloseable {

  private static final long JOIN_MS = TimeUnit.MINUTES.toMillis(2);

  private final Thread thread;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
  private volatile boolean stop;

  /**
   * Starts writing at once. {@code values} are sent in turn; with more values than a batch has
   * records, a compressed batch repeats none.
   */
  PacedWriter(
      Properties producerProperties,
      String topic,
      int partitions,
      byte[][] values,
      double recordsPerSecond) {
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties);
    this.thread =
        new Thread(
            () -> write(producer, topic, partitions, values, recordsPerSecond),
            "paced-writer-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /** {@code size} values made by {@code value} from a fixed seed: every run writes the same. */
  static byte[][] pool(int size, Function<Random, byte[]> value) {
    byte[][] pool = new byte[size][];
    Random random = new Random(7);
    for (int i = 0; i < size; i++) {
      pool[i] = value.apply(random);
    }
    return pool;
  }

  private void write(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      int partitions,
      byte[][] values,
      double recordsPerSecond) {
    long start = System.nanoTime();
    long sent = 0;
    try (producer) {
      while (!stop) {
        long due = (long) ((System.nanoTime() - start) / 1e9 * recordsPerSecond);
        while (sent < due && !stop) {
          producer.send(
              new ProducerRecord<>(
                  topic, (int) (sent % partitions), null, values[(int) (sent % values.length)]),
              (metadata, e) -> {
                if (e == null) {
                  acked.incrementAndGet();
                } else {
                  failed.incrementAndGet();
                  firstFailure.compareAndSet(null, e);
                }
              });
          sent++;
        }
        Thread.sleep(1);
      }
      producer.flush();
    } catch (InterruptedException e) {
      firstFailure.compareAndSet(null, e);
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      firstFailure.compareAndSet(null, e);
    }
  }

  /** Records acknowledged so far. */
  long acked() {
    return acked.get();
  }

  /** Sends that failed so far. */
  long failed() {
    return failed.get();
  }

  /**
   * Stops writing and waits (at most 2 minutes) until every record sent is acknowledged (the
   * producer flushes and closes); throws the first failure of a send, if any send failed.
   */
  void stopAndFlush() throws Exception {
    if (!stopAndJoin()) {
      thread.interrupt();
      throw new IllegalStateException(
          thread.getName() + " did not flush its records within " + JOIN_MS + " ms");
    }
    Exception e = firstFailure.get();
    if (e != null) {
      throw new IllegalStateException(
          thread.getName() + " failed to write (" + failed.get() + " sends failed)", e);
    }
  }

  /** Stops writing (also when a side fails) without waiting for more than 2 minutes. */
  @Override
  public void close() throws InterruptedException {
    if (!stopAndJoin()) {
      thread.interrupt();
    }
  }

  /** Asks the writer to stop and waits at most 2 minutes; whether its thread has ended. */
  private boolean stopAndJoin() throws InterruptedException {
    stop = true;
    thread.join(JOIN_MS);
    return !thread.isAlive();
  }
}
