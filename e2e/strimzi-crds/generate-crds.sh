#!/usr/bin/env bash
# Generates Strimzi's CRDs for Kafka, KafkaNodePool and KafkaUser with Strimzi's own generator
# (io.strimzi.crdgenerator.CrdGenerator) over Strimzi's published model, with the arguments Strimzi's build passes
# for its install files (api/pom.xml of Strimzi 1.2.0, execution generate-crd-co-install-v1: served and stored
# version v1 only). Called by this module's build (exec-maven-plugin, generate-resources):
#   generate-crds.sh <output directory> <Strimzi version> <classpath of io.strimzi:api and io.strimzi:crd-generator>
# Strimzi 1.x is compiled for Java 21, so the generator runs in a JVM of a JDK 21 or newer: CMO_STRIMZI_JAVA if set
# (a java executable), else the first such java of $JAVA_HOME, the PATH, /usr/lib/jvm, /opt/java, ~/.sdkman and
# ~/.jdks. Without one the build fails: there is no Java 17 release of Strimzi's generator that knows the
# kafka.strimzi.io/v1 API the recipe uses (the newest for Java 11+, 0.45.0, serves v1beta2 at most).
set -euo pipefail

if [ "$#" -ne 3 ]; then
  echo "usage: $0 <output directory> <Strimzi version> <classpath>" >&2
  exit 2
fi
OUT="$1"
STRIMZI_VERSION="$2"
CLASSPATH_ARG="$3"
MIN_JAVA=21

log() { printf '[strimzi-crds] %s\n' "$*" >&2; }

# The major version of a java executable (17, 21, 25 ...), empty if it does not run: from its JDK's release file
# when there is one (no JVM started), else from the JVM's java.specification.version.
java_major() {
  local home
  home="$(dirname "$(dirname "$(readlink -f "$1")")")"
  if [ -f "$home/release" ]; then
    sed -n 's/^JAVA_VERSION="\(1\.\)\{0,1\}\([0-9][0-9]*\).*/\2/p' "$home/release" | head -1
    return 0
  fi
  "$1" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^[[:space:]]*java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -1
}

find_java() {
  if [ -n "${CMO_STRIMZI_JAVA:-}" ]; then
    local major
    major="$(java_major "$CMO_STRIMZI_JAVA" || true)"
    if [ -z "$major" ] || [ "$major" -lt "$MIN_JAVA" ]; then
      log "CMO_STRIMZI_JAVA=$CMO_STRIMZI_JAVA is not a java of version $MIN_JAVA or newer (found: '${major:-none}');" \
        "point it at the bin/java of a JDK $MIN_JAVA+ or unset it to search the usual places"
      return 1
    fi
    echo "$CMO_STRIMZI_JAVA"
    return 0
  fi
  local candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME/bin/java")
  command -v java >/dev/null 2>&1 && candidates+=("$(command -v java)")
  local dir
  for dir in /usr/lib/jvm/* /opt/java/* "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/*; do
    [ -x "$dir/bin/java" ] && candidates+=("$dir/bin/java")
  done
  local java major
  for java in "${candidates[@]}"; do
    major="$(java_major "$java" || true)"
    if [ -n "$major" ] && [ "$major" -ge "$MIN_JAVA" ]; then
      echo "$java"
      return 0
    fi
  done
  log "no java of version $MIN_JAVA or newer found (looked at \$JAVA_HOME, the PATH, /usr/lib/jvm, /opt/java," \
    "~/.sdkman, ~/.jdks): Strimzi $STRIMZI_VERSION's CRD generator is compiled for Java $MIN_JAVA. Install a JDK" \
    "$MIN_JAVA+ (the build itself stays on Java 17) or set CMO_STRIMZI_JAVA to its bin/java"
  return 1
}

JAVA="$(find_java)"
log "generating Strimzi $STRIMZI_VERSION CRDs into $OUT with $JAVA (Java $(java_major "$JAVA"))"
rm -rf "$OUT"
mkdir -p "$OUT"
"$JAVA" -classpath "$CLASSPATH_ARG" io.strimzi.crdgenerator.CrdGenerator \
  --label app:strimzi \
  --label strimzi.io/crd-install:true \
  --target-kube 1.16+ \
  --crd-api-version v1 \
  --api-versions v1 \
  --storage-version v1 \
  --yaml \
  "io.strimzi.api.kafka.model.kafka.Kafka=$OUT/040-Crd-kafka.yaml" \
  "io.strimzi.api.kafka.model.user.KafkaUser=$OUT/044-Crd-kafkauser.yaml" \
  "io.strimzi.api.kafka.model.nodepool.KafkaNodePool=$OUT/045-Crd-kafkanodepool.yaml"

for f in 040-Crd-kafka.yaml 044-Crd-kafkauser.yaml 045-Crd-kafkanodepool.yaml; do
  if [ ! -s "$OUT/$f" ]; then
    log "the generator exited without writing $OUT/$f"
    exit 1
  fi
done
printf 'strimzi.version=%s\n' "$STRIMZI_VERSION" > "$OUT/generated.properties"
log "wrote $(ls "$OUT" | tr '\n' ' ')"
