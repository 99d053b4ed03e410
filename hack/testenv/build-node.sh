#!/usr/bin/env bash
# testenv build-node: builds (or reuses) the parts of a real node for `TESTENV_NODES=real hack/testenv.sh up`:
# kubelet and kube-proxy (k8s.io/kubernetes at the plane's version, through the wrapper module that build.sh leaves
# in the plane's bin folder), containerd, ctr and containerd-shim-runc-v2 (-tags no_btrfs), crictl (teardown and
# debugging), the CNI plugins bridge, loopback, host-local and portmap, a TCP forwarder (the `kubernetes` Service's
# endpoint), a static pause binary, built into a local image (podman) and saved as pause.tar, and distribution's
# registry (the node's local registry, plain HTTP on the node's address). runc is Debian's.
# Called by hack/testenv.sh build-node and, with TESTENV_NODES=real, by hack/testenv.sh up; never by the default
# `make test` plane. Same caches and flags as build.sh. stdout: the node bin folder, as the last line.
# Settings (env): TESTENV_BIN (the plane's bin folder; default: hack/testenv.sh build), KUBE_VERSION,
# CONTAINERD_VERSION, CNI_PLUGINS_VERSION, CRICTL_VERSION, REGISTRY_VERSION, TESTENV_PAUSE_IMAGE, CONTAINER_TOOL
# (podman).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.36.3}
CONTAINERD_VERSION=${CONTAINERD_VERSION:-v2.4.2}
CNI_PLUGINS_VERSION=${CNI_PLUGINS_VERSION:-v1.10.0}
CRICTL_VERSION=${CRICTL_VERSION:-v1.37.0}
REGISTRY_VERSION=${REGISTRY_VERSION:-v3.1.2}
PAUSE_IMAGE=${TESTENV_PAUSE_IMAGE:-localhost/testenv/pause:1.0}
TOOL=${CONTAINER_TOOL:-podman}
CACHE_ROOT=${TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/testenv}

command -v go >/dev/null || { echo "testenv build-node: 'go' is not on PATH; Go >= 1.26 is needed" >&2; exit 1; }
command -v "$TOOL" >/dev/null || {
  echo "testenv build-node: $TOOL is needed to build the pause image; install it (as root: apt-get update && apt-get install -y --no-install-recommends $TOOL), or run TESTENV_NODES=real hack/testenv.sh up as root, which does" >&2
  exit 1
}
if [[ -z ${TESTENV_BIN:-} ]]; then TESTENV_BIN=$("$HERE/build.sh" | tail -n 1); fi
[[ -f $TESTENV_BIN/k8s-wrapper.go.mod ]] ||
  { echo "testenv build-node: $TESTENV_BIN/k8s-wrapper.go.mod is missing (hack/testenv.sh build leaves it there)" >&2; exit 1; }
export CGO_ENABLED=0 GO111MODULE=on GOWORK=off GOTOOLCHAIN=${GOTOOLCHAIN:-local}
export GOFLAGS="-modcacherw -trimpath -buildvcs=false"
export GOMODCACHE=${TESTENV_GOMODCACHE:-$CACHE_ROOT/gomod} GOCACHE=${TESTENV_GOCACHE:-$CACHE_ROOT/gobuild}

START=$(date +%s)
log() { echo "testenv build-node [$(($(date +%s) - START))s] $*" >&2; }
step() {
  local what=$1; shift
  log "start: $what"
  "$@" &
  local pid=$! rc=0 t=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1; t=$((t + 1))
    ((t % 30 == 0)) && log "  ... $what still running (${t}s)"
  done
  wait "$pid" || rc=$?
  ((rc == 0)) || { log "FAILED: $what (exit $rc)"; return "$rc"; }
  log "done: $what (${t}s)"
}

# runc: Debian's (hack/image-test.sh installs it the same way); containerd finds it by path (node-up.sh).
if [[ -z ${TESTENV_RUNC:-} ]] && ! command -v runc >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    log "installing runc from Debian's packages"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends runc; } >/dev/null 2>&1 ||
      log "apt-get install runc failed; a real node cannot start without runc"
  else
    log "runc is missing (apt-get install runc); a real node cannot start without it"
  fi
fi

self_sum=$(cat "${BASH_SOURCE[0]}" "$TESTENV_BIN/k8s-wrapper.go.mod" | sha256sum | cut -c1-12)
key="node-k8s-${KUBE_VERSION}_containerd-${CONTAINERD_VERSION}_cni-${CNI_PLUGINS_VERSION}_crictl-${CRICTL_VERSION}_registry-${REGISTRY_VERSION}_$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)_${self_sum}"
BIN=$CACHE_ROOT/bin/$key
if [[ -f $BIN/.complete ]]; then log "reusing $BIN"; echo "$BIN"; exit 0; fi

