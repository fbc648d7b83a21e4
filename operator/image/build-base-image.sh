#!/usr/bin/env bash
# Builds the operator image's offline base: a Java 17 runtime composed from the Debian packages pinned in
# base-packages.lock (version and SHA-256 of each .deb), written as a `docker save`-style tarball that Jib
# reads with `tar://` (see operator/controller/pom.xml and docs/install.md).
#
#   build-base-image.sh [--skip=true|false] OUTPUT.tar
#
# - Downloads each pinned .deb with `apt-get download <package>=<version>` into a cache
#   ($CMO_CACHE/image/debs, CMO_CACHE defaults to ~/.cache/cluster-mirror-operator) and refuses any file
#   whose SHA-256 is not the pinned one. Nothing else is fetched: no registry, no base image.
# - Unpacks them (dpkg-deb -x, no maintainer scripts) into one root filesystem, adds /etc/passwd and
#   /etc/group with the numeric non-root user 65532, a world-writable /tmp and an empty /proc.
# - Writes one layer with sorted names, owner 0:0 and every mtime at the lock's SOURCE_DATE_EPOCH, gzip
#   without a name or time: the same lock gives the same bytes, so Jib's layer cache keeps it.
# - Does nothing when OUTPUT.tar exists and OUTPUT.tar.id names this lock and this script (incremental).
#
# Exit codes: 0 built or up to date; 1 a download failed or a checksum differs (the message names the
# package, the version and both checksums); 2 usage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock="$here/base-packages.lock"
case "${1:-}" in
  --skip=true) echo "base image: skipped (cmo.image.skip=true)"; exit 0 ;;
  --skip=*) shift ;;
esac
out="${1:-}"
if [[ -z "$out" ]]; then
  echo "usage: $0 OUTPUT.tar" >&2
  exit 2
fi
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

id="$(cat "$lock" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
if [[ -f "$out" && -f "$out.id" && "$(cat "$out.id")" == "$id" ]]; then
  echo "base image $out is up to date (id $id)"
  exit 0
fi

for tool in apt-get dpkg-deb tar gzip sha256sum; do
  command -v "$tool" >/dev/null || { echo "build-base-image.sh needs $tool (a Debian or Ubuntu host)" >&2; exit 1; }
done

cache="${CMO_CACHE:-$HOME/.cache/cluster-mirror-operator}/image/debs"
mkdir -p "$cache"
work="$(mktemp -d "${TMPDIR:-/tmp}/cmo-base-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs"

epoch=""
packages=()
while read -r name version sum; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [[ "$name" == SOURCE_DATE_EPOCH ]]; then
    epoch="$version"
    continue
  fi
  packages+=("$name=$version")
  # apt-get download names the file <name>_<version with ':' as %3a>_<arch>.deb
  file="$cache/${name}_${version//:/%3a}_amd64.deb"
  if [[ ! -f "$file" ]]; then
    echo "downloading $name=$version"
    if ! (cd "$cache" && apt-get download -q "$name=$version" >/dev/null 2>"$work/apt.err"); then
      echo "cannot download $name=$version with apt-get: $(tail -n 3 "$work/apt.err")" >&2
      echo "If the Debian mirror no longer carries that version, pin the current one in $lock" >&2
      echo "(apt-cache policy $name; apt-get download $name; sha256sum the .deb), or put the pinned .deb" >&2
      echo "into $cache (for example from snapshot.debian.org)." >&2
      exit 1
    fi
  fi
  actual="$(sha256sum "$file" | cut -d' ' -f1)"
  if [[ "$actual" != "$sum" ]]; then
    echo "checksum mismatch for $name=$version ($file): pinned $sum, got $actual;" \
      "the file was not used. Delete it and run again, or check where it came from." >&2
    exit 1
  fi
  dpkg-deb -x "$file" "$rootfs"
done <"$lock"
[[ -n "$epoch" ]] || { echo "$lock has no SOURCE_DATE_EPOCH line" >&2; exit 1; }

# What a container needs beyond the packages: users, /tmp, /proc; no manual pages or changelogs (the
# copyright files stay).
rm -rf "$rootfs/usr/share/man"
find "$rootfs/usr/share/doc" -name 'changelog*' -delete
mkdir -p "$rootfs/tmp" "$rootfs/proc" "$rootfs/home/nonroot" "$rootfs/root" "$rootfs/etc"
chmod 1777 "$rootfs/tmp"
chmod 0700 "$rootfs/root"
cat >"$rootfs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
cat >"$rootfs/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
cat >"$rootfs/etc/nsswitch.conf" <<'EOF'
passwd: files
group: files
hosts: files dns
EOF
printf '%s\n' "${packages[@]}" >"$rootfs/etc/cmo-base-packages"

deterministic_tar() { # $1 archive, $2 directory, rest: entries
  local archive="$1" dir="$2"
  shift 2
  tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    -C "$dir" -cf "$archive" "$@"
}

image="$work/image"
mkdir -p "$image"
(cd "$rootfs" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | LC_ALL=C sort) >"$work/entries"
mapfile -t entries <"$work/entries"
deterministic_tar "$work/layer.tar" "$rootfs" "${entries[@]}"
diff_id="$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
gzip -n -6 -c "$work/layer.tar" >"$image/layer.tar.gz"
created="$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)"
lock_sum="$(sha256sum "$lock" | cut -d' ' -f1)"
jre="/usr/lib/jvm/java-17-openjdk-amd64"
cat >"$image/config.json" <<EOF
{"architecture":"amd64","os":"linux","created":"$created","config":{"User":"65532:65532","Env":["PATH=$jre/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$jre","LANG=C.UTF-8"],"WorkingDir":"/","Labels":{"dev.kafkamirror.base.packages":"$(IFS=' '; echo "${packages[*]}")","dev.kafkamirror.base.lock-sha256":"$lock_sum"}},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created":"$created","created_by":"operator/image/build-base-image.sh from base-packages.lock (sha256 $lock_sum)"}]}
EOF
cat >"$image/manifest.json" <<EOF
[{"Config":"config.json","RepoTags":["cluster-mirror-operator-base:jre17"],"Layers":["layer.tar.gz"]}]
EOF
deterministic_tar "$work/base.tar" "$image" config.json layer.tar.gz manifest.json
mv -f "$work/base.tar" "$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
echo "$id" >"$out.id"
echo "base image $out: layer diff id sha256:$diff_id, $(du -h "$out" | cut -f1)"
