package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.BarrierLedger;
import dev.kafkamirror.broker.agent.kafka4_4.BrokerHandles;
import dev.kafkamirror.contract.Fields;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * The plugin's MBeans in the platform MBean server, in Kafka's {@code kafka.server} domain (which
 * Kafka's JMX reporter and the usual JMX exporters read): one {@code
 * kafka.server:type=ClusterMirror,name=Broker} and one {@code
 * kafka.server:type=ClusterMirror,name=Mirror,mirror=<name>} per mirror with a partition registered
 * on this broker. Cardinality is bounded by the number of mirrors (ClusterMirrors) targeting this
 * cluster: no MBean names a topic or a partition. A mirror's MBean is registered within {@value
 * #SYNC_MS} ms of its first partition here and unregistered once it has none.
 *
 * <p>Values are computed when read, from the mirror registry and the local logs; nothing here runs
 * on a fetch or append path except counter increments. Never throws into the broker: a failure to
 * register is logged once per name.
 *
 * <p>Thread-safe.
 */
public final class MirrorMBeans {

  private static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MBeans");
  static final long SYNC_MS = 1_000L;
  public static final String DOMAIN = "kafka.server";
  public static final String BROKER_NAME = DOMAIN + ":type=ClusterMirror,name=Broker";

  private static final AtomicLong BARRIER_WRITES = new AtomicLong();
  private static final AtomicLong RESET_FAILURES = new AtomicLong();
  private static final Map<String, AtomicLong> BARRIER_WRITES_BY_MIRROR = new ConcurrentHashMap<>();
  private static final Map<String, ObjectName> REGISTERED = new ConcurrentHashMap<>();
  private static volatile Thread syncThread;

  private MirrorMBeans() {}

  /** Counts a barrier this broker appended as the leader; {@code mirror} null for a non-mirror. */
  public static void barrierWritten(String mirror) {
    BARRIER_WRITES.incrementAndGet();
    if (mirror != null) {
      BARRIER_WRITES_BY_MIRROR.computeIfAbsent(mirror, m -> new AtomicLong()).incrementAndGet();
    }
  }

  /** Counts a verification that found the producer state not reset (each new failure once). */
  public static void resetCheckFailed() {
    RESET_FAILURES.incrementAndGet();
  }