mkdir -p "$CACHE_ROOT/bin"
exec 9>"$CACHE_ROOT/.build-node.lock"
if ! flock -n 9; then log "another build holds $CACHE_ROOT/.build-node.lock; waiting"; flock 9; fi
if [[ -f $BIN/.complete ]]; then log "reusing $BIN (built meanwhile)"; echo "$BIN"; exit 0; fi
TMP=$(mktemp -d "$CACHE_ROOT/bin/.tmp-node.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out WORK=$TMP/work
mkdir -p "$OUT/cni" "$WORK/k8s" "$WORK/gobin" "$WORK/small" "$WORK/image"
log "cache $CACHE_ROOT; go $(go env GOVERSION); building into $BIN"

k8s_build() {
  local minor ld
  minor=$(cut -d. -f2 <<<"$KUBE_VERSION")
  ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  cp "$TESTENV_BIN/k8s-wrapper.go.mod" "$WORK/k8s/go.mod"
  [[ ! -f $TESTENV_BIN/k8s-wrapper.go.sum ]] || cp "$TESTENV_BIN/k8s-wrapper.go.sum" "$WORK/k8s/go.sum"
  (cd "$WORK/k8s" && go build -mod=mod -ldflags "$ld" -o "$OUT/" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)
}
containerd_build() {
  local m=github.com/containerd/containerd/v2
  (cd "$WORK" && GOBIN="$OUT" go install -tags no_btrfs -ldflags "-s -w -X $m/version.Version=$CONTAINERD_VERSION" \
    "$m/cmd/containerd@$CONTAINERD_VERSION" "$m/cmd/ctr@$CONTAINERD_VERSION" "$m/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION")
}
cni_build() {
  local m=github.com/containernetworking/plugins/plugins
  (cd "$WORK" && GOBIN="$OUT/cni" go install -ldflags "-s -w" "$m/main/bridge@$CNI_PLUGINS_VERSION" \
    "$m/main/loopback@$CNI_PLUGINS_VERSION" "$m/ipam/host-local@$CNI_PLUGINS_VERSION" "$m/meta/portmap@$CNI_PLUGINS_VERSION")
}
crictl_build() {
  (cd "$WORK" && GOBIN="$OUT" go install -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION" \
    "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION")
}
# distribution's registry: the node's local registry (node-up.sh), which containerd pulls from over plain HTTP.
registry_build() {
  (cd "$WORK" && GOBIN="$OUT" go install -ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=$REGISTRY_VERSION" \
    "github.com/distribution/distribution/v3/cmd/registry@$REGISTRY_VERSION")
}
# Two small programs of our own, standard library only: pause (the sandbox's process: waits for SIGTERM/SIGINT and
# reaps children) and testenv-forward (LISTEN_ADDR TARGET_ADDR: a TCP forwarder, the `kubernetes` Service's endpoint).
small_build() {
  mkdir -p "$WORK/small/pause" "$WORK/small/forward"
  printf 'module testenv.local/node-small\n\ngo 1.26.0\n' >"$WORK/small/go.mod"
  cat >"$WORK/small/pause/main.go" <<'GO'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 8)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range c {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
GO
  cat >"$WORK/small/forward/main.go" <<'GO'
package main

import (
	"io"
	"log"
	"net"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: testenv-forward LISTEN_ADDR TARGET_ADDR")
	}
	l, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("forwarding %s to %s", os.Args[1], os.Args[2])
	for {
		c, err := l.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer c.Close()
			t, err := net.Dial("tcp", os.Args[2])
			if err != nil {
				log.Print(err)
				return
			}
			defer t.Close()
			go func() { _, _ = io.Copy(t, c); t.(*net.TCPConn).CloseWrite() }()
			_, _ = io.Copy(c, t)
		}()
	}
}
GO
  (cd "$WORK/small" && go build -ldflags "-s -w" -o "$WORK/image/pause" ./pause && go build -ldflags "-s -w" -o "$OUT/testenv-forward" ./forward)
}
pause_image() {
  printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' >"$WORK/image/Containerfile"
  # shellcheck disable=SC2046 # container-flags.sh prints a list of flags
  "$TOOL" build -q $("$HERE/../container-flags.sh") -t "$PAUSE_IMAGE" -f "$WORK/image/Containerfile" "$WORK/image" >/dev/null
  "$TOOL" save -q --format docker-archive -o "$OUT/pause.tar" "$PAUSE_IMAGE"
  echo "$PAUSE_IMAGE" >"$OUT/pause.image"
}
step "kubelet, kube-proxy $KUBE_VERSION" k8s_build
step "containerd $CONTAINERD_VERSION" containerd_build
step "CNI plugins $CNI_PLUGINS_VERSION" cni_build
step "crictl $CRICTL_VERSION" crictl_build
step "registry $REGISTRY_VERSION" registry_build
step "pause, testenv-forward" small_build
step "pause image $PAUSE_IMAGE" pause_image
{
  "$OUT/kubelet" --version
  "$OUT/kube-proxy" --version
  "$OUT/containerd" --version
  "$OUT/crictl" --version
  "$OUT/registry" --version
  echo "CNI plugins $CNI_PLUGINS_VERSION"
  echo "pause image $PAUSE_IMAGE"
  runc --version 2>/dev/null | sed -n 1p || echo "runc: not installed"
} >"$OUT/VERSIONS" 2>&1
sed 's/^/  /' "$OUT/VERSIONS" >&2
touch "$OUT/.complete"
rm -rf "$BIN"
mv "$OUT" "$BIN"
log "built $BIN"
echo "$BIN"
