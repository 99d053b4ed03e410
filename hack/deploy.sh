#!/usr/bin/env bash
# Renders the operator's deployment with an image set, without `kustomize edit` (kubectl's built-in kustomize has no
# edit): a temporary overlay over config/default (or config/manifests) sets `images:` and is built with
# `kubectl kustomize`. Used by `make deploy`, `make undeploy` and `make bundle`. Prints YAML on stdout only.
#   hack/deploy.sh render IMG            config/default
#   hack/deploy.sh render-manifests IMG  config/manifests (for the OLM bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
KUBECTL=${KUBECTL:-kubectl}
mode=${1:?usage: hack/deploy.sh render|render-manifests IMG}
img=${2:?usage: hack/deploy.sh render|render-manifests IMG}
case "$mode" in
  render) base=config/default ;;
  render-manifests) base=config/manifests ;;
  *) echo "hack/deploy.sh: unknown mode $mode" >&2; exit 2 ;;
esac

# IMG = [registry[:port]/]name[:tag][@digest]; the tag is after the last ':' that follows the last '/'.
digest=''
name=$img
if [[ $name == *@* ]]; then digest=${name#*@}; name=${name%%@*}; fi
tag=''
last=${name##*/}
if [[ $last == *:* ]]; then tag=${last##*:}; name=${name%:*}; fi

overlay=$(mktemp -d)
trap 'rm -rf "$overlay"' EXIT
# kustomize refuses absolute paths in resources: the overlay reaches config/ through a symbolic link.
ln -s "$PWD/config" "$overlay/config"
{
  echo "resources:"
  echo "  - $base"
  echo "images:"
  echo "  - name: controller"
  echo "    newName: $name"
  if [[ -n $digest ]]; then echo "    digest: $digest"; elif [[ -n $tag ]]; then echo "    newTag: \"$tag\""; fi
} > "$overlay/kustomization.yaml"
"$KUBECTL" kustomize --load-restrictor LoadRestrictionsNone "$overlay"
