package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** How many partitions are in each state. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PartitionCounts {

  private Integer total;
  private Integer mirroring;
  private Integer paused;
  private Integer stopping;
  private Integer stopped;
  private Integer failed;

  public Integer getTotal() {
    return total;
  }

  public void setTotal(Integer total) {
    this.total = total;
  }

  public Integer getMirroring() {
    return mirroring;
  }

  public void setMirroring(Integer mirroring) {
    this.mirroring = mirroring;
  }

  public Integer getPaused() {
    return paused;
  }

  public void setPaused(Integer paused) {
    this.paused = paused;
  }

  public Integer getStopping() {
    return stopping;
  }

  public void setStopping(Integer stopping) {
    this.stopping = stopping;
  }

  public Integer getStopped() {
    return stopped;
  }

  public void setStopped(Integer stopped) {
    this.stopped = stopped;
  }

  public Integer getFailed() {
    return failed;
  }

  public void setFailed(Integer failed) {
    this.failed = failed;
  }
}
