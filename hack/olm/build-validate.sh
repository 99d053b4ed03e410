#!/usr/bin/env bash
# hack/olm/build-validate.sh: builds (or reuses) olm-validate (hack/olm/validate: operator-registry's bundle format
# check and operator-framework/api's validators, the reference `helm-operator bundle validate` is tested against)
# into a cache outside the repository. Called by hack/test.sh in the background and by
# test/integration/olm/bundle-agreement.test.ts when OLM_VALIDATE is not set.
# stdout: the binary's path, as the last line. Progress goes to stderr. Downloads nothing but Go modules; never
# writes inside the repository (go.mod and go.sum are read-only here).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/validate" && pwd)
CACHE_ROOT=${OLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/olm}
TESTENV_ROOT=${TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helm-operator-ts/testenv}

command -v go >/dev/null || { echo "olm-validate build: 'go' is not on PATH; Go >= 1.26 is needed to build the reference validators" >&2; exit 1; }
export CGO_ENABLED=0 GO111MODULE=on GOWORK=off GOTOOLCHAIN=${GOTOOLCHAIN:-local}
export GOFLAGS="-modcacherw -trimpath -buildvcs=false -mod=readonly"
# The plane's module and build caches (hack/testenv/build.sh): the modules both need are downloaded once.
export GOMODCACHE=${TESTENV_GOMODCACHE:-$TESTENV_ROOT/gomod} GOCACHE=${TESTENV_GOCACHE:-$TESTENV_ROOT/gobuild}

START=$(date +%s)
log() { echo "olm-validate build [$(($(date +%s) - START))s] $*" >&2; }

# The key covers every input: the program, its module graph, this script, the Go version and platform.
sum=$(cat "$SRC/go.mod" "$SRC/go.sum" "$SRC/main.go" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
BIN=$CACHE_ROOT/bin/${sum}_$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)
if [[ -x $BIN/olm-validate ]]; then log "reusing $BIN"; echo "$BIN/olm-validate"; exit 0; fi

mkdir -p "$CACHE_ROOT/bin"
exec 9>"$CACHE_ROOT/.build.lock"
if ! flock -n 9; then log "another build holds $CACHE_ROOT/.build.lock; waiting"; flock 9; fi
if [[ -x $BIN/olm-validate ]]; then log "reusing $BIN (built meanwhile)"; echo "$BIN/olm-validate"; exit 0; fi
TMP=$(mktemp -d "$CACHE_ROOT/bin/.tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
log "start: operator-framework/api + operator-registry validators into $BIN"
(cd "$SRC" && go build -ldflags "-s -w" -o "$TMP/olm-validate" .)
rm -rf "$BIN"
mv "$TMP" "$BIN"
log "built $BIN"
echo "$BIN/olm-validate"
