package dev.kafkamirror.operator.api.v1alpha1;

/** Regular expressions shared by the schema. */
final class Patterns {

  /** A TCP port from 1 to 65535, without leading zeros. */
  static final String PORT =
      "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})";

  /** host:port[,host:port...]: DNS names, IPv4, or bracketed IPv6; ports 1 to 65535. */
  static final String BOOTSTRAP_SERVERS =
      "^((\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):"
          + PORT
          + ")(,(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):"
          + PORT
          + ")*$";

  /** One host:port: a DNS name, IPv4, or bracketed IPv6; port 1 to 65535. */
  static final String HOST_PORT =
      "^(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):" + PORT + "$";

  /** A Kafka cluster id: a UUID in URL-safe base64 without padding. */
  static final String KAFKA_CLUSTER_ID = "^[A-Za-z0-9_-]{22}$";

  private Patterns() {}
}
