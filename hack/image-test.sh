#!/usr/bin/env bash
# `make image-test`: builds the operator image with podman (`make docker-build`) and runs it as a real container
# against a local control plane (test/image/, vitest project `image`), then prints the image's size, its layers, the
# build time and the container's figures. test/image/project-image.test.ts also scaffolds a project with this
# repository's CLI (dist/, built here first, and packed), builds its image with the project's own `make docker-build`
# and runs that too; its build time and size join the figures. Called by .ci/run after `make test`. Installs podman, runc and debootstrap
# from Debian's packages when missing (as root), builds the base-image stand-ins when no registry provides them
# (hack/base-images.sh), and skips, saying why, on a machine where podman cannot run a container.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOL=${CONTAINER_TOOL:-podman}
IMG=${IMAGE_TEST_IMAGE:-localhost/helm-operator-ts:image-test}
T0=$(date +%s)
say() { echo "image-test [$(($(date +%s) - T0))s] $*" >&2; }
skip() { echo "image-test: SKIPPED, the image was not built or run: $*" >&2; exit 0; }

hack/container-tools.sh || skip "the container tools are missing (see the line above)"
[[ $TOOL == podman ]] || skip "the container test needs podman to run the image (CONTAINER_TOOL=$TOOL)"
hack/base-images.sh
# Can this machine run a container at all? (The failure, verbatim, is the reason.)
# shellcheck disable=SC2046 # the flags are words
if ! probe=$("$TOOL" run --rm --pull=never $(hack/container-flags.sh) --network=host docker.io/library/debian:bookworm-slim true 2>&1); then
  skip "podman cannot run a container here: $probe"
fi

say "make docker-build CONTAINER_TOOL=$TOOL IMG=$IMG"
b0=$(date +%s)
make --no-print-directory docker-build CONTAINER_TOOL="$TOOL" IMG="$IMG" >"${TMPDIR:-/tmp}/image-test-build.log" 2>&1 ||
  { tail -n 40 "${TMPDIR:-/tmp}/image-test-build.log" >&2; echo "image-test: make docker-build failed" >&2; exit 1; }
build_s=$(($(date +%s) - b0))

# The scaffolded project's image installs this repository's CLI, packed from dist/.
say "npm run build (the CLI a scaffolded project's image installs)"
npm run --silent build

report=$(mktemp)
trap 'rm -f "$report"' EXIT
say "running the image, then a scaffolded project's (vitest project image)"
IMAGE_TEST_IMAGE=$IMG CONTAINER_TOOL=$TOOL IMAGE_TEST_REPORT=$report npx vitest run --project image

echo "==> image-test figures ($("$TOOL" --version), storage driver $("$TOOL" info --format '{{.Store.GraphDriverName}}'))" >&2
{
  echo "| figure | value |"
  echo "|---|---|"
  echo "| this repository's image: make docker-build (this run, with the layer cache as it found it) | ${build_s} s |"
  node -e 'for (const [k, v] of Object.entries(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")))) console.log(`| ${k} | ${v} |`)' "$report"
  echo
  node bench/image-size.ts "$TOOL" "$IMG"
} >&2
say "done"
