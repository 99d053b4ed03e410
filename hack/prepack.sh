#!/usr/bin/env bash
# npm's `prepack` (package.json) for `npm pack` and `npm publish` in a checkout of this repository: builds dist/ with
# tsc -p tsconfig.build.json, first installing the pinned dependencies with `npm ci --ignore-scripts` when TypeScript
# is missing (a fresh clone), and fails when dist/cmd/main.js, the package's `bin`, is not there afterwards. Never
# installs anything when node_modules/ has tsc, and never touches files outside this checkout but npm's cache.
# Everything it prints goes to stderr: `npm pack` prints the tarball's name on stdout, and scripts read it.
set -euo pipefail
exec 1>&2
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin=dist/cmd/main.js
tsc=node_modules/.bin/tsc
if [ ! -x "$tsc" ]; then
  echo "prepack: no $tsc (a fresh clone?): npm ci --ignore-scripts, the dependencies package-lock.json pins"
  SECONDS=0
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  echo "prepack: npm ci took ${SECONDS} s"
  if [ ! -x "$tsc" ]; then
    echo "prepack: npm ci did not install $tsc; nothing to build dist/ with, so nothing is packed"
    exit 1
  fi
fi
echo "prepack: building dist/ ($tsc -p tsconfig.build.json)"
SECONDS=0
"$tsc" -p tsconfig.build.json
echo "prepack: tsc took ${SECONDS} s"
if [ ! -f "$bin" ]; then
  echo "prepack: $bin is missing after the build: the package would install no helm-operator command; not packing"
  exit 1
fi
