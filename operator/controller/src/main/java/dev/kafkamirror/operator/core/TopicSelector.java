package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * spec.topics as a predicate: exact names and include patterns, minus exclude patterns (which win).
 * Patterns must match the whole topic name. Internal topics (starting with {@code __}) never match.
 */
public final class TopicSelector {

  private final Set<String> names;
  private final List<Pattern> include;
  private final List<Pattern> exclude;

  private TopicSelector(Set<String> names, List<Pattern> include, List<Pattern> exclude) {
    this.names = names;
    this.include = include;
    this.exclude = exclude;
  }

  /**
   * @throws IllegalArgumentException naming the field and the pattern when a pattern does not
   *     compile
   */
  public static TopicSelector of(List<String> names, List<String> include, List<String> exclude) {
    return new TopicSelector(
        names == null ? Set.of() : new TreeSet<>(names),
        compile("spec.topics.include", include),
        compile("spec.topics.exclude", exclude));
  }

  private static List<Pattern> compile(String field, List<String> patterns) {
    List<Pattern> out = new ArrayList<>();
    if (patterns == null) {
      return out;
    }
    for (int i = 0; i < patterns.size(); i++) {
      try {
        out.add(Pattern.compile(patterns.get(i)));
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(
            field
                + "["
                + i
                + "] '"
                + patterns.get(i)
                + "' is not a valid pattern: "
                + e.getDescription(),
            e);
      }
    }
    return out;
  }

  public boolean matches(String topic) {
    if (topic.startsWith("__")) {
      return false;
    }
    if (exclude.stream().anyMatch(p -> p.matcher(topic).matches())) {
      return false;
    }
    return names.contains(topic) || include.stream().anyMatch(p -> p.matcher(topic).matches());
  }

  /** Whether include patterns select topics (then only a topic listing knows the selection). */
  public boolean hasPatterns() {
    return !include.isEmpty();
  }

  /** The exact names of the spec (which may not exist yet). */
  public Set<String> names() {
    return names;
  }

  /** The matching topics among {@code available}, sorted. */
  public List<String> select(Iterable<String> available) {
    TreeSet<String> out = new TreeSet<>();
    for (String topic : available) {
      if (matches(topic)) {
        out.add(topic);
      }
    }
    return List.copyOf(out);
  }
}
