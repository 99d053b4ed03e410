#!/usr/bin/env bash
# `make demo`: builds (or reuses) the control-plane binaries, starts a local control plane, installs the sample
# CRD, and prints how to use it. Stays in the foreground; Ctrl-C stops everything it started. DEMO_DETACH=1
# leaves the control plane running instead and prints the command that stops it.
# The operator itself (helm-operator run) is not built yet; the demo shows the environment it will run in.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=$(hack/testenv.sh build | tail -n 1)
DIR=$(TESTENV_BIN=$BIN hack/testenv.sh up)
stop() { hack/testenv.sh down "$DIR"; echo "demo: control plane stopped" >&2; }
if [[ ${DEMO_DETACH:-0} != 1 ]]; then trap stop EXIT; fi
export KUBECONFIG=$DIR/kubeconfig
"$BIN/kubectl" apply -f config/crd/bases/ >&2
"$BIN/kubectl" wait --for=condition=Established crd/nginxes.demo.example.com --timeout=60s >&2

cat <<MSG

A local Kubernetes control plane is running (etcd, kube-apiserver, kube-controller-manager on loopback).
In another terminal:

  export KUBECONFIG=$DIR/kubeconfig
  export PATH=$BIN:\$PATH          # kubectl, helm (v3), helm-v4
  kubectl get --raw /version
  kubectl apply -f $ROOT/config/samples/demo_v1alpha1_nginx.yaml
  kubectl get nginxes
  helm install demo $ROOT/charts/nginx --set replicaCount=2 && kubectl get deploy,svc,cm

The operator (helm-operator run) is not built yet: the sample CR is stored but nothing reconciles it.
MSG
hack/testenv.sh status "$DIR"
if [[ ${DEMO_DETACH:-0} == 1 ]]; then
  echo
  echo "Stop it with: hack/testenv.sh down $DIR"
  exit 0
fi
echo
echo "Press Ctrl-C to stop the control plane."
while kill -0 "$(cat "$DIR/kube-apiserver.pid")" 2>/dev/null; do sleep 1; done
echo "demo: kube-apiserver exited; see $DIR/logs" >&2
