#!/usr/bin/env bash
# testenv up: starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on loopback,
# envtest-style, with random free ports, RBAC and an admin client-certificate kubeconfig, and registers
# TESTENV_NODES fake Nodes (default 3) that kwok keeps Ready; kwok also fakes the status of the Pods scheduled to
# them (hack/testenv/kwok-stages.yaml). TESTENV_NODES=0 is the plane without nodes: no kube-scheduler, no kwok, and
# kube-controller-manager runs only the garbage-collector and namespace controllers.
# TESTENV_NODES=real: one real node instead (kubelet, containerd, runc, CNI bridge, kube-proxy; see
# hack/testenv/node-up.sh), built by hack/testenv.sh build-node into TESTENV_NODE_BIN; root only, one per machine.
# Called by hack/testenv.sh up. stdout: the work folder (holds kubeconfig, env, pki/, logs/, *.pid).
# On a failed start it prints the failing component's log tail and stops everything it started.
set -euo pipefail
BIN=${TESTENV_BIN:?TESTENV_BIN must name the folder holding etcd, kube-apiserver and kube-controller-manager}
ETCD_BIN=${TESTENV_ETCD:-$BIN/etcd}
HERE=$(cd "$(dirname "$0")" && pwd)
NODES=${TESTENV_NODES:-3}
KWOK_STAGES=${TESTENV_KWOK_STAGES:-$HERE/kwok-stages.yaml}
REAL=0
if [[ $NODES == real ]]; then
  REAL=1 NODES=0
  "$HERE/node-check.sh" || exit 1
  for b in kubelet kube-proxy containerd ctr crictl containerd-shim-runc-v2 testenv-forward pause.tar cni/bridge; do
    [[ -e ${TESTENV_NODE_BIN:-}/$b ]] || { echo "testenv up: ${TESTENV_NODE_BIN:-\$TESTENV_NODE_BIN}/$b is missing; run 'hack/testenv.sh build-node' first" >&2; exit 1; }
  done
