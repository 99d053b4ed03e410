#!/usr/bin/env bash
# `make test`: the whole suite from a clean clone. With the local control plane (the default), the Go binaries
# are built (or reused) in the background while npm ci, lint, type-check and build run; then the unit tests (with the
# plane's helm and kubectl, so that a fresh clone skips none of them), the integration tests against a control plane
# started by the vitest global setup (with the reference OLM validators, built in the background too), and the chaos
# suite's short version on planes of its own. Prints a timing table.
# Called by the Makefile (which puts Node >= 22 first on PATH) and so by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
declare -a TIMES=()
phase() { # NAME CMD...: run one phase and record its wall time
  local name=$1 s=$(date +%s)
  shift
  echo "==> $name" >&2
  "$@"
  TIMES+=("$(printf '%-28s %5ss' "$name" "$(($(date +%s) - s))")")
}
summary() {
  echo "==> make test timings" >&2
  printf '  %s\n' "${TIMES[@]}" >&2
  echo "  total                        $(($(date +%s) - T0))s" >&2
}

mode=${TEST_CLUSTER:-local}
build_pid=
if [[ $mode == local && -z ${TESTENV_BIN:-} ]]; then
  build_log=$(mktemp "${TMPDIR:-/tmp}/testenv-build.XXXXXX")
  build_start=$(date +%s)
  # Only the script's own progress lines are shown live; the full log (go's output) is shown on failure.
  set -m # own process group, so that an early failure below stops the whole build tree
  (hack/testenv.sh build >"$build_log.out" \
    2> >(tee "$build_log" | grep --line-buffered -E '^testenv build' | sed -u 's/^/  [background] /' >&2)) &
  build_pid=$!
  set +m
  trap '[[ -n $build_pid ]] && kill -- "-$build_pid" 2>/dev/null || true' EXIT
fi

# The reference OLM validators (hack/olm/validate, for test/integration/olm/bundle-agreement.test.ts), built or reused
# in the background beside the plane's binaries, sharing their Go caches: about 2.5 min of CPU cold, none warm.
olm_pid=
if [[ -z ${OLM_VALIDATE:-} ]] && command -v go >/dev/null; then
  olm_log=$(mktemp "${TMPDIR:-/tmp}/olm-validate-build.XXXXXX")
  olm_start=$(date +%s)
  set -m
  (hack/olm/build-validate.sh >"$olm_log.out" 2>"$olm_log") &
  olm_pid=$!
  set +m
fi
trap '[[ -n $build_pid ]] && kill -- "-$build_pid" 2>/dev/null; [[ -n $olm_pid ]] && kill -- "-$olm_pid" 2>/dev/null; true' EXIT

if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  phase "npm ci" npm ci --no-audit --no-fund
fi
phase "lint (biome)" npm run --silent lint
phase "typecheck (tsc)" npm run --silent typecheck
phase "build (tsc)" npm run --silent build
if [[ -n $build_pid ]]; then
  echo "==> waiting for the control-plane binaries" >&2
  if ! wait "$build_pid"; then
    build_pid=
    echo "make test: building the control-plane binaries failed; last lines of $build_log:" >&2
    tail -n 60 "$build_log" >&2
    exit 1
  fi
  build_pid=
  TESTENV_BIN=$(tail -n 1 "$build_log.out")
  export TESTENV_BIN
  TIMES+=("$(printf '%-28s %5ss' "testenv build (background)" "$(($(date +%s) - build_start))")")
  rm -f "$build_log" "$build_log.out"
fi
# The unit tests run after the binaries exist, so that a fresh clone skips none of what a warm machine runs: the
# scaffolder's tests run the plane's helm, and its kustomize tests the plane's kubectl (kustomize does not depend on
# the cluster version). The unit tests take about a minute; a cold build takes far longer either way.
if [[ -n ${TESTENV_BIN:-} ]]; then
  export HELM_BIN=${HELM_BIN:-$TESTENV_BIN/helm-v3} KUBECTL=${KUBECTL:-$TESTENV_BIN/kubectl}
fi
phase "unit tests" npm run --silent test:unit
if [[ -n $olm_pid ]]; then
  if ! wait "$olm_pid"; then
    olm_pid=
    echo "make test: building the reference OLM validators failed; last lines of $olm_log:" >&2
    tail -n 40 "$olm_log" >&2
    exit 1
  fi
  olm_pid=
  OLM_VALIDATE=$(tail -n 1 "$olm_log.out")
  export OLM_VALIDATE
  TIMES+=("$(printf '%-28s %5ss' "olm-validate build (bg)" "$(($(date +%s) - olm_start))")")
  rm -f "$olm_log" "$olm_log.out"
fi
phase "integration tests ($mode)" npx vitest run --project integration
# The chaos suite's short version (chaos/run.ts --short): its own planes, so only with the local binaries.
if [[ $mode == local ]]; then
  phase "chaos (short)" node chaos/run.ts --short
else
  echo "==> chaos (short): skipped with TEST_CLUSTER=$mode (it starts and restarts its own local control planes)" >&2
fi
summary
