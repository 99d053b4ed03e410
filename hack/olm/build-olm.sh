#!/usr/bin/env bash
# hack/olm/build-olm.sh: Operator Lifecycle Manager built from its Go module, for a cluster that reaches no registry
# (a machine with a network runs `helm-operator olm install`, which applies OLM's released manifests, and never this).
#   hack/olm/build-olm.sh [bin]                build or reuse olm, catalog, package-server, copy-content and cpb
#                                              (cmd/* and util/cpb of the module); prints the folder (last line)
#   hack/olm/build-olm.sh image IMAGE          those binaries in an image tagged IMAGE (podman; FROM the Debian
#                                              stand-in of hack/base-images.sh, which gives the unpack Jobs /bin/cp)
#   hack/olm/build-olm.sh manifests IMAGE DIR  DIR/crds.yaml and DIR/olm.yaml rendered from the module's deploy/chart
#                                              as OLM's release does, with IMAGE for every OLM container (olm, catalog,
#                                              packageserver, -util-image) and no operatorhubio CatalogSource; prints DIR
# Called by hack/node-test.sh (bin, in the background) and test/node/olm.test.ts. Settings: OLM_VERSION (v0.31.0),
# OLM_CACHE (~/.cache/helm-operator-ts/olm), HELM_BIN (manifests: the helm that renders), OLM_OPM_IMAGE (manifests:
# the catalog operator's -opmImage and -configmapServerImage; default IMAGE). Progress goes to stderr. Downloads
# nothing but Go modules; never writes inside the repository.
set -euo pipefail
VERSION=${OLM_VERSION:-v0.31.0}
MODULE=github.com/operator-framework/operator-lifecycle-manager
CACHE_ROOT=${OLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/olm}
TESTENV_ROOT=${TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/testenv}
START=$(date +%s)
log() { echo "olm build [$(($(date +%s) - START))s] $*" >&2; }
die() { echo "olm build: $*" >&2; exit 1; }

command -v go >/dev/null || die "'go' is not on PATH; Go >= 1.26 is needed to build OLM from its module"
export CGO_ENABLED=0 GO111MODULE=on GOWORK=off GOTOOLCHAIN=${GOTOOLCHAIN:-local}
export GOFLAGS="-modcacherw -trimpath -buildvcs=false"
# The plane's module and build caches (hack/testenv/build.sh): the Kubernetes modules OLM shares are there already.
export GOMODCACHE=${TESTENV_GOMODCACHE:-$TESTENV_ROOT/gomod} GOCACHE=${TESTENV_GOCACHE:-$TESTENV_ROOT/gobuild}

sum=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)
OUT=$CACHE_ROOT/olm-${VERSION}_${sum}_$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)
BINARIES=(olm catalog package-server copy-content cpb)

build_bin() {
  if [[ -x $OUT/bin/cpb ]]; then log "reusing $OUT"; return; fi
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/.build.lock"
  if ! flock -n 9; then log "another build holds $CACHE_ROOT/.build.lock; waiting"; flock 9; fi
  if [[ -x $OUT/bin/cpb ]]; then log "reusing $OUT (built meanwhile)"; return; fi
  local dir
  tmp=$(mktemp -d "$CACHE_ROOT/.tmp.XXXXXX")
  trap 'rm -rf "${tmp:-}"' EXIT
  log "downloading $MODULE@$VERSION"
  dir=$(go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d $dir ]] || die "go mod download $MODULE@$VERSION gave no module folder"
  # Its go.mod has replace lines (so no `go install …@version`) and the download has no vendor/: it is built as the
  # main module, from a writable copy, resolving its dependencies with -mod=mod.
  cp -r "$dir" "$tmp/src"
  chmod -R u+w "$tmp/src"
  rm -rf "$tmp/src/vendor"
  log "building ${BINARIES[*]} (cold: about 10 min on 2 cores)"
  (cd "$tmp/src" && go build -mod=mod -tags json1 \
    -ldflags "-s -w -X $MODULE/pkg/version.OLMVersion=$VERSION" \
    -o "$tmp/out/bin/" ./cmd/olm ./cmd/catalog ./cmd/package-server ./cmd/copy-content ./util/cpb)
  cp -r "$tmp/src/deploy" "$tmp/out/deploy"
  rm -rf "$OUT"
  mv "$tmp/out" "$OUT"
  log "built $OUT"
}

build_image() {
  local image=${1:?usage: build-olm.sh image IMAGE} tool=${CONTAINER_TOOL:-podman} id
  build_bin
  # The image is rebuilt only when the binaries it holds are not the ones of $OUT (its label).
  id=$("$tool" image inspect --format '{{ index .Labels "helm-operator-ts.olm" }}' "$image" 2>/dev/null || true)
  if [[ $id == "$OUT" ]]; then log "reusing image $image"; return; fi
  "$tool" image exists docker.io/library/debian:bookworm-slim || die "no docker.io/library/debian:bookworm-slim image; run hack/base-images.sh (as root) first"
  local ctx
  ctx=$(mktemp -d)
  cp "${BINARIES[@]/#/$OUT/bin/}" "$ctx/"
  cat >"$ctx/Containerfile" <<EOF
FROM docker.io/library/debian:bookworm-slim
LABEL helm-operator-ts.olm="$OUT"
COPY ${BINARIES[*]} /bin/
USER 1001
ENTRYPOINT ["/bin/olm"]
EOF
  # shellcheck disable=SC2046 # container-flags.sh prints a list of flags
  "$tool" build -q $("$(dirname "$0")/../container-flags.sh") -t "$image" "$ctx" >/dev/null
  rm -rf "$ctx"
  log "image $image"
}

render_manifests() {
  local image=${1:?usage: build-olm.sh manifests IMAGE DIR} dir=${2:?usage: build-olm.sh manifests IMAGE DIR}
  local helm=${HELM_BIN:-helm} opm=${OLM_OPM_IMAGE:-$1} chart
  build_bin
  chart=$(mktemp -d)
  cp -r "$OUT/deploy/chart" "$chart/olm"
  chmod -R u+w "$chart"
  # As OLM's scripts/package_release.sh: the chart's version is the release's (the packageserver CSV's olm.version).
  sed -i "s/^version:.*/version: ${VERSION#v}/" "$chart/olm/Chart.yaml"
  mkdir -p "$dir"
  "$helm" template olm "$chart/olm" -n olm -f "$OUT/deploy/upstream/values.yaml" --include-crds \
    --set installType=local \
    --set "olm.image.ref=$image,catalog.image.ref=$image,package.image.ref=$image" \
    --set "olm.image.pullPolicy=IfNotPresent,catalog.image.pullPolicy=IfNotPresent,package.image.pullPolicy=IfNotPresent" \
    --set "catalog.opmImageArgs=--opmImage=$opm,catalog.commandArgs=--configmapServerImage=$opm" \
    --output-dir "$chart/out" >/dev/null
  # crds.yaml: the CRDs; olm.yaml: the rest in the chart's file order (namespaces first), as the release's files.
  cat "$chart"/out/olm/crds/*.yaml >"$dir/crds.yaml"
  cat "$chart"/out/olm/templates/*.yaml >"$dir/olm.yaml"
  rm -rf "$chart"
  log "manifests for $VERSION with $image in $dir"
  echo "$dir"
}

case ${1:-bin} in
  bin) build_bin; echo "$OUT" ;;
  image) shift; build_image "$@" ;;
  manifests) shift; render_manifests "$@" ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
