package dev.kafkamirror.operator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

class SharedKafkaAdminsTest {

  /** An Admin that counts its closes; nothing else may be called. */
  private static final class CountingAdmin {
    final AtomicInteger closes = new AtomicInteger();
    final Admin admin =
        (Admin)
            Proxy.newProxyInstance(
                Admin.class.getClassLoader(),
                new Class<?>[] {Admin.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "close" -> {
                      closes.incrementAndGet();
                      return null;
                    }
                    case "hashCode" -> {
                      return System.identityHashCode(proxy);
                    }
                    case "equals" -> {
                      return proxy == args[0];
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                  }
                });
  }

  private final List<CountingAdmin> opened = new ArrayList<>();
  private final SharedKafkaAdmins shared =
      new SharedKafkaAdmins(
          props -> {
            CountingAdmin a = new CountingAdmin();
            opened.add(a);
            return a.admin;
          });

  private static Properties settings(String bootstrap, String password) {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap);
    p.setProperty("sasl.jaas.config", "password=" + password);
    return p;
  }

  @Test
  void clientsOfTheSameClusterAndSettingsShareOneAdminClosedWithTheLastOfThem() {
    // Given two ClusterMirrors' clients of the same source with the same settings
    ClusterAdmin first = shared.open("source of ns/a", settings("a:9092", "x"), 5_000);
    ClusterAdmin second = shared.open("source of ns/b", settings("a:9092", "x"), 5_000);

    // Then one Admin serves both
    assertThat(opened).hasSize(1);
    assertThat(shared.openAdmins()).isEqualTo(1);

    // When the first is closed, twice
    first.close();
    first.close();

    // Then the Admin stays open for the second
    assertThat(opened.get(0).closes).hasValue(0);

    // When the second is closed too
    second.close();

    // Then the Admin is closed, once, and forgotten
    assertThat(opened.get(0).closes).hasValue(1);
    assertThat(shared.openAdmins()).isZero();

    // And a new client of those settings gets a new Admin
    shared.open("source of ns/c", settings("a:9092", "x"), 5_000).close();
    assertThat(opened).hasSize(2);
  }

  @Test
  void clientsWhoseSettingsDifferInAnythingGetAdminsOfTheirOwn() {
    // Given clients of the same cluster with other credentials, of another cluster, and with
    // another timeout
    shared.open("source of ns/a", settings("a:9092", "x"), 5_000);
    shared.open("source of ns/b", settings("a:9092", "y"), 5_000);
    shared.open("source of ns/c", settings("b:9092", "x"), 5_000);
    shared.open("source of ns/d", settings("a:9092", "x"), 9_000);

    // Then none shares another's Admin (no ClusterMirror uses another's credentials)
    assertThat(opened).hasSize(4);
  }

  @Test
  void aSharedClientsErrorsNameItsOwnClusterMirror() {
    // Given two ClusterMirrors' clients over one real Admin of a cluster nobody listens for
    SharedKafkaAdmins real = new SharedKafkaAdmins();
    Properties nowhere = new Properties();
    nowhere.setProperty("bootstrap.servers", "127.0.0.1:1");
    ClusterAdmin first = real.open("source of ns/a", nowhere, 300);
    ClusterAdmin second = real.open("source of ns/b", nowhere, 300);
    try {
      assertThat(real.openAdmins()).isEqualTo(1);

      // When a call of the second fails
      // Then its error names the second, not the first that opened the Admin
      assertThatThrownBy(second::clusterId)
          .hasMessageContaining("source of ns/b")
          .hasMessageNotContaining("ns/a");
    } finally {
      first.close();
      second.close();
    }
    assertThat(real.openAdmins()).isZero();
  }
}
