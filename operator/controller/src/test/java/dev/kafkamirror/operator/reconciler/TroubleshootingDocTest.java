package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.core.Reasons;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md names every reason a user can meet in a condition or an Event of the
 * operator: a reason added in code without its entry fails here.
 */
class TroubleshootingDocTest {

  private static final Path DOC =
      Path.of(System.getProperty("cmo.docs.dir", "../../docs"), "troubleshooting.md");

  @Test
  void everyConditionReasonAndEventReasonOfTheOperatorIsExplained() throws Exception {
    // Given the reasons the operator can write
    List<String> reasons = new ArrayList<>();
    for (Field f : Reasons.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        reasons.add((String) f.get(null));
      }
    }
    reasons.add("StopStarted");
    reasons.add(FailbackReports.EVENT_REASON);
    reasons.add(FailbackReports.KEPT_REASON);
    reasons.add(FailbackReports.KEEP_FAILED_REASON);
    reasons.add(TopicConfigSync.CORRECTED);
    reasons.add(TopicConfigSync.FAILED);

    // When the troubleshooting page is read
    String doc = Files.readString(DOC);

    // Then each is named there, in code style
    assertThat(reasons).hasSizeGreaterThan(20);
    assertThat(reasons)
        .allSatisfy(
            r ->
                assertThat(doc)
                    .as("docs/troubleshooting.md explains reason " + r)
                    .contains("`" + r + "`"));
  }
}
