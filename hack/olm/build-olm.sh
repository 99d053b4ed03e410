#!/usr/bin/env bash
# hack/olm/build-olm.sh: Operator Lifecycle Manager built from its Go module, for a cluster that reaches no registry
# (a machine with a network runs `helm-operator olm install`, which applies OLM's released manifests, and never this).
#   hack/olm/build-olm.sh [bin]                build or reuse olm, catalog, package-server, copy-content and cpb
#                                              (cmd/* and util/cpb of the module); prints the folder (last line)
#   hack/olm/build-olm.sh image IMAGE          those binaries in an image tagged IMAGE (podman; FROM the Debian
#                                              stand-in of hack/base-images.sh, which gives the unpack Jobs /bin/cp)
#   hack/olm/build-olm.sh opm                  build or reuse opm (operator-registry v1.59.0, OPM_VERSION) and
#                                              grpc_health_probe; prints opm's path (last line)
#   hack/olm/build-olm.sh opm-image IMAGE      both in an image tagged IMAGE, as OLM's opm image (ENTRYPOINT opm)
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
OPM_MODULE=github.com/operator-framework/operator-registry
OPM_VERSION=${OPM_VERSION:-v1.59.0} PROBE_VERSION=${GRPC_HEALTH_PROBE_VERSION:-v0.4.40}
KEY=${sum}_$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)
OPM_OUT=$CACHE_ROOT/opm-${OPM_VERSION}_$KEY PROBE_OUT=$CACHE_ROOT/grpc-health-probe-${PROBE_VERSION}_$KEY

# module_build OUT MODULE VERSION TAGS LDFLAGS PACKAGE…: PACKAGE… of MODULE@VERSION into OUT/bin (and its deploy/, when it
# has one), unless OUT holds them. Neither module can be built with `go install …@version` (OLM's replace lines; the
# proxy refuses the version list go install reads deprecations from) and their downloads have no vendor/: each is
# built as the main module, from a writable copy, resolving its dependencies with -mod=mod.
module_build() {
  local out=$1 module=$2 version=$3 tags=$4 ldflags=$5 dir
  shift 5
  if [[ -d $out/bin ]]; then log "reusing $out"; return; fi
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/.build.lock"
  if ! flock -n 9; then log "another build holds $CACHE_ROOT/.build.lock; waiting"; flock 9; fi
  if [[ -d $out/bin ]]; then log "reusing $out (built meanwhile)"; exec 9>&-; return; fi
  tmp=$(mktemp -d "$CACHE_ROOT/.tmp.XXXXXX")
  trap 'rm -rf "${tmp:-}"' EXIT
  log "downloading $module@$version"
  dir=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d $dir ]] || die "go mod download $module@$version gave no module folder"
  cp -r "$dir" "$tmp/src"
  chmod -R u+w "$tmp/src"
  rm -rf "$tmp/src/vendor"
  log "building $* of $module@$version"
  (cd "$tmp/src" && go build -mod=mod -tags "$tags" -ldflags "-s -w $ldflags" -o "$tmp/out/bin/" "$@")
  if [[ -d $tmp/src/deploy ]]; then cp -r "$tmp/src/deploy" "$tmp/out/deploy"; fi
  rm -rf "$out"
  mv "$tmp/out" "$out"
  rm -rf "$tmp"
  exec 9>&-
  log "built $out"
}

# OLM's binaries (cold: about 10 min on 2 cores).
build_bin() {
  module_build "$OUT" "$MODULE" "$VERSION" json1 "-X $MODULE/pkg/version.OLMVersion=$VERSION" \
    ./cmd/olm ./cmd/catalog ./cmd/package-server ./cmd/copy-content ./util/cpb
}

# opm (operator-registry's cmd/opm; static, so without its sqlite commands, which file-based catalogs never need) and
# grpc_health_probe, which OLM's catalog pods are probed with (`grpc_health_probe -addr=:50051`).
build_opm() {
  module_build "$OPM_OUT" "$OPM_MODULE" "$OPM_VERSION" json1,containers_image_openpgp \
    "-X $OPM_MODULE/cmd/opm/version.opmVersion=$OPM_VERSION" ./cmd/opm
  module_build "$PROBE_OUT" github.com/grpc-ecosystem/grpc-health-probe "$PROBE_VERSION" "" "" .
  if [[ ! -e $PROBE_OUT/bin/grpc_health_probe ]]; then ln -s grpc-health-probe "$PROBE_OUT/bin/grpc_health_probe"; fi
}

# image_build IMAGE KEY ENTRYPOINT FILE…: FILE… in /bin/ of an image FROM the Debian stand-in, rebuilt only when KEY
# (its label) changes.
image_build() {
  local image=$1 key=$2 entry=$3 tool=${CONTAINER_TOOL:-podman} id ctx
  shift 3
  id=$("$tool" image inspect --format '{{ index .Labels "helm-operator-ts.olm" }}' "$image" 2>/dev/null || true)
  if [[ $id == "$key" ]]; then log "reusing image $image"; return; fi
  "$tool" image exists docker.io/library/debian:bookworm-slim || die "no docker.io/library/debian:bookworm-slim image; run hack/base-images.sh (as root) first"
  ctx=$(mktemp -d)
  cp "$@" "$ctx/"
  {
    echo 'FROM docker.io/library/debian:bookworm-slim'
    echo "LABEL helm-operator-ts.olm=\"$key\""
    echo "COPY ${*##*/} /bin/"
    echo 'USER 1001'
    echo "ENTRYPOINT [\"/bin/$entry\"]"
  } >"$ctx/Containerfile"
  # shellcheck disable=SC2046 # container-flags.sh prints a list of flags
  "$tool" build -q $("$(dirname "$0")/../container-flags.sh") -t "$image" "$ctx" >/dev/null
  rm -rf "$ctx"
  log "image $image"
}

build_image() {
  local image=${1:?usage: build-olm.sh image IMAGE}
  build_bin
  image_build "$image" "$OUT" olm "${BINARIES[@]/#/$OUT/bin/}"
}

# The opm image, as OLM's upstream one: the catalog images' base (opm generate dockerfile -i), the catalog
# operator's -opmImage (bundle unpack Jobs) and -configmapServerImage.
build_opm_image() {
  local image=${1:?usage: build-olm.sh opm-image IMAGE}
  build_opm
  image_build "$image" "$OPM_OUT+$PROBE_OUT" opm "$OPM_OUT/bin/opm" "$PROBE_OUT/bin/grpc_health_probe"
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
  opm) build_opm; echo "$OPM_OUT/bin/opm" ;;
  opm-image) shift; build_opm_image "$@" ;;
  manifests) shift; render_manifests "$@" ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
