package dev.kafkamirror.broker.agent.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.RequestError;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzing the request parser: whatever bytes arrive, the answer is a parsed request or a typed
 * refusal (400 INVALID_REQUEST, 403 FORBIDDEN_SETTING), never another exception; and every valid
 * request the contract can write is read back exactly.
 */
class ControlRequestsFuzzTest {

  private static final Set<RequestError.Code> TYPED =
      Set.of(RequestError.Code.INVALID_REQUEST, RequestError.Code.FORBIDDEN_SETTING);

  private final ControlRequests requests = new ControlRequests();

  private void assertTypedOutcome(byte[] body, ControlCall call) {
    try {
      ControlRequests.Parsed parsed = requests.parse(body, call);
      assertThat(parsed.partitions()).isNotEmpty();
    } catch (ControlRequestException e) {
      assertThat(TYPED).contains(e.code());
      assertThat(e.getMessage()).isNotBlank();
    }
  }

  @Property(tries = 3_000)
  void arbitraryBytesGetATypedAnswer(
      @ForAll @Size(max = 600) byte[] body, @ForAll ControlCall call) {
    assertTypedOutcome(body, call);
  }

  @Property(tries = 5_000)
  void mutatedValidBodiesGetATypedAnswer(
      @ForAll("validRequests") ControlRequest request,
      @ForAll ControlCall call,
      @ForAll("mutations") Mutation mutation) {
    String json = request.toJson();
    assertTypedOutcome(mutation.apply(json).getBytes(StandardCharsets.UTF_8), call);
  }

  @Property(tries = 2_000)
  void everyValidRequestIsReadBackExactly(@ForAll("validRequests") ControlRequest request)
      throws Exception {
    ControlCall call =
        request.source() != null
            ? ControlCall.START_MIRRORING
            : request.partitions().get(0).sourceClusterId() != null
                ? ControlCall.BARRIER
                : ControlCall.DESCRIBE;
    ControlRequests.Parsed parsed =
        requests.parse(request.toJson().getBytes(StandardCharsets.UTF_8), call);
    assertThat(parsed.request()).isEqualTo(request);
  }

  /** A change to a JSON text. */
  record Mutation(int kind, int position, int length, String text) {
    String apply(String json) {
      int at = Math.min(position, json.length());
      int end = Math.min(json.length(), at + length);
      return switch (kind) {
        case 0 -> json.substring(0, at); // truncated
        case 1 -> json.substring(0, at) + json.substring(end); // a piece removed
        case 2 -> json.substring(0, at) + text + json.substring(at); // something inserted
        case 3 ->
            json.replaceAll(
                "[0-9]+",
                java.util.regex.Matcher.quoteReplacement(
                    text.isEmpty() ? "9" : "99999999999999999999" + text));
        case 4 -> json.replace("\"partition\":", "\"partition\":\"" + text + "\",\"x\":");
        case 5 ->
            json.replaceFirst(
                "\\{", java.util.regex.Matcher.quoteReplacement("{\"" + text + "\":null,"));
        default -> json.replace('"', text.isEmpty() ? '\'' : text.charAt(0));
      };
    }
  }

  @Provide
  Arbitrary<Mutation> mutations() {
    Arbitrary<String> text =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(12),
            Arbitraries.of(
                "{",
                "}",
                "[",
                "]",
                ",",
                ":",
                "null",
                "true",
                "1e400",
                "-1",
                "\"",
                "\\",
                "\u0000",
                "[[[[[[[[",
                "{\"partitions\":[]}",
                "NaN"));
    return Combinators.combine(
            Arbitraries.integers().between(0, 6),
            Arbitraries.integers().between(0, 400),
            Arbitraries.integers().between(0, 40),
            text)
        .as(Mutation::new);
  }

  @Provide
  Arbitrary<ControlRequest> validRequests() {
    Arbitrary<String> topic =
        Arbitraries.strings()
            .withChars("abcxyzABC019._-")
            .ofMinLength(1)
            .ofMaxLength(40)
            .filter(t -> !t.equals(".") && !t.equals(".."));
    Arbitrary<String> sourceId =
        Arbitraries.strings()
            .withCharRange(' ', '~')
            .ofMinLength(1)
            .ofMaxLength(30)
            .filter(s -> !s.isBlank());
    Arbitrary<Boolean> withSource = Arbitraries.of(true, false);
    Arbitrary<Boolean> start = Arbitraries.of(true, false);
    Arbitrary<Long> timeout =
        Arbitraries.oneOf(Arbitraries.just(null), Arbitraries.longs().between(1, 300_000));
    Arbitrary<List<String>> topics = topic.list().ofMinSize(1).ofMaxSize(5);
    Arbitrary<Map<String, String>> properties =
        Arbitraries.maps(
                Arbitraries.of(
                    "security.protocol",
                    "sasl.mechanism",
                    "ssl.truststore.type",
                    "client.dns.lookup",
                    "ssl.endpoint.identification.algorithm"),
                Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20))
            .ofMaxSize(3);
    return Combinators.combine(topics, sourceId, withSource, start, timeout, properties)
        .as(
            (ts, id, ws, st, t, props) -> {
              List<ControlRequest.Partition> parts = new ArrayList<>();
              for (int i = 0; i < ts.size(); i++) {
                parts.add(new ControlRequest.Partition(ts.get(i), i, !st && ws ? id : null));
              }
              if (st) {
                return new ControlRequest(
                    parts,
                    t,
                    "mirror-" + ts.size(),
                    new ControlRequest.MirrorSource(
                        "a.example:9092,[::1]:9093",
                        ws ? id.trim() : null,
                        new LinkedHashMap<>(props)));
              }
              return new ControlRequest(parts, t, null, null);
            });
  }
}
