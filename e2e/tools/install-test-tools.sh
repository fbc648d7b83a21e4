#!/usr/bin/env bash
# Provisions everything the test suite needs that is not a Maven artifact:
#   - kube-apiserver and kubectl (Kubernetes ${K8S_VERSION}) and etcd (${ETCD_VERSION}), built from Go modules
#     into the layout Fabric8 kube-api-test expects: $CMO_CACHE/kubeapitest/k8s/<version>-linux-amd64/
#   - helm (${HELM_VERSION}) built from Go modules into $CMO_CACHE/bin
#   - kcat, from Debian's packages
#   - lua5.4, from Debian's packages (runs the chart's Argo CD health check in ClusterMirrorLifecycleIT)
#   - cmo-kstatus (e2e/tools/kstatus: the kstatus library of sigs.k8s.io/cli-utils reading one object) into
#     $CMO_CACHE/bin, rebuilt whenever its source changes (a stamp holds the source's hash)
#   - cmo-rulecheck (e2e/tools/rulecheck: Prometheus' rule and PromQL parsers) into $CMO_CACHE/bin, rebuilt
#     whenever its source changes
# CMO_SKIP_HELM=1, CMO_SKIP_KCAT=1, CMO_SKIP_RULECHECK=1 and CMO_SKIP_LUA=1 leave out helm, kcat, cmo-rulecheck
# and lua5.4 (./demo.sh needs none of them).
# Second runs reuse the cache. If KUBEBUILDER_ASSETS points at a directory with kube-apiserver, etcd and
# kubectl, those binaries are linked into the cache layout instead of being built.
# Prints the kube-api-test directory on its last line.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.3}"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
CMO_CACHE="${CMO_CACHE:-$HOME/.cache/cluster-mirror-operator}"
K8S_MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
STAGING_VERSION="0.${K8S_MINOR}.$(echo "$K8S_VERSION" | cut -d. -f3)"
ARCH_SUFFIX="linux-amd64"
ASSETS_DIR="$CMO_CACHE/kubeapitest/k8s/${K8S_VERSION}-${ARCH_SUFFIX}"
BIN_DIR="$CMO_CACHE/bin"
WORK_DIR="$CMO_CACHE/build"
export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:--mod=mod}"

log() { printf '[install-test-tools] %s\n' "$*" >&2; }

mkdir -p "$ASSETS_DIR" "$BIN_DIR" "$WORK_DIR"

have_assets() {
  [ -x "$ASSETS_DIR/kube-apiserver" ] && [ -x "$ASSETS_DIR/etcd" ] && [ -x "$ASSETS_DIR/kubectl" ]
}

