package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Code inlined into a Kafka class can reach only public members of public classes of the agent: the
 * build's prebuilt-class check reports any other. (An advice that called a package-private helper
 * failed with an IllegalAccessError, which the advice suppressed: the hook did nothing, and only an
 * integration test found it.)
 */
class AdviceReachTest {

  /** Calls one member that inlined code could reach and one it could not. */
  static final class CallsHelpers {
    static void run() {
      TestFaults.anyConfigured();
      PrebuiltClassesBuilder.introducedRelocatedName(new byte[0], new byte[0]);
    }
  }

  @Test
  void aCallToAPackagePrivateMemberIsReportedAndAPublicOneIsNot() throws Exception {
    // Given the class file of code that calls a public helper and a package-private one
    byte[] classFile;
    try (InputStream in =
        CallsHelpers.class.getResourceAsStream("AdviceReachTest$CallsHelpers.class")) {
      classFile = in.readAllBytes();
    }

    // When the build's check reads it
    List<String> inaccessible =
        PrebuiltClassesBuilder.inaccessibleAgentMembers(classFile, getClass().getClassLoader());

    // Then only the package-private one is reported, by owner, name and descriptor
    assertThat(inaccessible)
        .containsExactly(
            PrebuiltClassesBuilder.class.getName()
                + ".introducedRelocatedName ([B[B)Ljava/lang/String;");
  }
}
