#!/usr/bin/env bash
# `make demo`: builds what is missing (Go binaries, the operator), starts a local control plane with fake nodes,
# installs the sample CRD, runs the operator, applies the sample CR and shows it reach Deployed and then Ready,
# then leaves the operator running so you can edit or delete the CR. Ctrl-C stops everything it started.
# Called by the Makefile (Node >= 22 on PATH). NODE=real runs the users' whole workflow on a real node instead
# (hack/demo-node.sh: make docker-build, make deploy, the operator and the sample's pods really running).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${NODE:-} == real ]]; then exec hack/demo-node.sh; fi
ROOT=$(pwd)
BIN=$(hack/testenv.sh build | tail -n 1)
npm run --silent build
DIR=$(TESTENV_BIN=$BIN hack/testenv.sh up)
OP_PID=
stop() {
  trap - EXIT INT TERM
  if [[ -n $OP_PID ]] && kill -0 "$OP_PID" 2>/dev/null; then
    # Ctrl-C already sent SIGINT to the operator (same process group): give it time to stop on its own, since a
    # second signal makes it exit without waiting for helm.
    for ((i = 0; i < 50; i++)); do kill -0 "$OP_PID" 2>/dev/null || break; sleep 0.2; done
    kill -TERM "$OP_PID" 2>/dev/null || true
    wait "$OP_PID" 2>/dev/null || true
    echo "demo: operator stopped" >&2
  fi
  hack/testenv.sh down "$DIR"
  echo "demo: control plane stopped" >&2
}
trap stop EXIT
trap 'exit 130' INT TERM
export KUBECONFIG=$DIR/kubeconfig
K=$BIN/kubectl
$K apply -f config/crd/bases/ >&2
$K wait --for=condition=Established crd/nginxes.demo.example.com --timeout=60s >&2

LOG=$DIR/logs/operator.log
HELM_BINARY=$BIN/helm node dist/cmd/main.js run --watches-file=watches.yaml --zap-encoder=console >"$LOG" 2>&1 &
OP_PID=$!
echo "demo: operator running (pid $OP_PID), logs in $LOG" >&2

$K apply -f config/samples/demo_v1alpha1_nginx.yaml >&2
echo "demo: waiting for nginx-sample to be Deployed ..." >&2
for ((i = 0; i < 120; i++)); do
  status=$($K get nginx nginx-sample -o jsonpath='{.status.conditions[?(@.type=="Deployed")].status}' 2>/dev/null || true)
  [[ $status == True ]] && break
  kill -0 "$OP_PID" 2>/dev/null || { echo "demo: the operator exited; its log:" >&2; cat "$LOG" >&2; exit 1; }
  sleep 0.5
done
[[ $status == True ]] || { echo "demo: nginx-sample is not Deployed after 60s; operator log:" >&2; tail -n 40 "$LOG" >&2; exit 1; }
echo "demo: waiting for nginx-sample to be Ready (its Deployment available on the plane's fake nodes) ..." >&2
for ((i = 0; i < 120; i++)); do
  ready=$($K get nginx nginx-sample -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || true)
  [[ $ready == True ]] && break
  kill -0 "$OP_PID" 2>/dev/null || { echo "demo: the operator exited; its log:" >&2; cat "$LOG" >&2; exit 1; }
  sleep 0.5
done
[[ $ready == True ]] || {
  echo "demo: nginx-sample is not Ready after 60s:" >&2
  $K get nginx nginx-sample -o jsonpath='{.status.conditions[?(@.type=="Ready")]}' >&2
  exit 1
}

echo
$K get nginx
echo
$K get deployment,pod,service,configmap -l app.kubernetes.io/instance=nginx-sample
echo
tail -n 5 "$LOG"
cat <<MSG

The operator is running against a local control plane. In another terminal:

  export KUBECONFIG=$KUBECONFIG
  export PATH=$BIN:\$PATH          # kubectl, helm (v3), helm-v4
  kubectl patch nginx nginx-sample --type=merge -p '{"spec":{"replicaCount":3}}'   # upgrades the release
  kubectl get nginx,deploy
  kubectl scale deploy nginx-sample-nginx --replicas=5                               # drift: scaled back, no helm
  kubectl delete svc nginx-sample-nginx                                              # drift: recreated
  kubectl get events --field-selector reason=DriftCorrected
  kubectl delete nginx nginx-sample                                                  # uninstalls it
  tail -f $LOG

Press Ctrl-C to stop the operator and the control plane.
MSG
wait "$OP_PID" || true
echo "demo: the operator exited; see $LOG" >&2
