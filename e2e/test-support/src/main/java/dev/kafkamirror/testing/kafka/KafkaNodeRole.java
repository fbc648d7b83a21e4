package dev.kafkamirror.testing.kafka;

/** What a KRaft node does: the {@code process.roles} it runs with. */
public enum KafkaNodeRole {
  /** {@code process.roles=broker,controller}: a single node that is the whole cluster. */
  COMBINED("broker,controller"),
  /** {@code process.roles=controller}. */
  CONTROLLER("controller"),
  /** {@code process.roles=broker}. */
  BROKER("broker");

  private final String processRoles;

  KafkaNodeRole(String processRoles) {
    this.processRoles = processRoles;
  }

  String processRoles() {
    return processRoles;
  }

  boolean isBroker() {
    return this != CONTROLLER;
  }

  boolean isController() {
    return this != BROKER;
  }
}
