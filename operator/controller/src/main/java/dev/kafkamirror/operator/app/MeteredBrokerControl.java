package dev.kafkamirror.operator.app;

import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.operator.control.BrokerControl;
import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.control.ControlResult;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.List;

/**
 * A {@link BrokerControl} that counts every per-partition result of the calls it passes on ({@code
 * cmo_control_calls_total{call}}) and each error by its code ({@code
 * cmo_control_call_errors_total{call,code}}). Changes no result; thread-safe like the one it wraps.
 */
public final class MeteredBrokerControl implements BrokerControl {

  /** The {@code call} label of describe calls; actions use their name. */
  public static final String DESCRIBE = "DESCRIBE";

  private final BrokerControl delegate;
  private final ClusterMirrorMetrics metrics;

  public MeteredBrokerControl(BrokerControl delegate, ClusterMirrorMetrics metrics) {
    this.delegate = delegate;
    this.metrics = metrics;
  }

  @Override
  public List<ControlResult> describe(
      int brokerId, String address, ControlClient.Channel channel, List<PartitionKey> partitions) {
    return counted(DESCRIBE, delegate.describe(brokerId, address, channel, partitions));
  }

  @Override
  public List<ControlResult> act(
      Action action,
      int brokerId,
      String address,
      ControlClient.Channel channel,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source) {
    return counted(
        action.name(),
        delegate.act(
            action, brokerId, address, channel, partitions, sourceClusterId, mirrorName, source));
  }

  @Override
  public List<ControlResult> startFailback(
      int brokerId,
      String address,
      ControlClient.Channel channel,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback) {
    return counted(
        Action.START_MIRRORING.name(),
        delegate.startFailback(
            brokerId, address, channel, partitions, sourceClusterId, mirrorName, source, failback));
  }

  private List<ControlResult> counted(String call, List<ControlResult> results) {
    for (ControlResult r : results) {
      metrics.controlCall(call, r.errorCode());
    }
    return results;
  }
}
