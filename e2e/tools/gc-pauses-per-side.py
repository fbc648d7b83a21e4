#!/usr/bin/env python3
"""GC pauses of the copying broker inside each side's window of a MirrorThroughputBenchmark run.

Usage: gc-pauses-per-side.py <benchmark output> <the -DgcLog directory>

The benchmark's output must be whole (with the harness's INFO lines, which name each node's pid) and come from a
run with -DgcLog=<dir>: each node wrote <dir>/gc-<pid>.log with wall-clock times, and each side's line gives its
window ("round N: plugin from <instant> to <instant> (...)"). For every plugin and replication side, this prints
the pauses of the plugin destination's broker (node 1) or of every replication node inside the window: how many,
their sum and maximum, and how many a humongous allocation started. MirrorMaker 2's own JVM logs no GC here.
Not part of any build; a benchmark aid (docs/benchmarks.md).
"""
import datetime
import glob
import re
import sys


def instant(text):
    text = text.replace("Z", "+00:00")
    if re.search(r"[+-]\d{4}$", text):
        text = text[:-2] + ":" + text[-2:]
    return datetime.datetime.fromisoformat(text)


def main(output_path, gc_dir):
    output = open(output_path, encoding="utf-8").read()
    node_of_pid = {
        m.group(4): f"{m.group(3)}/node{m.group(1)}"
        for m in re.finditer(r"started Kafka node (\d+) \((\w+)\) of cluster (\S+) as pid (\d+)", output)
    }
    pauses = {}
    for path in glob.glob(f"{gc_dir}/gc-*.log"):
        pid = re.search(r"gc-(\d+)\.log$", path).group(1)
        found = []
        with open(path, encoding="utf-8") as log:
            for line in log:
                m = re.match(r"\[(\S+)\] GC\(\d+\) (Pause .*?) \d+M->\d+M\(\d+M\) ([\d.]+)ms", line)
                if m:
                    found.append((instant(m.group(1)), m.group(2), float(m.group(3))))
        pauses[node_of_pid.get(pid, pid)] = found
    for m in re.finditer(r"round (-?\d+): (plugin|replication) from (\S+) to (\S+) ", output):
        start, end = instant(m.group(3)), instant(m.group(4))
        if m.group(2) == "plugin":
            nodes = ["tp-plugin-dest/node1"]
        else:
            nodes = sorted(n for n in pauses if n.startswith("tp-replication/"))
        parts = []
        for node in nodes:
            inside = [p for p in pauses.get(node, []) if start <= p[0] <= end]
            parts.append(
                f"{node}: {len(inside)} pauses, {sum(p[2] for p in inside):.0f} ms,"
                f" max {max([p[2] for p in inside] or [0]):.0f} ms,"
                f" {sum(1 for p in inside if 'Humongous' in p[1])} started by a humongous allocation"
            )
        seconds = (end - start).total_seconds()
        print(f"round {m.group(1)} {m.group(2)} ({seconds:.1f} s): " + "; ".join(parts))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: gc-pauses-per-side.py <benchmark output> <the -DgcLog directory>")
    main(sys.argv[1], sys.argv[2])