  /** Registers the broker MBean and starts keeping the mirrors' MBeans in step; idempotent. */
  public static synchronized void start() {
    if (syncThread != null) {
      return;
    }
    register(
        BROKER_NAME, new StandardMBean(new BrokerView(), ClusterMirrorBrokerMXBean.class, true));
    Thread t =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                try {
                  sync();
                  Thread.sleep(SYNC_MS);
                } catch (InterruptedException e) {
                  return;
                } catch (Throwable e) {
                  LOG.warn("cluster mirror MBeans: {}", e.toString());
                }
              }
            },
            "cluster-mirror-mbeans");
    t.setDaemon(true);
    t.start();
    syncThread = t;
  }

  /** Registers an MBean for each mirror that has a partition here, and unregisters the others. */
  static void sync() {
    Set<String> mirrors = new HashSet<>();
    for (MirrorEntry e : MirrorRegistry.instance().all().values()) {
      if (e.mirrorName() != null) {
        mirrors.add(e.mirrorName());
      }
    }
    for (String mirror : mirrors) {
      if (!REGISTERED.containsKey(mirror)) {
        ObjectName name =
            register(
                mirrorObjectName(mirror),
                new StandardMBean(new MirrorView(mirror), ClusterMirrorMXBean.class, true));
        if (name != null) {
          REGISTERED.put(mirror, name);
        }
      }
    }
    for (Map.Entry<String, ObjectName> r : REGISTERED.entrySet()) {
      if (!mirrors.contains(r.getKey())) {
        try {
          ManagementFactory.getPlatformMBeanServer().unregisterMBean(r.getValue());
        } catch (JMException e) {
          // already gone
        }
        REGISTERED.remove(r.getKey());
      }
    }
  }

  /** {@code kafka.server:type=ClusterMirror,name=Mirror,mirror=<name>}, quoted when it must be. */
  public static String mirrorObjectName(String mirror) {
    boolean plain = mirror.chars().noneMatch(c -> ",=:\"*?\n\\".indexOf(c) >= 0);
    return DOMAIN
        + ":type=ClusterMirror,name=Mirror,mirror="
        + (plain ? mirror : ObjectName.quote(mirror));
  }

  private static ObjectName register(String name, Object bean) {
    try {
      ObjectName on = new ObjectName(name);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      if (!server.isRegistered(on)) {
        server.registerMBean(bean, on);
      }
      return on;
    } catch (JMException | RuntimeException e) {
      LOG.warn("cluster mirror MBeans: cannot register {}: {}", name, e.toString());
      return null;
    }
  }

  private static final class BrokerView implements ClusterMirrorBrokerMXBean {
    @Override
    public long getBarrierWritesTotal() {
      return BARRIER_WRITES.get();
    }

    @Override
    public long getProducerStateResetsTotal() {
      return BarrierLedger.instance().totalResets();
    }

    @Override
    public long getProducerStateResetFailuresTotal() {
      return RESET_FAILURES.get();
    }

    @Override
    public long getMalformedBarrierValuesTotal() {
      return BarrierLedger.instance().malformedValues();
    }

    @Override
    public int getMirrors() {
      return REGISTERED.size();
    }

    @Override
    public long getRegistryFileWritesTotal() {
      return MirrorRegistry.instance().fileWrites();
    }

    @Override
    public long getRegistryFileWriteMsTotal() {
      return MirrorRegistry.instance().fileWriteMillis();
    }
  }

  /** Reads one mirror's partitions at each attribute read. */
  private static final class MirrorView implements ClusterMirrorMXBean {
    private final String mirror;

    MirrorView(String mirror) {
      this.mirror = mirror;
    }

    /** The lag figures of the led MIRRORING partitions: max, total, unknown, max seconds. */
    private long[] lag() {
      long max = 0;
      long total = 0;
      long unknown = 0;
      long maxBehindMs = 0;
      long now = System.currentTimeMillis();
      ReplicaManager rm = BrokerHandles.replicaManager().orElse(null);
      for (Map.Entry<TopicPartition, MirrorEntry> e : MirrorRegistry.instance().all().entrySet()) {
        MirrorEntry m = e.getValue();
        if (!mirror.equals(m.mirrorName()) || m.state() != MirrorState.MIRRORING || rm == null) {
          continue;
        }
        Option<Partition> p = rm.onlinePartition(e.getKey());
        if (p.isEmpty() || !p.get().isLeader()) {
          continue;
        }
        long logEnd = p.get().localLogOrException().logEndOffset();
        Object lag = m.describe(logEnd, true, now).get(Fields.Mirror.LAG_RECORDS);
        long records = lag instanceof Number n ? n.longValue() : -1L;
        if (records < 0) {
          unknown++;
        } else {
          max = Math.max(max, records);
          total += records;
        }
        maxBehindMs = Math.max(maxBehindMs, m.behindForMs(now));
      }
      return new long[] {max, total, unknown, maxBehindMs};
    }

    private int count(MirrorState state, boolean failed) {
      int n = 0;
      for (MirrorEntry m : MirrorRegistry.instance().all().values()) {
        if (!mirror.equals(m.mirrorName())) {
          continue;
        }
        boolean isFailed =
            (m.state() == MirrorState.MIRRORING || m.state() == MirrorState.PAUSED)
                && (m.failedReason() != null || m.sourceMismatch() != null);
        if (failed ? isFailed : (!isFailed && m.state() == state)) {
          n++;
        }
      }
      return n;
    }

    private long sum(java.util.function.ToLongFunction<MirrorEntry> f) {
      long n = 0;
      for (MirrorEntry m : MirrorRegistry.instance().all().values()) {
        if (mirror.equals(m.mirrorName())) {
          n += f.applyAsLong(m);
        }
      }
      return n;
    }

    @Override
    public long getMaxLagRecords() {
      return lag()[0];
    }

    @Override
    public long getTotalLagRecords() {
      return lag()[1];
    }

    @Override
    public int getPartitionsLagUnknown() {
      return (int) lag()[2];
    }

    @Override
    public double getMaxLagSeconds() {
      return lag()[3] / 1000.0;
    }

    @Override
    public long getFetchesTotal() {
      return sum(MirrorEntry::fetches);
    }

    @Override
    public long getFetchedBytesTotal() {
      return sum(MirrorEntry::fetchedBytes);
    }

    @Override
    public long getBatchesAppendedTotal() {
      return sum(MirrorEntry::batchesAppended);
    }

    @Override
    public int getPartitionsMirroring() {
      return count(MirrorState.MIRRORING, false);
    }

    @Override
    public int getPartitionsPaused() {
      return count(MirrorState.PAUSED, false);
    }

    @Override
    public int getPartitionsAligning() {
      return count(MirrorState.ALIGNING, false);
    }

    @Override
    public int getPartitionsStopping() {
      return count(MirrorState.STOPPING, false);
    }

    @Override
    public int getPartitionsStopped() {
      return count(MirrorState.STOPPED, false);
    }

    @Override
    public int getPartitionsFailed() {
      return count(null, true);
    }

    @Override
    public long getBarrierWritesTotal() {
      AtomicLong n = BARRIER_WRITES_BY_MIRROR.get(mirror);
      return n == null ? 0 : n.get();
    }
  }
}
