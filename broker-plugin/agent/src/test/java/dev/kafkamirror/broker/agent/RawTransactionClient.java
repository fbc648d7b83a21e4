package dev.kafkamirror.broker.agent;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A client that speaks the transaction protocol request by request over a plain socket, as a
 * hostile or unusual client would: InitProducerId, AddPartitionsToTxn (version 3, as a version-1
 * transactional producer sends it) and EndTxn, with no produce at all. Each call opens its own
 * connection to the transaction coordinator; every wait is bounded.
 */
final class RawTransactionClient {

  private static final AtomicInteger CORRELATION = new AtomicInteger();

  private final String bootstrapHost;
  private final int bootstrapPort;
  private final String transactionalId;
  private InetSocketAddress coordinator;
  private long producerId = -1L;
  private short producerEpoch = -1;

  RawTransactionClient(String bootstrapServers, String transactionalId) {
    String first = bootstrapServers.split(",")[0];
    this.bootstrapHost = first.substring(0, first.lastIndexOf(':'));
    this.bootstrapPort = Integer.parseInt(first.substring(first.lastIndexOf(':') + 1));
    this.transactionalId = transactionalId;
  }

  /** FindCoordinator then InitProducerId, retried while the coordinator loads (bounded). */
  void initProducerId(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "nothing tried";
    while (System.nanoTime() < deadline) {
      FindCoordinatorResponse found =
          (FindCoordinatorResponse)
              call(
                  new InetSocketAddress(bootstrapHost, bootstrapPort),
                  new FindCoordinatorRequest.Builder(
                      new FindCoordinatorRequestData()
                          .setKeyType((byte) 1)
                          .setCoordinatorKeys(List.of(transactionalId))),
                  ApiKeys.FIND_COORDINATOR.latestVersion());
      var c = found.data().coordinators().get(0);
      if (c.errorCode() != Errors.NONE.code()) {
        last = "FindCoordinator: " + Errors.forCode(c.errorCode());
        Thread.sleep(200);
        continue;
      }
      coordinator = new InetSocketAddress(c.host(), c.port());
      InitProducerIdResponse init =
          (InitProducerIdResponse)
              call(
                  coordinator,
                  new InitProducerIdRequest.Builder(
                      new InitProducerIdRequestData()
                          .setTransactionalId(transactionalId)
                          .setTransactionTimeoutMs(60_000)
                          .setProducerId(-1L)
                          .setProducerEpoch((short) -1)),
                  (short) 4);
      if (init.error() != Errors.NONE) {
        last = "InitProducerId: " + init.error();
        Thread.sleep(200);
        continue;
      }
      producerId = init.data().producerId();
      producerEpoch = init.data().producerEpoch();
      return;
    }
    throw new IllegalStateException(
        "no producer id for " + transactionalId + " within " + timeout + "; last: " + last);
  }

  long producerId() {
    return producerId;
  }

  /** AddPartitionsToTxn version 3 (a version-1 transactional producer's add): error counts. */
  Map<Errors, Integer> addPartitions(List<TopicPartition> partitions) throws Exception {
    AbstractResponse response =
        call(
            coordinator,
            AddPartitionsToTxnRequest.Builder.forClient(
                transactionalId, producerId, producerEpoch, partitions),
            (short) 3);
    return response.errorCounts();
  }

  /** EndTxn version 4 (transaction version 1): the error. */
  Errors endTransaction(boolean commit) throws Exception {
    EndTxnResponse response =
        (EndTxnResponse)
            call(
                coordinator,
                new EndTxnRequest.Builder(
                    new EndTxnRequestData()
                        .setTransactionalId(transactionalId)
                        .setProducerId(producerId)
                        .setProducerEpoch(producerEpoch)
                        .setCommitted(commit),
                    false),
                (short) 4);
    return response.error();
  }

  private static AbstractResponse call(
      InetSocketAddress address, AbstractRequest.Builder<?> builder, short version)
      throws Exception {
    AbstractRequest request = builder.build(version);
    RequestHeader header =
        new RequestHeader(
            request.apiKey(), version, "raw-transaction-client", CORRELATION.incrementAndGet());
    ByteBuffer payload = request.serializeWithHeader(header);
    byte[] bytes = new byte[payload.remaining()];
    payload.get(bytes);
    try (Socket socket = new Socket()) {
      socket.connect(address, 10_000);
      socket.setSoTimeout(30_000);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(bytes.length);
      out.write(bytes);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] response = new byte[in.readInt()];
      in.readFully(response);
      return AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
    }
  }
}