fi
[[ $NODES =~ ^[0-9]+$ ]] && ((10#$NODES <= 250)) ||
  { echo "testenv up: TESTENV_NODES=$NODES is not a number of nodes from 0 to 250" >&2; exit 1; }
NODES=$((10#$NODES))
# Checked before the work folder exists, so that a missing binary leaves nothing behind.
need=("$ETCD_BIN" "$BIN/kube-apiserver")
((NODES == 0)) || need+=("$BIN/kube-scheduler" "$BIN/kwok")
((REAL == 0)) || need+=("$BIN/kube-scheduler")
for b in "${need[@]}"; do
  [[ -x $b ]] || { echo "testenv up: $b is missing; run 'hack/testenv.sh build' first (or TESTENV_NODES=0 for a plane without nodes)" >&2; exit 1; }
done
command -v openssl >/dev/null || { echo "testenv up: openssl is needed (apt-get install openssl)" >&2; exit 1; }
command -v curl >/dev/null || { echo "testenv up: curl is needed (apt-get install curl)" >&2; exit 1; }
W=${1:-$(mktemp -d "${TMPDIR:-/tmp}/testenv.XXXXXX")}
mkdir -p "$W/pki" "$W/etcd-data" "$W/logs"
chmod 700 "$W" "$W/etcd-data"
W=$(cd "$W" && pwd)
TIMEOUT=${TESTENV_START_TIMEOUT:-90} # seconds per component
T0=$(date +%s%N)
ms() { echo $((($(date +%s%N) - T0) / 1000000)); }
log() { echo "testenv up [$(ms)ms] $*" >&2; }

ok=0
trap '[[ $ok == 1 ]] || TESTENV_KEEP=${TESTENV_KEEP:-1} "$HERE/down.sh" "$W" >&2' EXIT

# Free ports, below the kernel's ephemeral range: a port picked by binding port 0 comes from that range, and between
# our closing it and etcd binding it, any outgoing connection of this busy machine (tests, operators, other planes)
# may take it as its source port ("bind: address already in use", seen in CI). Random ports under the range's low
# end, each checked bindable on loopback, are never handed out that way. All five at once, so they differ.
read -r ETCD_PORT ETCD_PEER_PORT API_PORT KCM_PORT SCHED_PORT < <(
  python3 -c 'import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
got = []
while len(got) < 5:
    p = random.randrange(10000, max(10001, low))
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        if p not in got: got.append(p)
    except OSError:
        pass
    finally:
        s.close()
print(*got)' 2>/dev/null ||
    node -e 'const n=require("net");const ss=[0,1,2,3,4].map(()=>n.createServer());let p=[];ss.forEach(s=>s.listen(0,"127.0.0.1",()=>{p.push(s.address().port);if(p.length===5){console.log(p.join(" "));ss.forEach(x=>x.close())}}))'
)
[[ -n ${SCHED_PORT:-} ]] || { echo "testenv up: could not find free ports (needs python3 or node)" >&2; exit 1; }

# wait_for NAME CMD...: poll CMD every 0.1 s until it succeeds, the process dies, or TIMEOUT.
wait_for() {
  local name=$1 pid i
  shift
  pid=$(cat "$W/$name.pid")
  for ((i = 0; i < TIMEOUT * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "testenv up: $name exited early; last lines of $W/logs/$name.log:" >&2; tail -n 40 "$W/logs/$name.log" >&2; return 1; }
    sleep 0.1
  done
  echo "testenv up: $name not ready after ${TIMEOUT}s; last lines of $W/logs/$name.log:" >&2
  tail -n 40 "$W/logs/$name.log" >&2
  return 1
}
# start NAME CMD...: run CMD in its own process group, log to logs/NAME.log, record the PID.
start() {
  local name=$1
  shift
  setsid "$@" >"$W/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$W/$name.pid"
}

# ---- etcd (started first: it needs no certificates, and the PKI is made while it starts) ----
etcd_extra=()
if "$ETCD_BIN" --help 2>&1 | grep -q -- '--unsafe-no-fsync'; then etcd_extra+=(--unsafe-no-fsync=true); fi
start etcd "$ETCD_BIN" --name=testenv --data-dir="$W/etcd-data" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="testenv=http://127.0.0.1:$ETCD_PEER_PORT" --log-level=warn "${etcd_extra[@]}"

# ---- PKI: one CA signs the serving cert and the admin client cert; a separate service-account key ----
P=$W/pki
# A real node's pods reach the API server as https://10.0.0.1 (the `kubernetes` Service) with the mounted ca.crt.
SANS="DNS:localhost,IP:127.0.0.1"
((REAL == 0)) || SANS+=",IP:10.0.0.1,IP:10.77.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
cat >"$P/openssl.cnf" <<CNF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[v3_server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = $SANS
authorityKeyIdentifier = keyid
[v3_client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
CNF
newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
sign() { # NAME SUBJECT EXTENSION_SECTION
  newkey "$P/$1.key"
  openssl req -new -key "$P/$1.key" -subj "$2" -config "$P/openssl.cnf" -out "$P/$1.csr"
  openssl x509 -req -in "$P/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 7 \
    -extfile "$P/openssl.cnf" -extensions "$3" -out "$P/$1.crt" 2>/dev/null
}
newkey "$P/ca.key"
openssl req -x509 -new -key "$P/ca.key" -subj "/O=testenv/CN=testenv-ca" -days 7 \
  -config "$P/openssl.cnf" -extensions v3_ca -out "$P/ca.crt"
sign apiserver "/O=testenv/CN=localhost" v3_server
sign admin "/O=system:masters/CN=testenv-admin" v3_client
# A real node's plane has the aggregation layer (an extension API server such as OLM's packageserver is reached
# through it): its own front-proxy CA and the client certificate the API server proxies with, as kubeadm makes them.
if ((REAL == 1)); then
  newkey "$P/front-proxy-ca.key"
  openssl req -x509 -new -key "$P/front-proxy-ca.key" -subj "/CN=front-proxy-ca" -days 7 \
    -config "$P/openssl.cnf" -extensions v3_ca -out "$P/front-proxy-ca.crt"
  newkey "$P/front-proxy-client.key"
  openssl req -new -key "$P/front-proxy-client.key" -subj "/CN=front-proxy-client" -config "$P/openssl.cnf" \
    -out "$P/front-proxy-client.csr"
  openssl x509 -req -in "$P/front-proxy-client.csr" -CA "$P/front-proxy-ca.crt" -CAkey "$P/front-proxy-ca.key" \
    -CAcreateserial -days 7 -extfile "$P/openssl.cnf" -extensions v3_client -out "$P/front-proxy-client.crt" 2>/dev/null
fi
newkey "$P/sa.key"
openssl pkey -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
chmod 600 "$P"/*.key
log "pki ready"

# ---- kube-apiserver ----
# TaintNodesByCondition is off: it taints every new Node node.kubernetes.io/not-ready:NoSchedule, and only the
# node-lifecycle-controller (not run here: kwok's Nodes send no heartbeats) would take that taint off again.
# A real node keeps the ServiceAccount admission plugin (pods get their projected token), and the API server reaches
# its kubelet by InternalIP (no DNS for the node's name).
ADMISSION_OFF=ServiceAccount,TaintNodesByCondition api_node=()
((REAL == 0)) || { ADMISSION_OFF=TaintNodesByCondition; api_node=(--kubelet-preferred-address-types=InternalIP); }
# The aggregation layer (above); the API server reaches an APIService's pods by their endpoints (it runs beside the
# node, outside any pod network).
((REAL == 0)) || api_node+=(
  --requestheader-client-ca-file="$P/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group
  --requestheader-extra-headers-prefix=X-Remote-Extra- --proxy-client-cert-file="$P/front-proxy-client.crt"
  --proxy-client-key-file="$P/front-proxy-client.key" --enable-aggregator-routing=true)
# shellcheck disable=SC2086 # TESTENV_APISERVER_EXTRA_ARGS is a list of flags on purpose
start kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
  --cert-dir="$P" --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" \
  --client-ca-file="$P/ca.crt" \
  --authorization-mode=RBAC \
  --service-account-issuer="https://127.0.0.1:$API_PORT/" \
  --service-account-key-file="$P/sa.pub" \
  --service-account-signing-key-file="$P/sa.key" \
  --service-cluster-ip-range=${TESTENV_SERVICE_CIDR:-10.0.0.0/16} \
  --allow-privileged=true \
  --disable-admission-plugins=$ADMISSION_OFF \
  --endpoint-reconciler-type=none "${api_node[@]}" \
  ${TESTENV_APISERVER_EXTRA_ARGS:-}
# kube-apiserver retries etcd while it starts, so it started without waiting; etcd's own check comes now, so that
# an etcd failure shows etcd's log rather than the API server's.
wait_for etcd curl -fsS "http://127.0.0.1:$ETCD_PORT/health"
log "etcd healthy on 127.0.0.1:$ETCD_PORT"

# ---- kubeconfig: the admin user is a client certificate in group system:masters ----
cat >"$W/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(base64 -w0 "$P/ca.crt")
users:
- name: testenv-admin
  user:
    client-certificate-data: $(base64 -w0 "$P/admin.crt")
    client-key-data: $(base64 -w0 "$P/admin.key")
contexts:
- name: testenv
  context:
    cluster: testenv
    user: testenv-admin
    namespace: default
current-context: testenv
KC
chmod 600 "$W/kubeconfig"

# (-A: the API server pretty-prints JSON for a curl user agent; nodes_ready below greps the compact form)
admin_curl() { curl -fsS -A testenv-up --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" "https://127.0.0.1:$API_PORT$1" "${@:2}"; }
wait_for kube-apiserver admin_curl /readyz
log "kube-apiserver ready (/readyz) on 127.0.0.1:$API_PORT"

# ---- kube-controller-manager, kube-scheduler and kwok start together; then the Nodes are registered ----
# kube-controller-manager (TESTENV_KCM=0 skips it). With nodes (fake or real): every controller a default
# kube-controller-manager runs ('*': also the cluster-role aggregation, the PV binder and the PV/PVC protection that
# frees their finalizers, quota, PDB, CronJob, HPA, TTL, ServiceAccount, kube-root-ca.crt, CSR signing with our CA),
# less the ones that need a cloud or real nodes: node-lifecycle would mark kwok's Nodes, which send no heartbeats,
# NotReady 50 s after they register and evict their Pods; node-ipam allocates no CIDRs here (each Node gets its
# podCIDR below); the three cloud controllers need a cloud provider. Without nodes: only the garbage collector and
# namespace deletion (the bench's plane). docs/contributing.md lists them and why.
KCM_CONTROLLERS=garbage-collector-controller,namespace-controller
if ((NODES > 0 || REAL == 1)); then
  KCM_CONTROLLERS='*,-node-lifecycle-controller,-node-ipam-controller'
  KCM_CONTROLLERS+=,-service-lb-controller,-node-route-controller,-cloud-node-lifecycle-controller
fi
if [[ ${TESTENV_KCM:-1} == 1 ]]; then
  [[ -x $BIN/kube-controller-manager ]] || { echo "testenv up: $BIN/kube-controller-manager is missing" >&2; exit 1; }
  start kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig="$W/kubeconfig" \
    --controllers="${TESTENV_KCM_CONTROLLERS:-$KCM_CONTROLLERS}" \
    --leader-elect=false \
    --use-service-account-credentials=false \
    --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" \
    --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
    --flex-volume-plugin-dir="$W/flexvolume" \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
    --kube-api-qps=100 --kube-api-burst=200
fi
if ((NODES > 0 || REAL == 1)); then
  start kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig="$W/kubeconfig" \
    --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" \
    --kube-api-qps=100 --kube-api-burst=200
fi
if ((NODES > 0)); then
  # kwok: only our stages (KWOK_WORKDIR keeps it from reading ~/.kwok/kwok.yaml), only the Nodes labelled below,
  # no node leases (nothing reads them), no server. Pod IPs come from each Node's podCIDR.
  mkdir -p "$W/kwok"
  start kwok env KWOK_WORKDIR="$W/kwok" "$BIN/kwok" \
    --kubeconfig="$W/kubeconfig" \
    --config="$KWOK_STAGES" \
    --manage-nodes-with-label-selector=testenv.local/node=true \
    --node-lease-duration-seconds=0 \
    --cidr=10.244.0.0/24
fi
# (the components above do not need the default namespace; tests and charts do)
wait_for kube-apiserver admin_curl /api/v1/namespaces/default
if ((NODES > 0)); then
  # The Nodes: name testenv-node-N, InternalIP 10.200.0.N, podCIDR 10.244.N.0/24; no taints, so every Pod fits.
  kubelet_version=$(sed -n 's/^Kubernetes //p' "$BIN/VERSIONS" 2>/dev/null || true)
  for ((n = 1; n <= NODES; n++)); do
    admin_curl /api/v1/nodes -X POST -H 'Content-Type: application/json' -o /dev/null -d @- <<NODE
{"apiVersion":"v1","kind":"Node","metadata":{"name":"testenv-node-$n",
 "labels":{"testenv.local/node":"true","kubernetes.io/hostname":"testenv-node-$n",
  "kubernetes.io/os":"linux","kubernetes.io/arch":"amd64"},
 "annotations":{"testenv.local/node-ip":"10.200.0.$n","testenv.local/kubelet-version":"${kubelet_version:-}",
  "node.alpha.kubernetes.io/ttl":"0"}},
 "spec":{"podCIDR":"10.244.$n.0/24","podCIDRs":["10.244.$n.0/24"]}}
NODE
  done
  log "registered $NODES nodes"
fi

if [[ -f $W/kube-controller-manager.pid ]]; then
  wait_for kube-controller-manager curl -fsSk "https://127.0.0.1:$KCM_PORT/healthz"
  log "kube-controller-manager healthy on 127.0.0.1:$KCM_PORT (${TESTENV_KCM_CONTROLLERS:-$KCM_CONTROLLERS})"
fi
if ((NODES > 0 || REAL == 1)); then
  wait_for kube-scheduler curl -fsSk "https://127.0.0.1:$SCHED_PORT/healthz"
  log "kube-scheduler healthy on 127.0.0.1:$SCHED_PORT"
fi
if ((REAL == 1)); then
  # shellcheck source=hack/testenv/node-up.sh
  source "$HERE/node-up.sh"
fi
if ((NODES > 0)); then
  nodes_ready() {
    (($(admin_curl '/api/v1/nodes?labelSelector=testenv.local%2Fnode%3Dtrue' | grep -o '"type":"Ready","status":"True"' | wc -l) >= NODES))
  }
  wait_for kwok nodes_ready
  log "$NODES nodes Ready (kwok)"
fi

cat >"$W/env" <<ENV
KUBECONFIG=$W/kubeconfig
TESTENV_DIR=$W
TESTENV_BIN=$BIN
TESTENV_API_URL=https://127.0.0.1:$API_PORT
TESTENV_ETCD_URL=http://127.0.0.1:$ETCD_PORT
TESTENV_NODES=$((NODES + REAL))
ENV
if ((REAL == 1)); then
  cat >>"$W/env" <<ENV
TESTENV_REAL_NODE=$NODE_NAME
TESTENV_NODE_BIN=$NODE_BIN
TESTENV_NODE_STARTUP_MS=$NODE_STARTUP_MS
TESTENV_CONTAINERD_SOCK=$S/containerd.sock
TESTENV_REGISTRY=$REGISTRY
TESTENV_REGISTRIES_CONF=$N/registry/registries.conf
ENV
fi

# Optional watchdog: when TESTENV_WATCH_PID dies (a killed test runner), stop everything started here.
if [[ -n ${TESTENV_WATCH_PID:-} ]]; then
  setsid bash -c 'while kill -0 "$1" 2>/dev/null && [[ -d $3 ]]; do sleep 2; done; [[ -d $3 ]] && TESTENV_FROM_WATCHDOG=1 "$2" "$3"' \
    testenv-watchdog "$TESTENV_WATCH_PID" "$HERE/down.sh" "$W" >"$W/logs/watchdog.log" 2>&1 </dev/null &
  echo $! >"$W/watchdog.pid"
fi
ok=1
log "control plane up in $(ms)ms"
echo "$W"
