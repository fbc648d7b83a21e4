#!/usr/bin/env python3
"""Per leader barrier call of a FailoverLatencyBenchmark series, from the destination brokers' logs.

Needs the series run with -Dcmo.test.deleteWorkOnClose=false and
-Dcmo.broker.debugLoggers=dev.kafkamirror.broker.agent.StopExecutor. Usage:

  python3 docs/bench-scripts/barrier-calls.py operator/controller/target/test-work/kafka-bench-b-*

For every barrier call that recorded something: the time from its first round's line (the end of the
appends) to its last round's line, the number of stop-state writes and their time in all.
"""
import glob
import re
import statistics
import sys
from datetime import datetime

ROUND = re.compile(r"stop round (\d+) of barrier: (\d+) partitions.*?write (\d+) records (\d+) ms")
STAMP = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")


def stamp(line):
    return datetime.strptime(STAMP.match(line).group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()


calls = []
for cluster in sys.argv[1:]:
    for log in sorted(glob.glob(cluster + "/node-*/node.log")):
        current = None
        for line in open(log, errors="replace"):
            m = ROUND.search(line)
            if not m:
                continue
            if int(m.group(1)) == 1:
                current = {"log": log, "start": stamp(line), "writes": 0, "write_ms": 0}
                calls.append(current)
            if current is None:
                continue
            current["end"] = stamp(line)
            if int(m.group(3)) > 0:
                current["writes"] += 1
                current["write_ms"] += int(m.group(4))

recorded = [c for c in calls if c["writes"] > 0]
if not recorded:
    sys.exit("no barrier call with a stop-state write in " + " ".join(sys.argv[1:]))
spans = sorted(round((c["end"] - c["start"]) * 1000) for c in recorded)
print(f"{len(recorded)} barrier calls; end of the appends to the last round, ms: {spans}")
print(f"median {statistics.median(spans)} ms; writes per call: {sorted({c['writes'] for c in recorded})};"
      f" write time per call, median {statistics.median(c['write_ms'] for c in recorded)} ms")
