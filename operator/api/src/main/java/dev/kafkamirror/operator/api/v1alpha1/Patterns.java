package dev.kafkamirror.operator.api.v1alpha1;

/** Regular expressions shared by the schema. */
final class Patterns {

  /** host:port[,host:port...]: DNS names, IPv4, or bracketed IPv6. */
  static final String BOOTSTRAP_SERVERS =
      "^((\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):[0-9]{1,5})"
          + "(,(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):[0-9]{1,5})*$";

  /** One host:port: a DNS name, IPv4, or bracketed IPv6. */
  static final String HOST_PORT =
      "^(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):[0-9]{1,5}$";

  /** A Kafka cluster id: a UUID in URL-safe base64 without padding. */
  static final String KAFKA_CLUSTER_ID = "^[A-Za-z0-9_-]{22}$";

  private Patterns() {}
}
