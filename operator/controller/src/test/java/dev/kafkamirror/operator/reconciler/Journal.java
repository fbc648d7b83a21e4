package dev.kafkamirror.operator.reconciler;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** The order in which the fakes were used, shared by them: one line per status write or call. */
final class Journal {

  private final List<String> lines = new CopyOnWriteArrayList<>();

  void add(String line) {
    lines.add(line);
  }

  List<String> lines() {
    return List.copyOf(lines);
  }

  /** The index of the first line matching {@code test}, or -1. */
  int first(Predicate<String> test) {
    List<String> copy = lines();
    for (int i = 0; i < copy.size(); i++) {
      if (test.test(copy.get(i))) {
        return i;
      }
    }
    return -1;
  }

  void clear() {
    lines.clear();
  }

  @Override
  public String toString() {
    return String.join("\n", lines);
  }
}
