#!/usr/bin/env bash
# testenv build: builds (or reuses) etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok,
# helm v3 and helm v4 from Go modules into a versioned cache outside the repository. Called by hack/testenv.sh build.
# stdout: the bin folder, as the last line. Progress (step + elapsed seconds) goes to stderr.
# Never downloads anything but Go modules, and never writes inside the repository.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.36.3}
KUBE_TOOLS=${KUBE_TOOLS:-"kube-apiserver kube-controller-manager kube-scheduler kubectl"}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
HELM3_VERSION=${HELM3_VERSION-v3.22.0}   # "" = skip
HELM4_VERSION=${HELM4_VERSION-v4.3.1}    # "" = skip
KWOK_VERSION=${KWOK_VERSION-v0.8.0}      # "" = skip (a plane without nodes needs no kwok)
CACHE_ROOT=${TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/testenv}

command -v go >/dev/null || { echo "testenv build: 'go' is not on PATH; Go >= 1.26 is needed to build the test binaries (or use TEST_CLUSTER=existing)" >&2; exit 1; }
export CGO_ENABLED=0 GO111MODULE=on GOWORK=off GOTOOLCHAIN=${GOTOOLCHAIN:-local}
export GOFLAGS="-modcacherw -trimpath -buildvcs=false"
export GOMODCACHE=${TESTENV_GOMODCACHE:-$CACHE_ROOT/gomod} GOCACHE=${TESTENV_GOCACHE:-$CACHE_ROOT/gobuild}

START=$(date +%s)
log() { echo "testenv build [$(($(date +%s) - START))s] $*" >&2; }
# run a long step with a heartbeat every 30 s so that a silent go build is visibly alive
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

# The key covers every input: versions, tool list, Go version and platform, and this script's own text.
self_sum=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)
key="k8s-${KUBE_VERSION}-${KUBE_TOOLS// /+}_etcd-${ETCD_VERSION}_helm-${HELM3_VERSION:-none}-${HELM4_VERSION:-none}_kwok-${KWOK_VERSION:-none}_$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)_${self_sum}"
BIN=$CACHE_ROOT/bin/$key
if [[ -f $BIN/.complete ]]; then log "reusing $BIN"; echo "$BIN"; exit 0; fi

