package dev.kafkamirror.broker.core.producerstate;

/**
 * A transaction that has begun in the log and has no COMMIT or ABORT marker yet.
 *
 * @param producerId its producer
 * @param firstOffset the offset of its first batch
 */
public record OpenTransaction(long producerId, long firstOffset) {}
