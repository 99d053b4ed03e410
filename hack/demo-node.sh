#!/usr/bin/env bash
# `make demo NODE=real`: the users' workflow on a local control plane with one real node (kubelet, containerd,
# runc; TESTENV_NODES=real, root only), step by step for a user to watch: this repository's CLI packed and installed
# into a prefix, a project scaffolded from test/fixtures/charts/node-workload (its images all local), the project's
# `make docker-build` (podman) and the images loaded into the node, `make deploy`, the operator pod Ready, the sample
# applied with its pods really running. Then it waits: Ctrl-C runs `make undeploy` (CRs first) and stops the plane.
# Called by hack/demo.sh; test/node/workflow.test.ts runs the same workflow with assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
T0=$(date +%s)
say() { printf '\ndemo [%ss] %s\n' "$(($(date +%s) - T0))" "$*" >&2; }
hack/testenv/node-check.sh || { echo "demo: make demo NODE=real needs a machine that can run a node (above)" >&2; exit 1; }
hack/container-tools.sh
hack/base-images.sh
BIN=$(hack/testenv.sh build | tail -n 1)
npm run --silent build
WORK=$(mktemp -d /tmp/demo-node.XXXXXX)
DIR=
PROJECT=$WORK/demo-operator
IMG=localhost/demo-operator:v0.1.0
stop() {
  trap - EXIT INT TERM
  if [[ -n $DIR ]]; then
    if [[ -f $PROJECT/Makefile ]]; then
      say "make undeploy (the CR first: its release is uninstalled, then the operator, RBAC and CRD)"
      make -C "$PROJECT" --no-print-directory undeploy UNDEPLOY_TIMEOUT=2m || true
    fi
    "$ROOT/hack/testenv.sh" down "$DIR"
    echo "demo: control plane and node stopped" >&2
  fi
  rm -rf "$WORK"
}
trap stop EXIT
trap 'exit 130' INT TERM

say "starting the control plane with a real node"
DIR=$(TESTENV_BIN=$BIN TESTENV_NODES=real hack/testenv.sh up)
export KUBECONFIG=$DIR/kubeconfig
export PATH=$WORK/prefix/bin:$BIN:$PATH HELM_BINARY=$BIN/helm
kubectl get nodes -o wide

say "the CLI, as a user installs it: npm pack, npm install -g --prefix"
TGZ=$WORK/$(npm pack --pack-destination "$WORK" --silent)
npm install -g --prefix "$WORK/prefix" --no-audit --no-fund --loglevel=error "$TGZ"

say "helm-operator init --plugins=helm --domain=example.com --helm-chart=…/node-workload"
mkdir "$PROJECT" && cd "$PROJECT"
helm-operator init --plugins=helm --domain=example.com --helm-chart="$ROOT/test/fixtures/charts/node-workload"

say "make docker-build IMG=$IMG, then the image and the operand image into the node's containerd"
make --no-print-directory docker-build CONTAINER_TOOL=podman IMG="$IMG" HELM_OPERATOR_PACKAGE="$TGZ" \
  CONTAINER_BUILD_FLAGS="--network=host $("$ROOT/hack/container-flags.sh")"
for image in "$IMG" docker.io/library/debian:bookworm-slim; do "$ROOT/hack/testenv.sh" load-image "$image" "$DIR"; done

say "make deploy IMG=$IMG"
make --no-print-directory deploy IMG="$IMG"
kubectl rollout status deployment/demo-operator-controller-manager -n demo-operator-system --timeout=180s
kubectl logs deployment/demo-operator-controller-manager -n demo-operator-system | tail -n 3

say "kubectl apply -k config/samples"
kubectl apply -k config/samples
kubectl wait --for=condition=Ready --timeout=180s workloads.charts.example.com/workload-sample
kubectl get workloads.charts.example.com,deployments,pods -o wide

cat <<MSG

The operator runs as a pod on the real node, and so do the sample's pods. In another terminal:

  export KUBECONFIG=$KUBECONFIG PATH=$BIN:\$PATH
  cd $PROJECT
  kubectl patch workloads.charts.example.com workload-sample --type=merge -p '{"spec":{"message":"v2"}}'
  kubectl logs job/workload-sample-upgraded                 # the post-upgrade hook, run as a real pod
  kubectl logs -n demo-operator-system deployment/demo-operator-controller-manager -f

Press Ctrl-C to run make undeploy and stop the control plane and the node.
MSG
while true; do sleep 3600; done
