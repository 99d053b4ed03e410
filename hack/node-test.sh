#!/usr/bin/env bash
# `make node-test`: the users' workflow end to end on a real node (test/node/, vitest project `node`): the plane with
# one real node (TESTENV_NODES=real hack/testenv.sh up, started by test/node/global-setup.ts; its parts built from Go
# modules by hack/testenv.sh build-node), a scaffolded project's `make docker-build`, `make deploy`, the samples and
# `make undeploy`. Installs the container tools and builds the base-image stand-ins as hack/image-test.sh does (the
# operand image is Debian's slim base, loaded into the node). Called by .ci/run after `make image-test`. Where the
# machine cannot run a node, the test skips and prints hack/testenv/node-check.sh's reason.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
say() { echo "node-test [$(($(date +%s) - T0))s] $*" >&2; }
if ! hack/container-tools.sh; then
  echo "node-test: SKIPPED, the container tools are missing (see the line above)" >&2
  exit 0
fi
# OLM and opm built from their Go modules (test/node/olm.test.ts), in the background: cold about 10 min on 2 cores,
# beside the base images and the build; reused from their cache afterwards. The test waits for them (the build's lock).
mkdir -p "${TMPDIR:-/tmp}"
olm_log=$(mktemp "${TMPDIR:-/tmp}/node-test-olm-build.XXXXXX")
{ hack/olm/build-olm.sh && hack/olm/build-olm.sh opm; } >"$olm_log" 2>&1 &
hack/base-images.sh
npm run --silent build
say "running the workflow on a real node (vitest project node)"
npx vitest run --project node
say "done"
