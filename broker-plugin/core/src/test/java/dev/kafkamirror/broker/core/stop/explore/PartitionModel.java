package dev.kafkamirror.broker.core.stop.explore;

import dev.kafkamirror.broker.core.producerstate.OpenTransaction;
import dev.kafkamirror.broker.core.producerstate.ResetVerification;
import dev.kafkamirror.broker.core.producerstate.ResetVerification.ProducerEntry;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.explore.Batch.Kind;
import dev.kafkamirror.broker.core.stop.rules.Decision;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import dev.kafkamirror.broker.core.stop.rules.StopRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A model of one mirror partition with three replicas on a Kafka destination cluster, the
 * stop-state topic and two operators calling the stop steps, small enough to enumerate.
 *
 * <p>What is modelled, as Kafka 4.4 and the agent do it:
 *
 * <ul>
 *   <li>Per replica: the log (batches with their leader epochs), the high watermark, whether the
 *       broker is up, its registry state (persisted with fsync, survives a crash), the stop state
 *       as far as its reader has read the state topic, the leader epoch in which it last synced as
 *       leader (the agent's {@code isCurrentAsLeader} shortcut), and what the leader knows of its
 *       log end (unknown after a leader change, so a new leader's high watermark stays stale until
 *       its followers fetch).
 *   <li>The partition: leader, leader epoch, ISR. Followers fetch as Kafka followers do: they find
 *       a divergence by leader epoch (end offset of their last epoch on the leader), truncate, and
 *       copy; a divergence inside one epoch is not detected, which is what the stop's fence is for.
 *       The leader's high watermark is the least log end of the ISR it knows.
 *   <li>The mirror fetcher appends the source's next batch at the leader's log end while the
 *       leader's registry says MIRRORING and it has read no stop state; before its first append in
 *       each leader epoch it reads the state topic up to date and adopts a stop it finds (the
 *       agent's {@code MirrorFetcher.checkStopState}), a step of its own.
 *   <li>The state topic as a log folded with the real {@link StopStateTable}; a write is checked
 *       with the real {@code checkWrite} against the writer's table and is either acknowledged or
 *       times out and arrives later (a late write, possibly of an epoch that is old by then).
 *   <li>Each step call is cut into halves where the agent has a durable write and then a Kafka
 *       action (or the reverse); two operators' halves interleave freely, on any broker, in any
 *       order, repeated. The decisions are the {@link StopRules}'; the model only executes them.
 *   <li>Faults: a broker crash (in-flight calls on it die; it loses its table, its sync and its log
 *       above its own high watermark when another in-sync replica survives) and restart, a
 *       leadership move, a follower falling out of the ISR (it comes back when it has fetched).
 * </ul>
 *
 * <p>Values and states are immutable; {@link #successors} is pure.
 */
final class PartitionModel {

  static final int REPLICAS = 3;
  static final int OPERATORS = 2;
  static final String SOURCE_ID = "source-cluster";
  static final String TOPIC = "orders";
  static final StopStateKey KEY = new StopStateKey("m1", "AAAAAAAAAAAAAAAAAAAAAA", 0);

  /**
   * The source partition's batches in offset order; the destination mirrors them at the same
   * offsets.
   */
  static final List<Kind> SOURCE = List.of(Kind.DATA, Kind.TXN, Kind.COMMIT, Kind.TXN);

  private static final List<Integer> ASSIGNMENT = List.of(0, 1, 2);
  private static final Set<Integer> HOLDERS = Set.of(0, 1, 2);
  private static final long PRODUCER_ID = 7L;
  private static final long CLIENT_PRODUCER_ID = 9L;

  /** One replica; see the class comment. {@code table} is null until a stop state is read. */
  record Replica(
      List<Batch> log,
      int hw,
      boolean alive,
      LocalState local,
      StopState table,
      int readUpTo,
      int syncedEpoch,
      int knownEnd,
      boolean fetchedSinceTruncation,
      int fetcherCheckedEpoch) {}

  /**
   * A step call in flight on {@code broker}: the executor has applied a decision and asks the rule
   * again when the call goes on.
   */
  record Call(StopCall step, int broker) {}

  /** How many faults of each kind, and client writes, are left. */
  record Budget(int crashes, int moves, int drops, int timeouts, int writes) {}

  /**
   * One state of the whole system. {@code stable} is a ghost: the longest log prefix that was ever
   * below a leader's last stable offset (below its high watermark, on every in-sync replica, below
   * the first open transaction: what read_committed consumers were shown), up to the barrier, and
   * through the last client write acknowledged; nothing in it may be lost.
   */
  record World(
      List<Replica> replicas,
      int leader,
      int epoch,
      int isr,
      List<StopState> topic,
      List<StopState> late,
      List<Call> calls,
      List<Batch> stable,
      Budget budget) {

    @Override
    public String toString() {
      return describe(this);
    }
  }

  /** One action and the state it leads to; {@code violation} names a broken transition rule. */
  record Transition(String label, World next, String violation) {}

  /**
   * Two behaviours of the system around the rules that the explorer found to matter.
   *
   * <p>Kafka 4.4 is modelled as it is (confirmed on real brokers by {@code
   * BarrierFollowerConfirmationIT}): a leader's own truncation leaves what it knows of its
   * followers' log ends (from their last fetch) as it was, so the next append can raise the high
   * watermark over offsets a follower still holds diverging batches at.
   *
   * @param barrierAwaitsFollowerFetches false models the agent before the fix: the barrier counts
   *     as replicated once it is below the high watermark; true models the agent's fix: the view
   *     says whether every in-sync follower has fetched up to the leader's log end since the
   *     leader's last truncation in its epoch ({@code PartitionView.isrFetchedLogEnd}), and the
   *     barrier rule waits for it
   * @param callResyncsInNewEpoch false models today's executor: a call reads the state topic up to
   *     date once, when it starts, and later writes of the same call rely on that; true models an
   *     executor that reads it up to date again before asking the rule whenever the leader epoch is
   *     not the one it last synced in as leader
   */
  record Options(boolean barrierAwaitsFollowerFetches, boolean callResyncsInNewEpoch) {
    /** Kafka 4.4 and the executor as they are. */
    static final Options AS_IS = new Options(false, false);

    /** Both behaviours as the findings ask for them. */
    static final Options FIXED = new Options(true, true);
  }

  /** Where the partition stands when the explored runs begin. */
  enum Start {
    /**
     * A record, then the first batch of a transaction on brokers 0 and 1, only the record on broker
     * 2: the stop has something above the last stable offset to truncate (see {@link #initial()}).
     */
    OPEN_TRANSACTION,
    /**
     * A record, a transaction and its COMMIT on every replica, the high watermark at the log end: a
     * quiescent mirror, whose leader has nothing to truncate, so that its remove-fetchers call also
     * records the truncation. The fetcher can still append the source's next batch (a new
     * transaction, in the current epoch) until its fetcher is removed.
     */
    QUIESCENT
  }

  private final RuleSet rules;
  private final Budget budget;
  private final Options options;
  private final Start start;

  PartitionModel(RuleSet rules, Budget budget, Options options) {
    this(rules, budget, options, Start.OPEN_TRANSACTION);
  }

  PartitionModel(RuleSet rules, Budget budget, Options options, Start start) {
    this.rules = rules;
    this.budget = budget;
    this.options = options;
    this.start = start;
  }

  /**
   * Mirroring under leader 0 in leader epoch 1: the source's first two batches (a record, then the
   * first batch of a transaction), appended in epoch 0, on brokers 0 and 1, only the first on
   * broker 2 (in sync, one fetch behind), so the high watermark and the last stable offset are 1.
   * The fetcher's next append (the COMMIT) is of the current epoch, which the stop must fence. With
   * {@link Start#QUIESCENT}, the state that {@link Start} describes instead.
   */
  World initial() {
    if (start == Start.QUIESCENT) {
      List<Batch> three =
          List.of(new Batch(Kind.DATA, 0), new Batch(Kind.TXN, 0), new Batch(Kind.COMMIT, 0));
      List<Replica> rs = new ArrayList<>();
      rs.add(new Replica(three, 3, true, LocalState.MIRRORING, null, 0, -1, -1, true, 1));
      rs.add(new Replica(three, 3, true, LocalState.MIRRORING, null, 0, -1, 3, true, -1));
      rs.add(new Replica(three, 3, true, LocalState.MIRRORING, null, 0, -1, 3, true, -1));
      return new World(
          List.copyOf(rs), 0, 1, 0b111, List.of(), List.of(), List.of(), three, budget);
    }
    List<Batch> two = List.of(new Batch(Kind.DATA, 0), new Batch(Kind.TXN, 0));
    List<Batch> one = List.of(new Batch(Kind.DATA, 0));
    List<Replica> rs = new ArrayList<>();
    // The leader's fetcher has checked the stop state in epoch 1: it mirrors.
    rs.add(new Replica(two, 1, true, LocalState.MIRRORING, null, 0, -1, -1, true, 1));
    rs.add(new Replica(two, 1, true, LocalState.MIRRORING, null, 0, -1, 2, true, -1));
    rs.add(new Replica(one, 1, true, LocalState.MIRRORING, null, 0, -1, 1, true, -1));
    return new World(List.copyOf(rs), 0, 1, 0b111, List.of(), List.of(), List.of(), one, budget);
  }

  /** Every action enabled in {@code w}, with the state it leads to. */
  List<Transition> successors(World w) {
    List<Transition> out = new ArrayList<>();
    StopState before = effective(w.topic());
    if (w.calls().size() < OPERATORS) {
      for (StopCall step : StopCall.values()) {
        for (int b = 0; b < REPLICAS; b++) {
          if (!w.replicas().get(b).alive()) {
            continue;
          }
          int broker = b;
          String label = "operator calls " + step.callName() + " on broker " + b;
          withWriteOutcomes(w, before, out, label, m -> m.start(step, broker));
        }
      }
    }
    for (int i = 0; i < w.calls().size(); i++) {
      if (i > 0 && w.calls().get(i).equals(w.calls().get(i - 1))) {
        continue;
      }
      Call c = w.calls().get(i);
      int index = i;
      String label =
          "operator's " + c.step().callName() + " call on broker " + c.broker() + " goes on";
      withWriteOutcomes(
          w,
          before,
          out,
          label,
          m -> {
            m.calls.remove(index);
            m.ask(c);
          });
    }
    for (int b = 0; b < REPLICAS; b++) {
      Replica r = w.replicas().get(b);
      int broker = b;
      if (r.alive() && w.leader() >= 0 && w.leader() != b && w.replicas().get(w.leader()).alive()) {
        Mut m = new Mut(w);
        m.fetch(b);
        World next = m.freeze();
        if (!next.equals(w)) {
          out.add(
              new Transition("broker " + b + " fetches from the leader" + m.notes(), next, null));
        }
      }
      if (r.alive()) {
        Mut m = new Mut(w);
        m.readerRound(b);
        World next = m.freeze();
        if (!next.equals(w)) {
          out.add(
              new Transition(
                  "broker " + b + " reads the state topic" + m.notes(), next, m.violation));
        }
      }
      if (r.alive() && w.budget().crashes() > 0) {
        Mut m = new Mut(w);
        m.crashes--;
        m.crash(broker);
        out.add(new Transition("broker " + b + " crashes" + m.notes(), m.freeze(), null));
      }
      if (!r.alive()) {
        Mut m = new Mut(w);
        m.restart(broker);
        out.add(new Transition("broker " + b + " restarts" + m.notes(), m.freeze(), null));
      }
      if (w.budget().moves() > 0
          && r.alive()
          && w.leader() >= 0
          && w.leader() != b
          && w.replicas().get(w.leader()).alive()
          && inIsr(w.isr(), b)) {
        Mut m = new Mut(w);
        m.moves--;
        m.becomeLeader(b);
        out.add(new Transition("leadership moves to broker " + b + m.notes(), m.freeze(), null));
      }
      if (w.budget().drops() > 0
          && r.alive()
          && w.leader() >= 0
          && w.leader() != b
          && inIsr(w.isr(), b)) {
        Mut m = new Mut(w);
        m.drops--;
        m.isr &= ~(1 << b);
        m.recomputeHw();
        out.add(
            new Transition("broker " + b + " falls out of the ISR" + m.notes(), m.freeze(), null));
      }
    }
    if (w.leader() >= 0) {
      Replica l = w.replicas().get(w.leader());
      boolean fetching = l.alive() && l.local() == LocalState.MIRRORING && l.table() == null;
      if (fetching && l.fetcherCheckedEpoch() != w.epoch()) {
        Mut m = new Mut(w);
        m.readerRound(w.leader());
        m.fetcherChecked[w.leader()] = w.epoch();
        out.add(
            new Transition(
                "the mirror fetcher on broker "
                    + w.leader()
                    + " reads the state topic before its first append in epoch "
                    + w.epoch()
                    + m.notes(),
                m.freeze(),
                m.violation));
      } else if (fetching && l.log().size() < SOURCE.size()) {
        Mut m = new Mut(w);
        m.appendLeader(new Batch(SOURCE.get(l.log().size()), w.epoch()));
        out.add(
            new Transition(
                "the mirror fetcher appends the source's offset "
                    + l.log().size()
                    + " on broker "
                    + w.leader(),
                m.freeze(),
                null));
      }
    }
    if (w.leader() >= 0 && w.budget().writes() > 0) {
      Replica l = w.replicas().get(w.leader());
      if (l.alive() && l.local() == LocalState.STOPPED) {
        Mut m = new Mut(w);
        m.writes--;
        m.appendLeader(new Batch(Kind.CLIENT, w.epoch()));
        out.add(
            new Transition(
                "a client writes to broker " + w.leader() + " at offset " + l.log().size(),
                m.freeze(),
                null));
      }
    }
    for (int i = 0; i < w.late().size(); i++) {
      Mut m = new Mut(w);
      StopState s = m.late.remove(i);
      m.topic.add(s);
      out.add(
          new Transition(
              "the timed-out write " + shortState(s) + " lands in the state topic late",
              m.freeze(),
              null));
    }
    return out;
  }

  private void withWriteOutcomes(
      World w,
      StopState before,
      List<Transition> out,
      String label,
      java.util.function.Consumer<Mut> action) {
    for (boolean timeout : new boolean[] {false, true}) {
      if (timeout && w.budget().timeouts() == 0) {
        continue;
      }
      Mut m = new Mut(w);
      m.timeoutWrite = timeout;
      action.accept(m);
      if (timeout && !m.wroteLate) {
        continue;
      }
      World next = m.freeze();
      if (next.equals(w)) {
        continue;
      }
      String violation = m.violation;
      if (violation == null) {
        violation = stepWentBack(before, effective(next.topic()));
      }
      out.add(new Transition(label + m.notes(), next, violation));
    }
  }

  private static String stepWentBack(StopState before, StopState after) {
    if (before != null && (after == null || after.step().compareTo(before.step()) < 0)) {
      return "no step goes back: the recorded stop was "
          + shortState(before)
          + " and is now "
          + (after == null ? "none" : shortState(after));
    }
    return null;
  }

  /** The first broken state invariant of {@code w}, if any. */
  static Optional<String> invariantViolation(World w) {
    StopState eff = effective(w.topic());
    for (int b = 0; b < REPLICAS; b++) {
      int barriers = 0;
      for (Batch x : w.replicas().get(b).log()) {
        barriers += x.kind() == Kind.BARRIER ? 1 : 0;
      }
      if (barriers > 1) {
        return Optional.of("at most one barrier: broker " + b + " holds " + barriers);
      }
      List<Batch> log = w.replicas().get(b).log();
      for (int o = 1; o < log.size(); o++) {
        if (log.get(o).kind() == Kind.BARRIER && log.get(o - 1).kind() == Kind.CLIENT) {
          return Optional.of("no barrier after a client write: broker " + b + " holds " + log);
        }
      }
    }
    for (int b = 0; b < REPLICAS; b++) {
      if (!inIsr(w.isr(), b)) {
        continue;
      }
      List<Batch> log = w.replicas().get(b).log();
      if (log.size() < w.stable().size() || !log.subList(0, w.stable().size()).equals(w.stable())) {
        return Optional.of(
            "nothing below the last stable offset is lost: in-sync broker "
                + b
                + " holds "
                + log
                + ", which does not start with the stable "
                + w.stable());
      }
      if (eff != null && eff.step().atLeast(StopStep.TRUNCATING)) {
        for (int o = 0; o < log.size(); o++) {
          if (log.get(o).kind() == Kind.BARRIER && o < eff.truncateTargetOffset()) {
            return Optional.of(
                "no barrier below the recorded truncation target "
                    + eff.truncateTargetOffset()
                    + ": broker "
                    + b
                    + " holds one at offset "
                    + o);
          }
        }
      }
    }
    if (w.leader() < 0 || !w.replicas().get(w.leader()).alive()) {
      return Optional.empty();
    }
    if (eff != null && eff.step().atLeast(StopStep.BARRIER_WRITTEN)) {
      Optional<String> missing = barrierMissing(w, eff.barrierOffset());
      if (missing.isPresent()) {
        return Optional.of(
            "a recorded barrier is on every in-sync replica: "
                + shortState(eff)
                + ", but "
                + missing.get());
      }
    }
    if (w.replicas().get(w.leader()).local() == LocalState.STOPPED) {
      if (eff == null || eff.step() != StopStep.STOPPED) {
        return Optional.of(
            "writable only once STOPPED is durable: leader "
                + w.leader()
                + " lets clients write, the state topic records "
                + (eff == null ? "nothing" : shortState(eff)));
      }
      Optional<String> missing = barrierMissing(w, eff.barrierOffset());
      if (missing.isPresent()) {
        return Optional.of(
            "writable only with the barrier on every in-sync replica: leader "
                + w.leader()
                + " lets clients write, but "
                + missing.get());
      }
    }
    return Optional.empty();
  }

  private static Optional<String> barrierMissing(World w, long offset) {
    for (int b = 0; b < REPLICAS; b++) {
      if (!inIsr(w.isr(), b)) {
        continue;
      }
      List<Batch> log = w.replicas().get(b).log();
      if (log.size() <= offset || log.get((int) offset).kind() != Kind.BARRIER) {
        return Optional.of(
            "in-sync broker " + b + " holds " + log + ", no barrier at offset " + offset);
      }
    }
    return Optional.empty();
  }

  /** The stop state that counts, folded from the whole state topic with the real table. */
  static StopState effective(List<StopState> topic) {
    StopStateTable t = new StopStateTable();
    topic.forEach(t::apply);
    return t.get(KEY).orElse(null);
  }

  static boolean inIsr(int isr, int b) {
    return (isr >> b & 1) == 1;
  }

  /** A state record in a few characters: step, epoch, writer and the offsets it fixes. */
  static String shortState(StopState s) {
    if (s == null) {
      return "-";
    }
    StringBuilder b = new StringBuilder(s.step().name()).append("@e").append(s.leaderEpoch());
    b.append("/b").append(s.writerBrokerId());
    if (s.truncateTargetOffset() >= 0) {
      b.append(" target ").append(s.truncateTargetOffset());
    }
    if (s.truncatedToOffset() >= 0) {
      b.append(" truncatedTo ").append(s.truncatedToOffset());
    }
    if (s.barrierOffset() >= 0) {
      b.append(" barrier ").append(s.barrierOffset());
    }
    return b.toString();
  }

  static String describe(World w) {
    StringBuilder b = new StringBuilder();
    b.append("leader ")
        .append(w.leader() < 0 ? "none" : "b" + w.leader())
        .append(" epoch ")
        .append(w.epoch())
        .append(" isr ")
        .append(isrSet(w.isr()));
    for (int i = 0; i < REPLICAS; i++) {
      Replica r = w.replicas().get(i);
      b.append(" | b")
          .append(i)
          .append(r.alive() ? " " : " DOWN ")
          .append(r.log())
          .append(" hw ")
          .append(r.hw())
          .append(' ')
          .append(r.local())
          .append(" reads ")
          .append(shortState(r.table()));
    }
    b.append(" | state topic ").append(w.topic().stream().map(PartitionModel::shortState).toList());
    if (!w.late().isEmpty()) {
      b.append(" in flight ").append(w.late().stream().map(PartitionModel::shortState).toList());
    }
    if (!w.calls().isEmpty()) {
      b.append(" | calls ")
          .append(w.calls().stream().map(c -> c.step().callName() + "@b" + c.broker()).toList());
    }
    return b.toString();
  }

  private static Set<Integer> isrSet(int isr) {
    Set<Integer> s = new TreeSet<>();
    for (int b = 0; b < REPLICAS; b++) {
      if (inIsr(isr, b)) {
        s.add(b);
      }
    }
    return s;
  }

  private static final Comparator<Call> CALL_ORDER =
      Comparator.comparing((Call c) -> c.step()).thenComparingInt(Call::broker);

  /** A world being changed by one action. */
  private final class Mut {
    final List<List<Batch>> logs = new ArrayList<>();
    final int[] hw = new int[REPLICAS];
    final boolean[] alive = new boolean[REPLICAS];
    final LocalState[] local = new LocalState[REPLICAS];
    final StopState[] table = new StopState[REPLICAS];
    final int[] readUpTo = new int[REPLICAS];
    final int[] synced = new int[REPLICAS];
    final int[] knownEnd = new int[REPLICAS];
    final boolean[] fetchedSince = new boolean[REPLICAS];
    final int[] fetcherChecked = new int[REPLICAS];
    int leader;
    int epoch;
    int isr;
    final List<StopState> topic;
    final List<StopState> late;
    final List<Call> calls;
    List<Batch> stable;
    int crashes;
    int moves;
    int drops;
    int timeouts;
    int writes;
    boolean timeoutWrite;
    boolean wroteLate;
    String violation;
    private final List<String> notes = new ArrayList<>();

    Mut(World w) {
      for (int b = 0; b < REPLICAS; b++) {
        Replica r = w.replicas().get(b);
        logs.add(new ArrayList<>(r.log()));
        hw[b] = r.hw();
        alive[b] = r.alive();
        local[b] = r.local();
        table[b] = r.table();
        readUpTo[b] = r.readUpTo();
        synced[b] = r.syncedEpoch();
        knownEnd[b] = r.knownEnd();
        fetchedSince[b] = r.fetchedSinceTruncation();
        fetcherChecked[b] = r.fetcherCheckedEpoch();
      }
      leader = w.leader();
      epoch = w.epoch();
      isr = w.isr();
      topic = new ArrayList<>(w.topic());
      late = new ArrayList<>(w.late());
      calls = new ArrayList<>(w.calls());
      stable = w.stable();
      crashes = w.budget().crashes();
      moves = w.budget().moves();
      drops = w.budget().drops();
      timeouts = w.budget().timeouts();
      writes = w.budget().writes();
    }

    String notes() {
      return notes.isEmpty() ? "" : ": " + String.join("; ", notes);
    }

    World freeze() {
      if (leader >= 0 && alive[leader]) {
        int committed = Integer.MAX_VALUE;
        for (int b = 0; b < REPLICAS; b++) {
          if (inIsr(isr, b)) {
            committed = Math.min(committed, commonPrefix(logs.get(b), logs.get(leader)));
          }
        }
        // What read_committed consumers (and acks=all clients) were told: below the leader's high
        // watermark, and on every in-sync replica.
        committed = Math.min(committed, hw[leader]);
        // Mirrored data only: the barrier and what follows are the stop's, not the source's.
        int s = PartitionModel.firstOpen(logs.get(leader), committed);
        for (int i = 0; i < s; i++) {
          if (logs.get(leader).get(i).kind() == Kind.BARRIER) {
            s = i;
            break;
          }
        }
        // A committed client write, and everything before it, is never lost either.
        for (int i = committed - 1; i >= s; i--) {
          if (logs.get(leader).get(i).kind() == Kind.CLIENT) {
            s = i + 1;
            break;
          }
        }
        List<Batch> candidate = logs.get(leader).subList(0, s);
        if (candidate.size() > stable.size()
            && candidate.subList(0, stable.size()).equals(stable)) {
          stable = List.copyOf(candidate);
        }
      }
      List<Replica> rs = new ArrayList<>();
      for (int b = 0; b < REPLICAS; b++) {
        rs.add(
            new Replica(
                List.copyOf(logs.get(b)),
                hw[b],
                alive[b],
                local[b],
                table[b],
                readUpTo[b],
                synced[b],
                knownEnd[b],
                fetchedSince[b],
                fetcherChecked[b]));
      }
      calls.sort(CALL_ORDER);
      return new World(
          List.copyOf(rs),
          leader,
          epoch,
          isr,
          List.copyOf(topic),
          List.copyOf(late),
          List.copyOf(calls),
          stable,
          new Budget(crashes, moves, drops, timeouts, writes));
    }

    int leo(int b) {
      return logs.get(b).size();
    }

    /** The offset of the first batch of the open transaction, or the log end when none is open. */
    int firstOpen(int b) {
      return PartitionModel.firstOpen(logs.get(b), logs.get(b).size());
    }

    /** What broker {@code b} sees, as the agent builds the rules' view. */
    PartitionView view(int b) {
      List<Batch> log = logs.get(b);
      Batch last = log.isEmpty() ? null : log.get(log.size() - 1);
      int open = firstOpen(b);
      List<OpenTransaction> openTxns =
          open < log.size() ? List.of(new OpenTransaction(PRODUCER_ID, open)) : List.of();
      StopState durable = table[b];
      String resetRefusal =
          durable == null || !durable.step().atLeast(StopStep.BARRIER_WRITTEN)
              ? null
              : ResetVerification.refusal(
                      TOPIC + "-0",
                      b,
                      durable.barrierOffset(),
                      leader == b && local[b] != LocalState.STOPPED,
                      producers(log),
                      openTxns)
                  .orElse(null);
      return new PartitionView(
          KEY,
          TOPIC,
          durable,
          local[b],
          b,
          leader == b,
          leader,
          epoch,
          log.size(),
          hw[b],
          PartitionModel.firstOpen(log, Math.min(hw[b], log.size())),
          last == null ? -1 : last.epoch(),
          last != null && last.kind() == Kind.BARRIER ? log.size() - 1 : -1L,
          openTxns.size(),
          ASSIGNMENT,
          isrSet(isr),
          HOLDERS,
          SOURCE_ID,
          resetRefusal,
          true,
          0L,
          !options.barrierAwaitsFollowerFetches() || isrFetchedLogEnd(b));
    }

    /**
     * What the agent reads from Kafka's follower states: every other in-sync replica fetched from
     * {@code b} since its last truncation in this epoch, up to its log end.
     */
    boolean isrFetchedLogEnd(int b) {
      for (int i = 0; i < REPLICAS; i++) {
        if (i != b && inIsr(isr, i) && (!fetchedSince[i] || knownEnd[i] < leo(b))) {
          return false;
        }
      }
      return true;
    }

    void advanceLocal(int b, LocalState to) {
      if (local[b].compareTo(to) < 0) {
        local[b] = to;
        notes.add("broker " + b + " registry " + to);
      }
    }

    StopState fold(StopState current, StopState record) {
      StopStateTable t = new StopStateTable();
      if (current != null) {
        t.apply(current);
      }
      t.apply(record);
      return t.get(KEY).orElseThrow();
    }

    /** The reader's round: read the state topic to its end, then adopt the stop state. */
    void readerRound(int b) {
      for (int i = readUpTo[b]; i < topic.size(); i++) {
        table[b] = fold(table[b], topic.get(i));
      }
      readUpTo[b] = topic.size();
      StopState s = table[b];
      if (s != null && local[b] != LocalState.STOPPED) {
        int open = firstOpen(b);
        boolean verified =
            s.step() == StopStep.STOPPED
                && ResetVerification.refusal(
                        TOPIC + "-0",
                        b,
                        s.barrierOffset(),
                        false,
                        producers(logs.get(b)),
                        open < leo(b) ? List.of(new OpenTransaction(PRODUCER_ID, open)) : List.of())
                    .isEmpty();
        advanceLocal(b, verified ? LocalState.STOPPED : LocalState.STOPPING);
      }
    }

    /** The agent's syncUnlessCurrent. */
    void sync(int b) {
      if (leader == b && synced[b] == epoch) {
        return;
      }
      int asLeader = leader == b ? epoch : -1;
      readerRound(b);
      if (asLeader >= 0) {
        synced[b] = asLeader;
      }
    }

    /** An acks=all write of the state topic by broker {@code b}; false when it failed. */
    boolean write(int b, StopState s) {
      StopStateTable t = new StopStateTable();
      if (table[b] != null) {
        t.apply(table[b]);
      }
      try {
        t.checkWrite(s);
      } catch (FencedStopStateException e) {
        notes.add("write " + shortState(s) + " FENCED");
        return false;
      }
      if (timeoutWrite && timeouts > 0) {
        timeouts--;
        late.add(s);
        wroteLate = true;
        notes.add("write " + shortState(s) + " TIMES OUT (still in flight)");
        return false;
      }
      topic.add(s);
      table[b] = fold(table[b], s);
      notes.add("records " + shortState(s));
      return true;
    }

    void appendLeader(Batch batch) {
      logs.get(leader).add(batch);
      recomputeHw();
    }

    void truncateLog(int b, int to) {
      List<Batch> log = logs.get(b);
      if (to < log.size()) {
        logs.set(b, new ArrayList<>(log.subList(0, to)));
      }
      hw[b] = Math.min(hw[b], logs.get(b).size());
      if (b == leader) {
        // Kafka keeps what it knows of the followers' ends; the agent notes the truncation.
        for (int i = 0; i < REPLICAS; i++) {
          fetchedSince[i] = false;
        }
      }
    }

    /** Kafka's maybeIncrementLeaderHW: the least log end of the ISR, once the leader knows it. */
    void recomputeHw() {
      if (leader < 0 || !alive[leader]) {
        return;
      }
      int min = leo(leader);
      for (int b = 0; b < REPLICAS; b++) {
        if (b == leader || !inIsr(isr, b)) {
          continue;
        }
        if (knownEnd[b] < 0) {
          return;
        }
        min = Math.min(min, knownEnd[b]);
      }
      hw[leader] = Math.max(hw[leader], Math.min(min, leo(leader)));
    }

    void becomeLeader(int b) {
      leader = b;
      epoch++;
      for (int i = 0; i < REPLICAS; i++) {
        knownEnd[i] = -1;
        fetchedSince[i] = true;
      }
      if (isr == 1 << b) {
        hw[b] = leo(b);
      }
      notes.add("broker " + b + " leads in epoch " + epoch);
    }

    /** A Kafka follower fetch: find a divergence by leader epoch, truncate, copy the rest. */
    void fetch(int r) {
      List<Batch> lead = logs.get(leader);
      while (leo(r) > 0) {
        List<Batch> log = logs.get(r);
        int e = log.get(log.size() - 1).epoch();
        int end = lead.size();
        int floor = -1;
        for (int i = 0; i < lead.size(); i++) {
          int le = lead.get(i).epoch();
          if (le > e) {
            end = i;
            break;
          }
          floor = Math.max(floor, le);
        }
        if (floor == e && end >= log.size()) {
          break;
        }
        int ownEnd = 0;
        if (floor >= 0) {
          ownEnd = log.size();
          for (int i = 0; i < log.size(); i++) {
            if (log.get(i).epoch() > floor) {
              ownEnd = i;
              break;
            }
          }
        }
        int to = Math.min(end, ownEnd);
        notes.add("broker " + r + " truncates its diverging log to " + to);
        truncateLog(r, to);
      }
      for (int i = leo(r); i < lead.size(); i++) {
        logs.get(r).add(lead.get(i));
      }
      knownEnd[r] = leo(r);
      fetchedSince[r] = true;
      if (!inIsr(isr, r) && leo(r) >= hw[leader]) {
        isr |= 1 << r;
        notes.add("broker " + r + " rejoins the ISR");
      }
      recomputeHw();
      hw[r] = Math.min(hw[leader], leo(r));
    }

    void crash(int b) {
      int dropped = calls.size();
      calls.removeIf(c -> c.broker() == b);
      if (dropped > calls.size()) {
        notes.add("its call in flight dies");
      }
      boolean othersInSync = false;
      for (int i = 0; i < REPLICAS; i++) {
        othersInSync |= i != b && alive[i] && inIsr(isr, i);
      }
      if (othersInSync) {
        truncateLog(b, hw[b]);
        isr &= ~(1 << b);
      }
      alive[b] = false;
      table[b] = null;
      readUpTo[b] = 0;
      synced[b] = -1;
      knownEnd[b] = -1;
      fetcherChecked[b] = -1;
      if (leader == b) {
        leader = -1;
        for (int i = 0; i < REPLICAS; i++) {
          if (alive[i] && inIsr(isr, i)) {
            becomeLeader(i);
            break;
          }
        }
        if (leader < 0) {
          notes.add("the partition is offline");
        }
      } else {
        recomputeHw();
      }
    }

    void restart(int b) {
      alive[b] = true;
      if (leader < 0 && isr == 1 << b) {
        becomeLeader(b);
      }
    }

    /** A call begins: remove-fetchers stops this replica's appends first; every call syncs once. */
    void start(StopCall step, int b) {
      if (step == StopCall.REMOVE_FETCHERS) {
        advanceLocal(b, LocalState.STOPPING);
      }
      sync(b);
      ask(new Call(step, b));
    }

    /**
     * The executor asks the rule once and applies its decision: a record (acks=all) or one Kafka
     * action; the call then stays in flight, unless the rule's next answer is already Done.
     */
    void ask(Call c) {
      int b = c.broker();
      if (options.callResyncsInNewEpoch() && leader == b && synced[b] != epoch) {
        sync(b);
      }
      if (c.step() == StopCall.TRUNCATE && StopRules.stopBegun(view(b))) {
        advanceLocal(b, LocalState.STOPPING);
      }
      Decision d = rules.decide(c.step(), view(b), SOURCE_ID);
      if (d instanceof Decision.Done) {
        notes.add(c.step().callName() + " answers ok");
        return;
      }
      if (d instanceof Decision.Refuse r) {
        notes.add(c.step().callName() + " answers " + r.kind());
        return;
      }
      if (d instanceof Decision.Record r) {
        if (write(b, r.state())) {
          goOn(c);
        }
        return;
      }
      Decision.Action action = ((Decision.Act) d).action();
      if (action instanceof Decision.Truncate t) {
        int target = (int) t.offset();
        StopState eff = effective(topic);
        if (eff != null
            && ((eff.step().atLeast(StopStep.TRUNCATING) && target < eff.truncateTargetOffset())
                || (eff.step().atLeast(StopStep.TRUNCATED) && target < eff.truncatedToOffset()))) {
          violation =
              "a truncation never below a recorded target: broker "
                  + b
                  + " truncates to "
                  + target
                  + ", the state topic records "
                  + shortState(eff);
        }
        truncateLog(b, target);
        notes.add("broker " + b + " truncates its log to " + target);
        goOn(c);
      } else if (action instanceof Decision.MoveLeadership m) {
        int to = m.toBroker();
        if (alive[to] && inIsr(isr, to) && leader >= 0 && leader != to) {
          becomeLeader(to);
          notes.add(c.step().callName() + " answers LEADER_MOVED");
        } else {
          notes.add(
              c.step().callName() + " answers NOT_ENOUGH_REPLICAS (cannot move to " + to + ")");
        }
      } else if (action instanceof Decision.AppendBarrier) {
        if (leader != b) {
          notes.add(c.step().callName() + " answers NOT_LEADER");
          return;
        }
        notes.add("broker " + b + " appends the barrier at offset " + leo(b));
        appendLeader(new Batch(Kind.BARRIER, epoch));
        goOn(c);
      } else if (action instanceof Decision.AwaitHighWatermark) {
        // The bounded wait: the call stays in flight until the high watermark lets it go on.
        calls.add(c);
      } else if (action instanceof Decision.OpenForWrites) {
        advanceLocal(b, LocalState.STOPPED);
        goOn(c);
      }
    }

    /** The call stays in flight, unless the rule would answer Done at once. */
    private void goOn(Call c) {
      if (rules.decide(c.step(), view(c.broker()), SOURCE_ID) instanceof Decision.Done) {
        notes.add(c.step().callName() + " answers ok");
      } else {
        calls.add(c);
      }
    }
  }

  /**
   * The producer-state entries of a replica's log: the barrier clears them, a mirrored batch or a
   * client write adds its producer's.
   */
  static List<ProducerEntry> producers(List<Batch> log) {
    long lastData = -2L;
    long lastClient = -2L;
    for (int i = 0; i < log.size(); i++) {
      Kind k = log.get(i).kind();
      if (k == Kind.DATA || k == Kind.TXN) {
        lastData = i;
      } else if (k == Kind.CLIENT) {
        lastClient = i;
      } else if (k == Kind.BARRIER) {
        lastData = -2L;
        lastClient = -2L;
      }
    }
    List<ProducerEntry> entries = new ArrayList<>();
    if (lastData != -2L) {
      entries.add(new ProducerEntry(PRODUCER_ID, lastData));
    }
    if (lastClient != -2L) {
      entries.add(new ProducerEntry(CLIENT_PRODUCER_ID, lastClient));
    }
    return entries;
  }

  /**
   * The first offset of the transaction still open within the first {@code limit} batches, or
   * {@code limit}: a transaction counts as open until its COMMIT (or a barrier) is within the
   * limit, which is how Kafka keeps the last stable offset at a transaction whose marker is not yet
   * below the high watermark.
   */
  static int firstOpen(List<Batch> log, int limit) {
    int open = -1;
    for (int i = 0; i < limit; i++) {
      Kind k = log.get(i).kind();
      if (k == Kind.TXN && open < 0) {
        open = i;
      } else if (k == Kind.COMMIT || k == Kind.BARRIER) {
        open = -1;
      }
    }
    return open < 0 ? limit : open;
  }

  private static int commonPrefix(List<Batch> a, List<Batch> b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      if (!a.get(i).equals(b.get(i))) {
        return i;
      }
    }
    return n;
  }
}