mkdir -p "$CACHE_ROOT/bin"
exec 9>"$CACHE_ROOT/.build.lock"
if ! flock -n 9; then log "another build holds $CACHE_ROOT/.build.lock; waiting"; flock 9; fi
if [[ -f $BIN/.complete ]]; then log "reusing $BIN (built meanwhile)"; echo "$BIN"; exit 0; fi
TMP=$(mktemp -d "$CACHE_ROOT/bin/.tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out WORK=$TMP/work
mkdir -p "$OUT" "$WORK/k8s" "$WORK/etcd" "$WORK/helm" "$WORK/kwok"
log "cache $CACHE_ROOT; go $(go env GOVERSION); building into $BIN"

# ---------- kubernetes: a wrapper module that repeats every ./staging replace of k8s.io/kubernetes ----------
k8s_gomod() {
  local sv="v0.${KUBE_VERSION#v1.}" kmod
  printf 'module testenv.local/k8s-bins\n\ngo 1.26.0\n' >"$WORK/k8s/go.mod"
  kmod=$(cd "$WORK/k8s" && go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
    sed -n -E 's/^[[:space:]]*"GoMod": "(.*)",?$/\1/p')
  [[ -f $kmod ]] || { echo "could not download k8s.io/kubernetes@$KUBE_VERSION go.mod" >&2; return 1; }
  {
    printf 'module testenv.local/k8s-bins\n\ngo 1.26.0\n\n'
    grep -E '^godebug ' "$kmod" || true
    printf '\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$KUBE_VERSION"
    sed -n -E "s#^[[:space:]]*(k8s\.io/[A-Za-z0-9._-]+) => \./staging/src/.*#\t\1 => \1 ${sv}#p" "$kmod"
    printf ')\n'
  } >"$WORK/k8s/go.mod"
  log "  staging replaces: $(grep -c ' => k8s.io/' "$WORK/k8s/go.mod")"
}
k8s_build() {
  local minor ld pkgs=()
  minor=$(cut -d. -f2 <<<"$KUBE_VERSION")
  ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  for t in $KUBE_TOOLS; do pkgs+=("k8s.io/kubernetes/cmd/$t"); done
  (cd "$WORK/k8s" && go build -mod=mod -ldflags "$ld" -o "$OUT/" "${pkgs[@]}")
}
step "k8s.io/kubernetes $KUBE_VERSION go.mod" k8s_gomod
step "k8s.io/kubernetes $KUBE_VERSION: $KUBE_TOOLS" k8s_build

# ---------- etcd: server/v3 has ../ replaces, so it is built through a wrapper module ----------
etcd_build() {
  printf 'module testenv.local/etcd-bin\n\ngo 1.26.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$WORK/etcd/go.mod"
  (cd "$WORK/etcd" && go build -mod=mod -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION" \
    -o "$OUT/etcd" go.etcd.io/etcd/server/v3)
}
step "etcd $ETCD_VERSION" etcd_build

# ---------- helm: no replace/exclude in its go.mod, so go install pkg@version works ----------
# helm 3's release build stamps the Kubernetes version that `helm template` and kubeVersion checks assume without a
# cluster (chartutil and the lint rules; unset, it is v1.20). We stamp the plane's version. helm 4 reads it from
# its own build info (client-go's module version), which `go install` records, so it needs no flag.
KUBE_MINOR=$(cut -d. -f2 <<<"$KUBE_VERSION")
helm_build() { # MAJOR VERSION
  local ld="-s -w -X helm.sh/helm/v$1/internal/version.version=$2 -X helm.sh/helm/v$1/internal/version.gitTreeState=clean"
  if [[ $1 == 3 ]]; then
    for p in pkg/chartutil pkg/lint/rules; do ld+=" -X helm.sh/helm/v3/$p.k8sVersionMajor=1 -X helm.sh/helm/v3/$p.k8sVersionMinor=$KUBE_MINOR"; done
  fi
  (cd "$WORK/helm" && GOBIN="$WORK/helm/v$1" go install -ldflags "$ld" "helm.sh/helm/v$1/cmd/helm@$2")
  mv "$WORK/helm/v$1/helm" "$OUT/helm-v$1"
}
[[ -z $HELM3_VERSION ]] || step "helm $HELM3_VERSION" helm_build 3 "$HELM3_VERSION"
[[ -z $HELM4_VERSION ]] || step "helm $HELM4_VERSION" helm_build 4 "$HELM4_VERSION"
[[ -z $HELM3_VERSION ]] || ln -s helm-v3 "$OUT/helm"

# ---------- kwok: fakes the kubelets of the plane's Nodes (hack/testenv/kwok-stages.yaml says what it does) ----------
# No replace/exclude in its go.mod either; its version (pkg/consts) is in the source, so -s -w is all it needs.
kwok_build() {
  (cd "$WORK/kwok" && GOBIN="$WORK/kwok/bin" go install -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION")
  mv "$WORK/kwok/bin/kwok" "$OUT/kwok"
}
[[ -z $KWOK_VERSION ]] || step "kwok $KWOK_VERSION" kwok_build

cp "$WORK/k8s/go.mod" "$OUT/k8s-wrapper.go.mod"
cp "$WORK/k8s/go.sum" "$OUT/k8s-wrapper.go.sum" 2>/dev/null || true
{
  "$OUT/kube-apiserver" --version
  "$OUT/etcd" --version | sed -n 1p # not head: it could SIGPIPE etcd and, under pipefail, end the build
  [[ -z $HELM3_VERSION ]] || "$OUT/helm-v3" version --short
  [[ -z $HELM4_VERSION ]] || "$OUT/helm-v4" version --short
  [[ -z $KWOK_VERSION ]] || "$OUT/kwok" --version
} >"$OUT/VERSIONS" 2>&1
sed 's/^/  /' "$OUT/VERSIONS" >&2
touch "$OUT/.complete"
rm -rf "$BIN"
mv "$OUT" "$BIN"
log "built $BIN"
echo "$BIN"
