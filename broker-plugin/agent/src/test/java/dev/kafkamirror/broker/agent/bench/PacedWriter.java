package dev.kafkamirror.broker.agent.bench;

import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A producer on a thread of its own that writes 1 KiB records round-robin into every partition of
 * one topic at a fixed rate, from its construction until {@link #stopAndFlush} or {@link #close}:
 * the "source takes new writes while it is copied" load of {@link MirrorThroughputBenchmark}.
 *
 * <p>The values come from a pool of {@value #POOL} distinct random values made up front (as the
 * preload's, text-like), so that writing them costs the writer little CPU: a benchmark side shares
 * the machine's cores with it. The pool holds more values than a 512 KiB batch has records, so a
 * compressed batch repeats none.
 *
 * <p>Thread-safety: {@link #stopAndFlush} and {@link #close} are called by the benchmark's thread;
 * the writing happens on the writer's own thread.
 */
final class PacedWriter implements AutoCloseable {

  private static final int POOL = 2048;
  private static final long JOIN_MS = TimeUnit.MINUTES.toMillis(2);

  private final Thread thread;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private volatile boolean stop;

  PacedWriter(Properties producerProperties, String topic, int partitions, double mibPerSecond) {
    byte[][] pool = new byte[POOL][];
    Random random = new Random(7);
    for (int i = 0; i < POOL; i++) {
      pool[i] = MirrorThroughputBenchmark.value(random);
    }
    double recordsPerSecond = mibPerSecond * 1024 * 1024 / MirrorThroughputBenchmark.RECORD_BYTES;
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties);
    this.thread =
        new Thread(
            () -> write(producer, topic, partitions, pool, recordsPerSecond),
            "paced-writer-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  private void write(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      int partitions,
      byte[][] pool,
      double recordsPerSecond) {
    long start = System.nanoTime();
    long i = 0;
    try (producer) {
      while (!stop && failure.get() == null) {
        long due = (long) ((System.nanoTime() - start) / 1e9 * recordsPerSecond);
        if (i >= due) {
          Thread.sleep(1);
          continue;
        }
        producer.send(
            new ProducerRecord<>(topic, (int) (i % partitions), null, pool[(int) (i % POOL)]),
            (metadata, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
        i++;
      }
      producer.flush();
    } catch (InterruptedException e) {
      failure.compareAndSet(null, e);
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }

  /**
   * Stops writing and waits (at most 2 minutes) until every record sent is acknowledged (the
   * producer flushes and closes); throws the first failure of a send.
   */
  void stopAndFlush() throws Exception {
    stop = true;
    thread.join(JOIN_MS);
    if (thread.isAlive()) {
      thread.interrupt();
      throw new IllegalStateException(
          thread.getName() + " did not flush its records within " + JOIN_MS + " ms");
    }
    Exception e = failure.get();
    if (e != null) {
      throw new IllegalStateException(thread.getName() + " failed to write", e);
    }
  }

  /** Stops writing (also when a side fails) without waiting for more than 2 minutes. */
  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.join(JOIN_MS);
    if (thread.isAlive()) {
      thread.interrupt();
    }
  }
}
