package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.broker.agent.control.ControlServer.Answer;
import dev.kafkamirror.broker.agent.control.ControlServer.Handler;
import dev.kafkamirror.broker.agent.control.ControlServer.Limits;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.RequestError;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the authenticated, fully read calls of the control endpoint on a bounded pool: {@link
 * Limits#workerThreads()} workers behind a queue of {@link Limits#queueCapacity()}. Part of {@link
 * ControlServer}.
 *
 * <p>Invariants: a call that finds the queue full is answered 503 {@code OVERLOADED} and is not
 * run, so it changed nothing; a call that throws, or whose worker is stuck past the longest call
 * timeout plus a minute, is answered 500 {@code INTERNAL} naming the call.
 *
 * <p>Threading: {@link #dispatch} is called by the connection threads, concurrently; the handler
 * runs on a worker and must be thread-safe.
 */
final class ControlDispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);

  private final Handler handler;
  private final Limits limits;
  private final ThreadPoolExecutor workers;

  ControlDispatcher(Handler handler, Limits limits) {
    this.handler = handler;
    this.limits = limits;
    this.workers =
        new ThreadPoolExecutor(
            limits.workerThreads(),
            limits.workerThreads(),
            60L,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(limits.queueCapacity()),
            ControlServer.daemon("cluster-mirror-control-worker"),
            new ThreadPoolExecutor.AbortPolicy());
  }

  /** Runs {@code call} on a worker and waits for its answer. */
  Answer dispatch(ControlCall call, byte[] body) {
    Future<Answer> future;
    try {
      future = workers.submit(() -> handler.handle(call, body));
    } catch (RejectedExecutionException e) {
      return new Answer(
          RequestError.Code.OVERLOADED.httpStatus(),
          handler.error(
              RequestError.Code.OVERLOADED,
              "the control endpoint is busy ("
                  + limits.workerThreads()
                  + " calls running, "
                  + limits.queueCapacity()
                  + " waiting); nothing was done, repeat the call"));
    }
    try {
      // The call bounds its own work by its timeoutMs; this only guards against a stuck worker.
      return future.get(ControlLimits.MAX_TIMEOUT_MS + 60_000L, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return internal(call, e);
    } catch (ExecutionException e) {
      return internal(call, e.getCause());
    } catch (TimeoutException e) {
      return internal(call, e);
    }
  }

  /** Stops the workers (interrupting running calls). */
  void close() {
    workers.shutdownNow();
  }

  private Answer internal(ControlCall call, Throwable e) {
    LOG.error("control call {} failed", call.path(), e);
    return new Answer(
        RequestError.Code.INTERNAL.httpStatus(),
        handler.error(RequestError.Code.INTERNAL, call.path() + " failed: " + e));
  }
}
