#!/usr/bin/env bash
# The local failover demo (the README's main job): builds what it needs, then starts a source and a destination
# Kafka cluster with the plugin, a kube-apiserver and the operator on this machine, fails over and verifies.
# First run: the Kubernetes binaries are built from Go modules (about 9 minutes on 2 cores) and cached under
# ~/.cache/cluster-mirror-operator; later runs start in about a minute.
# ./demo.sh --failback adds a failback leg: A comes back, is aligned to B and mirrors it, then a planned
# switchback makes A writable again behind its own barrier.
set -euo pipefail
failback=false
for arg in "$@"; do
  case "$arg" in
    --failback) failback=true ;;
    -h|--help) echo "usage: ./demo.sh [--failback]"; exit 0 ;;
    *) echo "unknown argument: $arg (usage: ./demo.sh [--failback])" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")"
log_dir="${TMPDIR:-/tmp}/cluster-mirror-demo"
mkdir -p "$log_dir"
echo "Preparing: kube-apiserver, etcd and kubectl (cached after the first run) ... log: $log_dir/tools.log"
# The demo uses neither helm, kcat nor cmo-rulecheck: do not build or install them here (the test suite does).
CMO_SKIP_HELM=1 CMO_SKIP_KCAT=1 CMO_SKIP_RULECHECK=1 CMO_SKIP_LUA=1 bash e2e/tools/install-test-tools.sh >"$log_dir/tools.log" 2>&1 || { tail -20 "$log_dir/tools.log"; exit 1; }
echo "Preparing: building the plugin, the operator and the demo ... log: $log_dir/build.log"
./mvnw -B -q install -DskipTests -Dcmo.install.skip=true -pl e2e/demo -am >"$log_dir/build.log" 2>&1 \
  || { tail -40 "$log_dir/build.log"; exit 1; }
exec ./mvnw -B -q -pl e2e/demo exec:exec -Dcmo.demo.failback="$failback"
