package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.PartitionKey;
import java.util.List;

/** Where a destination partition lives, from Kafka's metadata. */
public record PartitionPlacement(PartitionKey key, Integer leaderId, List<Integer> replicas) {}
