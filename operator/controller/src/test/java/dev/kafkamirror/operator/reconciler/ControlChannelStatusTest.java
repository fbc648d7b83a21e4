package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.DestinationCluster;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import org.junit.jupiter.api.Test;

class ControlChannelStatusTest {

  @Test
  void aMirrorWithoutATrustedCaIsReportedInsecurePlaintextAndOneWithItTls() {
    ClusterMirror cr = new ClusterMirror();
    ClusterMirrorSpec spec = new ClusterMirrorSpec();
    DestinationCluster destination = new DestinationCluster();
    ControlEndpoint control = new ControlEndpoint();
    destination.setControl(control);
    spec.setDestination(destination);
    cr.setSpec(spec);
    assertThat(StatusRecorder.controlChannel(cr)).isEqualTo("InsecurePlaintext");
    SecretKeyRef ca = new SecretKeyRef();
    ca.setName("control-ca");
    ca.setKey("ca.crt");
    control.setTlsTrustedCertificate(ca);
    assertThat(StatusRecorder.controlChannel(cr)).isEqualTo("TLS");
  }
}
