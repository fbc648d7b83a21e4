package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.RequestError;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which source client settings a {@code /v1/mirror/start} call may pass to the clients the broker
 * opens towards the source. Whoever holds the control secret may choose the source's address and
 * its security settings, but must not make the broker load code or run programs: so settings that
 * name classes ({@code *.class}, such as callback handlers, login classes and {@code
 * ssl.engine.factory.class}), JAAS login modules other than Kafka's and the JDK's standard ones in
 * {@code sasl.jaas.config}, and {@code sasl.kerberos.kinit.cmd} (a program the client runs) are
 * refused unless the broker's own configuration allows them by name.
 *
 * <p>The broker allows them with {@value #ALLOWED_CLASS_SETTINGS} (a comma-separated list of
 * setting names, such as {@code sasl.login.callback.handler.class}) and {@value
 * #ALLOWED_LOGIN_MODULES} (a comma-separated list of extra login module class names).
 *
 * <p>Immutable and thread-safe.
 */
public final class SourceSettingsPolicy {

  /** Broker setting: source client settings naming classes or programs that calls may pass. */
  public static final String ALLOWED_CLASS_SETTINGS =
      "cluster.mirror.source.allowed.class.settings";

  /** Broker setting: JAAS login modules, beyond the standard ones, that calls may name. */
  public static final String ALLOWED_LOGIN_MODULES = "cluster.mirror.source.allowed.login.modules";

  /** Login modules any call may name: Kafka's own and the JDK's Kerberos module. */
  public static final Set<String> STANDARD_LOGIN_MODULES =
      Set.of(
          "org.apache.kafka.common.security.plain.PlainLoginModule",
          "org.apache.kafka.common.security.scram.ScramLoginModule",
          "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
          "com.sun.security.auth.module.Krb5LoginModule");

  /** Settings that name a program rather than a class. */
  private static final Set<String> PROGRAM_SETTINGS = Set.of("sasl.kerberos.kinit.cmd");

  /** One JAAS entry: {@code <class> <flag> [options];}. */
  private static final Pattern JAAS_ENTRY =
      Pattern.compile(
          "\\s*([^\\s;]+)\\s+(required|requisite|sufficient|optional)\\b((?:\"(?:[^\"\\\\]|\\\\.)*\"|[^;\"])*);",
          Pattern.CASE_INSENSITIVE);

  /** The policy that allows nothing beyond the standard login modules. */
  public static final SourceSettingsPolicy STRICT = new SourceSettingsPolicy(Set.of(), Set.of());

  private final Set<String> allowedClassSettings;
  private final Set<String> allowedLoginModules;

  public SourceSettingsPolicy(Set<String> allowedClassSettings, Set<String> allowedLoginModules) {
    this.allowedClassSettings = Set.copyOf(allowedClassSettings);
    Set<String> modules = new TreeSet<>(STANDARD_LOGIN_MODULES);
    modules.addAll(allowedLoginModules);
    this.allowedLoginModules = Set.copyOf(modules);
  }

  /** The policy the broker's settings ({@link #ALLOWED_CLASS_SETTINGS}, ...) describe. */
  public static SourceSettingsPolicy from(Map<String, String> brokerSettings) {
    return new SourceSettingsPolicy(
        list(brokerSettings.get(ALLOWED_CLASS_SETTINGS)),
        list(brokerSettings.get(ALLOWED_LOGIN_MODULES)));
  }

  private static Set<String> list(String value) {
    Set<String> out = new TreeSet<>();
    if (value != null) {
      for (String item : value.split(",")) {
        if (!item.isBlank()) {
          out.add(item.trim());
        }
      }
    }
    return out;
  }

  /**
   * Refuses the first setting the policy does not allow, naming its key and the broker setting that
   * would allow it; the value is never repeated (it may hold a password).
   */
  public void check(Map<String, String> properties) throws ControlRequestException {
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String key = e.getKey();
      String normalized = key.trim().toLowerCase(Locale.ROOT);
      boolean namesCode = normalized.endsWith(".class") || PROGRAM_SETTINGS.contains(normalized);
      if (namesCode && !allowedClassSettings.contains(key)) {
        throw forbidden(
            "source.properties."
                + key
                + " names "
                + (PROGRAM_SETTINGS.contains(normalized) ? "a program" : "a class")
                + " for the broker to run; it is refused unless the broker lists it in "
                + ALLOWED_CLASS_SETTINGS);
      }
      if (normalized.equals("sasl.jaas.config")) {
        for (String module : loginModules(key, e.getValue())) {
          if (!allowedLoginModules.contains(module)) {
            throw forbidden(
                "source.properties."
                    + key
                    + " names the login module "
                    + module
                    + ", which is not a standard one "
                    + new TreeSet<>(STANDARD_LOGIN_MODULES)
                    + "; it is refused unless the broker lists it in "
                    + ALLOWED_LOGIN_MODULES);
          }
        }
      }
    }
  }

  /** The login module classes of a JAAS configuration value. */
  static List<String> loginModules(String key, String jaas) throws ControlRequestException {
    List<String> modules = new ArrayList<>();
    String text = jaas == null ? "" : jaas.trim();
    Matcher m = JAAS_ENTRY.matcher(text);
    int end = 0;
    while (end < text.length()) {
      if (!m.find(end) || m.start() != end) {
        throw new ControlRequestException(
            RequestError.Code.INVALID_REQUEST,
            "source.properties."
                + key
                + " is not a JAAS configuration (<LoginModule class> required|requisite|sufficient"
                + "|optional [options];)");
      }
      modules.add(m.group(1));
      end = m.end();
      while (end < text.length() && Character.isWhitespace(text.charAt(end))) {
        end++;
      }
    }
    if (modules.isEmpty()) {
      throw new ControlRequestException(
          RequestError.Code.INVALID_REQUEST, "source.properties." + key + " names no login module");
    }
    return modules;
  }

  private static ControlRequestException forbidden(String message) {
    return new ControlRequestException(RequestError.Code.FORBIDDEN_SETTING, message);
  }
}