if ! have_assets && [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  for b in kube-apiserver etcd kubectl; do
    if [ ! -x "$KUBEBUILDER_ASSETS/$b" ]; then
      log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable '$b'; building instead"
      break
    fi
  done
  if [ -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] && [ -x "$KUBEBUILDER_ASSETS/etcd" ] && [ -x "$KUBEBUILDER_ASSETS/kubectl" ]; then
    log "using binaries from KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
    for b in kube-apiserver etcd kubectl; do ln -sf "$KUBEBUILDER_ASSETS/$b" "$ASSETS_DIR/$b"; done
  fi
fi

build_kubernetes() {
  local dir="$WORK_DIR/k8s-$K8S_VERSION"
  mkdir -p "$dir" && cd "$dir"
  if [ ! -f go.mod ]; then
    go mod init local.invalid/cmo-k8s-bins >/dev/null 2>&1
    go mod edit -go=1.26.0
    # k8s.io/kubernetes requires its ~33 staging modules at v0.0.0 and maps them with local replaces that
    # consumers never see; read the list from the module's own go.mod, served by the Go module proxy.
    local gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    local count=0
    for m in $(sed -n 's|^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/src/.*|\1|p' "$gomod"); do
      go mod edit "-replace=${m}=${m}@v${STAGING_VERSION}"
      count=$((count + 1))
    done
    log "replaced $count staging modules with v${STAGING_VERSION}"
    cat > tools.go <<GO
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    go get "k8s.io/kubernetes@v${K8S_VERSION}"
    go mod tidy >/dev/null 2>&1 || true
  fi
  local ldf="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X ${p}.gitVersion=v${K8S_VERSION} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${K8S_MINOR} -X ${p}.gitTreeState=clean"
  done
  log "building kube-apiserver v${K8S_VERSION} (several minutes on 2 cores)"
  go build -trimpath -ldflags "$ldf" -o "$ASSETS_DIR/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$ASSETS_DIR/kube-apiserver.tmp" "$ASSETS_DIR/kube-apiserver"
  log "building kubectl v${K8S_VERSION}"
  go build -trimpath -ldflags "$ldf" -o "$ASSETS_DIR/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl
  mv "$ASSETS_DIR/kubectl.tmp" "$ASSETS_DIR/kubectl"
}

build_etcd() {
  local dir="$WORK_DIR/etcd-$ETCD_VERSION"
  mkdir -p "$dir" && cd "$dir"
  if [ ! -f go.mod ]; then
    go mod init local.invalid/cmo-etcd-bin >/dev/null 2>&1
    cat > tools.go <<GO
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
    go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
    go mod tidy >/dev/null 2>&1 || true
  fi
  log "building etcd ${ETCD_VERSION}"
  go build -trimpath -ldflags "-s -w" -o "$ASSETS_DIR/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$ASSETS_DIR/etcd.tmp" "$ASSETS_DIR/etcd"
}

build_helm() {
  log "building helm ${HELM_VERSION}"
  GOBIN="$BIN_DIR" go install -ldflags "-s -w \
    -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${K8S_MINOR} \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${K8S_MINOR}" \
    "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
}

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KSTATUS_SRC="$SCRIPT_DIR/kstatus"

kstatus_source_hash() {
  cat "$KSTATUS_SRC/main.go" "$KSTATUS_SRC/go.mod" "$KSTATUS_SRC/go.sum" | sha256sum | cut -d' ' -f1
}

build_kstatus() {
  log "building cmo-kstatus (sigs.k8s.io/cli-utils kstatus) from $KSTATUS_SRC"
  (cd "$KSTATUS_SRC" && go build -trimpath -ldflags "-s -w" -o "$BIN_DIR/cmo-kstatus.tmp" .)
  mv "$BIN_DIR/cmo-kstatus.tmp" "$BIN_DIR/cmo-kstatus"
  kstatus_source_hash > "$BIN_DIR/cmo-kstatus.stamp"
}

RULECHECK_SRC="$SCRIPT_DIR/rulecheck"

rulecheck_source_hash() {
  cat "$RULECHECK_SRC/main.go" "$RULECHECK_SRC/go.mod" "$RULECHECK_SRC/go.sum" | sha256sum | cut -d' ' -f1
}

build_rulecheck() {
  log "building cmo-rulecheck (Prometheus rulefmt and PromQL parser) from $RULECHECK_SRC"
  (cd "$RULECHECK_SRC" && go build -trimpath -ldflags "-s -w" -o "$BIN_DIR/cmo-rulecheck.tmp" .)
  mv "$BIN_DIR/cmo-rulecheck.tmp" "$BIN_DIR/cmo-rulecheck"
  rulecheck_source_hash > "$BIN_DIR/cmo-rulecheck.stamp"
}

install_kcat() {
  if command -v kcat >/dev/null 2>&1; then return; fi
  log "installing kcat from Debian's packages"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq kcat >/dev/null
}

install_lua() {
  if command -v lua5.4 >/dev/null 2>&1; then return; fi
  log "installing lua5.4 from Debian's packages"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq lua5.4 >/dev/null
}

command -v go >/dev/null || { log "Go is required to build kube-apiserver, etcd and helm (go not on PATH)"; exit 1; }

[ -x "$ASSETS_DIR/kube-apiserver" ] && [ -x "$ASSETS_DIR/kubectl" ] || (build_kubernetes)
[ -x "$ASSETS_DIR/etcd" ] || (build_etcd)
[ "${CMO_SKIP_HELM:-}" = "1" ] || [ -x "$BIN_DIR/helm" ] || (build_helm)
if [ ! -x "$BIN_DIR/cmo-kstatus" ] || [ "$(cat "$BIN_DIR/cmo-kstatus.stamp" 2>/dev/null)" != "$(kstatus_source_hash)" ]; then
  build_kstatus
fi
if [ "${CMO_SKIP_RULECHECK:-}" != "1" ] && { [ ! -x "$BIN_DIR/cmo-rulecheck" ] \
    || [ "$(cat "$BIN_DIR/cmo-rulecheck.stamp" 2>/dev/null)" != "$(rulecheck_source_hash)" ]; }; then
  build_rulecheck
fi
[ "${CMO_SKIP_KCAT:-}" = "1" ] || install_kcat
[ "${CMO_SKIP_LUA:-}" = "1" ] || install_lua

"$ASSETS_DIR/kube-apiserver" --version >&2
# sed, not head: head exits early and the writer dies of SIGPIPE, which pipefail turns into a failure.
"$ASSETS_DIR/etcd" --version | sed -n 1p >&2
if [ -x "$BIN_DIR/helm" ]; then "$BIN_DIR/helm" version --short >&2; fi
if command -v kcat >/dev/null; then kcat -V 2>&1 | sed -n 1p >&2; fi
if command -v lua5.4 >/dev/null; then lua5.4 -v >&2; fi
echo "$CMO_CACHE/kubeapitest"
