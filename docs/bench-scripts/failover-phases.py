#!/usr/bin/env python3
"""Where each run of a FailoverLatencyBenchmark series goes, from its console output (the operator's
debug log is in it). Usage:

  ./mvnw ... -Dit.test=FailoverLatencyBenchmark ... > /tmp/bench.log 2>&1
  python3 docs/bench-scripts/failover-phases.py /tmp/bench.log

Per run, in seconds: the patch to the stop's reconcile, to stopStartedAt written, each round of the stop
(named by its action), the last round to Stopped=True computed, and the final status write (its end).
"""
import re
import sys

PATCH = re.compile(r"(\w+) run (\d+): patching spec.state at \S+T(\d\d:\d\d:\d\d\.\d{3})")
TOTAL = re.compile(r"(\w+) run (\d+): (\d+) ms$")
ROUND = re.compile(r"round=\d+ observeMs=\d+ .*?actMs=\d+ actions=\{(\w+)")
WRITE = re.compile(r"status recorded: Events \d+ ms, status write (\d+) ms")


def secs(hms):
    h, m, s = hms.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


runs, current, last = [], None, None
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = PATCH.search(line)
    if m:
        current = {"name": f"{m.group(1)} {m.group(2)}", "patch": secs(m.group(3)), "rounds": []}
        runs.append(current)
        continue
    m = TOTAL.search(line)
    if m and current is not None:
        current["total"] = int(m.group(3)) / 1000
        last, current = current, None
        continue
    if not re.match(r"\d\d:\d\d:\d\d\.\d{3} ", line):
        continue
    t = secs(line[:12])
    if current is None:
        # the final status write may be logged after the benchmark saw it
        if last is not None and "stopped" in last and "final" not in last and WRITE.search(line):
            last["final"] = t
        continue
    if "reconcile begins" in line and "target=STOPPED" in line and "begin" not in current:
        current["begin"] = t
    elif " stop started" in line:
        current["started"] = t
    elif "begin" in current and ROUND.search(line):
        current["rounds"].append((ROUND.search(line).group(1).lower().replace("_", "-"), t))
    elif "Stopped=True" in line and "stopped" not in current:
        current["stopped"] = t
    elif "stopped" in current and "final" not in current and WRITE.search(line):
        current["final"] = t

print("| run | total | patch to the stop's reconcile | to stopStartedAt written | rounds"
      " | to Stopped=True computed | status write |")
print("|---|---:|---:|---:|---|---:|---:|")
for r in runs:
    if "total" not in r or "started" not in r or "stopped" not in r:
        continue
    previous, steps = r["started"], []
    for action, t in r["rounds"]:
        steps.append(f"{action} {t - previous:.2f}")
        previous = t
    final = f"{r['final'] - r['stopped']:.2f}" if "final" in r else "?"
    print(f"| {r['name']} | {r['total']:.2f} | {r['begin'] - r['patch']:.2f} | {r['started'] - r['begin']:.2f}"
          f" | {' · '.join(steps)} | {r['stopped'] - previous:.2f} | {final} |")
