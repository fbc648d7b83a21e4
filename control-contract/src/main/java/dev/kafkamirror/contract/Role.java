package dev.kafkamirror.contract;

/** The local replica's role ({@code describe.role}). */
public enum Role {
  LEADER,
  FOLLOWER
}
