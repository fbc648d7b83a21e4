package dev.kafkamirror.operator.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How the operator logs, from its environment, applied before the first logger exists (Log4j2
 * behind slf4j; the configuration is {@code log4j2.xml} of this module, docs/operator.md
 * "Observability &gt; Logs").
 *
 * <ul>
 *   <li>{@code CMO_LOG_FORMAT}: {@code json} (the default: one JSON object per line) or {@code
 *       plain} (text for humans).
 *   <li>{@code CMO_LOG_LEVEL}: the root level at start ({@code trace}, {@code debug}, {@code info}
 *       (default), {@code warn}, {@code error}, {@code off}; any case).
 *   <li>{@code CMO_LOG_LEVELS_FILE}: a Log4j2 properties file whose levels ({@code
 *       rootLogger.level}, {@code logger.<id>.name}/{@code .level}) override the ones above and
 *       that Log4j re-reads every {@code monitorInterval} seconds: the way to change a level
 *       without a restart (the chart mounts it from a ConfigMap).
 * </ul>
 *
 * <p>Invariant: {@link #configure} either sets all of {@code cmo.log.format}, {@code cmo.log.level}
 * (and, with a levels file, {@code log4j2.configurationFile}) to valid values, or throws naming the
 * variable and its value and sets nothing. A {@code log4j2.configurationFile} the user already set
 * is left alone.
 */
public final class OperatorLogging {

  /** The format variable. */
  public static final String FORMAT = "CMO_LOG_FORMAT";

  /** The start level variable. */
  public static final String LEVEL = "CMO_LOG_LEVEL";

  /** The re-read levels file variable. */
  public static final String LEVELS_FILE = "CMO_LOG_LEVELS_FILE";

  /** The system property log4j2.xml reads the format from (an appender's name). */
  public static final String FORMAT_PROPERTY = "cmo.log.format";

  /** The system property log4j2.xml reads the root level from. */
  public static final String LEVEL_PROPERTY = "cmo.log.level";

  /** Log4j's property naming its configuration sources, comma-separated. */
  public static final String LOG4J_CONFIGURATION = "log4j2.configurationFile";

  /** The operator's own configuration, in its jar. */
  public static final String BASE_CONFIGURATION = "classpath:log4j2.xml";

  private static final Set<String> FORMATS = Set.of("json", "plain");
  private static final Set<String> LEVELS =
      Set.of("trace", "debug", "info", "warn", "error", "off");

  private OperatorLogging() {}

  /**
   * Validates the logging variables of {@code env} and sets the system properties log4j2.xml reads.
   * Call before anything logs.
   *
   * @throws IllegalArgumentException naming the variable, its value and the accepted values
   */
  public static void configure(Map<String, String> env) {
    String format = format(env);
    String level = level(env);
    String levelsFile = levelsFile(env);
    System.setProperty(FORMAT_PROPERTY, format);
    System.setProperty(LEVEL_PROPERTY, level);
    if (levelsFile != null && System.getProperty(LOG4J_CONFIGURATION) == null) {
      System.setProperty(LOG4J_CONFIGURATION, configurationSources(levelsFile));
    }
  }

  /** The Log4j configuration sources with a levels file: the operator's, then the file's levels. */
  public static String configurationSources(String levelsFile) {
    return BASE_CONFIGURATION + "," + levelsFile;
  }

  /** {@code CMO_LOG_FORMAT}, lower case; {@code json} when unset or blank. */
  static String format(Map<String, String> env) {
    return oneOf(env, FORMAT, "json", FORMATS);
  }

  /** {@code CMO_LOG_LEVEL}, lower case; {@code info} when unset or blank. */
  static String level(Map<String, String> env) {
    return oneOf(env, LEVEL, "info", LEVELS);
  }

  /** {@code CMO_LOG_LEVELS_FILE}, or null when unset or blank; the file must exist. */
  static String levelsFile(Map<String, String> env) {
    String file = env.get(LEVELS_FILE);
    if (file == null || file.isBlank()) {
      return null;
    }
    if (!Files.isRegularFile(Path.of(file.trim()))) {
      throw new IllegalArgumentException(
          LEVELS_FILE
              + " names '"
              + file
              + "', which is not a readable file; unset "
              + LEVELS_FILE
              + " or mount the levels file there");
    }
    return file.trim();
  }

  private static String oneOf(
      Map<String, String> env, String name, String fallback, Set<String> accepted) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    String normalized = value.trim().toLowerCase(Locale.ROOT);
    if (!accepted.contains(normalized)) {
      throw new IllegalArgumentException(
          name
              + " must be one of "
              + accepted.stream().sorted().toList()
              + " (any case), got '"
              + value
              + "'");
    }
    return normalized;
  }
}
