package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * spec.consumerGroups as a predicate: include patterns minus exclude patterns (which win). A
 * pattern must match the whole group id. No include pattern selects no group.
 */
public final class GroupSelector {

  /** Selects nothing: no spec.consumerGroups. */
  public static final GroupSelector NONE = new GroupSelector(List.of(), List.of());

  private final List<Pattern> include;
  private final List<Pattern> exclude;

  private GroupSelector(List<Pattern> include, List<Pattern> exclude) {
    this.include = include;
    this.exclude = exclude;
  }

  /**
   * @throws IllegalArgumentException naming the field, index and pattern when a pattern does not
   *     compile
   */
  public static GroupSelector of(List<String> include, List<String> exclude) {
    return new GroupSelector(
        compile("spec.consumerGroups.include", include),
        compile("spec.consumerGroups.exclude", exclude));
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
                + e.getDescription()
                + "; fix the pattern in the ClusterMirror",
            e);
      }
    }
    return List.copyOf(out);
  }

  /** Whether any group can be selected (no include pattern: the sync is off). */
  public boolean selectsAny() {
    return !include.isEmpty();
  }

  public boolean matches(String group) {
    if (exclude.stream().anyMatch(p -> p.matcher(group).matches())) {
      return false;
    }
    return include.stream().anyMatch(p -> p.matcher(group).matches());
  }

  /** The matching ids among {@code groups}, sorted. */
  public List<String> select(Iterable<String> groups) {
    TreeSet<String> out = new TreeSet<>();
    for (String g : groups) {
      if (matches(g)) {
        out.add(g);
      }
    }
    return List.copyOf(out);
  }
}
