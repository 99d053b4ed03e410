# shellcheck shell=bash
# testenv node-up: starts the real node of `TESTENV_NODES=real hack/testenv.sh up`. Sourced by up.sh once the API
# server serves the default namespace; uses its W, P, BIN, API_PORT, start, wait_for, log, admin_curl and sign.
# The node: containerd (its own root, state and runc root under $W/node; sockets in /run/testenv-node), kubelet and
# kube-proxy (iptables mode), Debian's runc, pods on the bridge $NODE_BRIDGE (10.77.0.1/24, the node's IP) in
# network namespaces that containerd creates, a forwarder 10.77.0.1:6443 -> the API server as the `kubernetes`
# Service's endpoint, a rule that drops whatever the pods send off the bridge (no traffic leaves the machine), and a
# local registry (distribution's, plain HTTP on 10.77.0.1:5000) that containerd pulls from through its hosts.toml.
# Everything it changes outside $W/node is recorded in $W/node/host-state for node-down.sh. One real node per
# machine (fixed kubelet/kube-proxy ports 10248-10250/10256, the registry's 5000, /kubepods cgroups, the
# device-plugins socket).
NODE_BIN=${TESTENV_NODE_BIN:?TESTENV_NODE_BIN must name the folder from hack/testenv.sh build-node}
NODE_NAME=${TESTENV_NODE_NAME:-testenv-real-node}
NODE_BRIDGE=${TESTENV_NODE_BRIDGE:-tenv0}
NODE_SUBNET=10.77.0.0/24 NODE_IP=10.77.0.1
RUNC=${TESTENV_RUNC:-$(command -v runc)}
N=$W/node
# containerd's sockets live in a short folder of their own: its shim socket_dir may have 42 characters at most (the
# shims' sockets must fit in a unix socket path), and W can be long. Fixed name: one real node per machine.
S=${TESTENV_NODE_SOCKETS:-/run/testenv-node}
# kubelet's sockets (kubelet/pod-resources/kubelet.sock, …) live under $N: a unix socket path has 107 bytes at most.
((${#N} <= 64)) || { echo "testenv up: $N is too long for kubelet's unix sockets (${#N} > 64 characters); use a shorter DIR" >&2; exit 1; }
NT0=$(date +%s%N)
mkdir -p "$N"/{containerd,cni/net.d,cni/ipam,kubelet,pod-logs,volume-plugins}
HS=$N/host-state
: >"$HS"
[[ -e $S ]] || echo "created? $S" >>"$HS"
mkdir -p "$S"
chmod 700 "$S"
# Host state before the node touches it: sysctls that kubelet and kube-proxy set, and the fixed paths they create.
for s in vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys \
  kernel.keys.root_maxbytes net.ipv4.ip_forward net.ipv4.conf.all.route_localnet net.netfilter.nf_conntrack_max \
  net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait \
  net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables; do
  v=$(sysctl -n "$s" 2>/dev/null) && echo "sysctl $s=$v" >>"$HS"
done
# (/var/lib/cni may be podman's too: only its results folder is removed, and itself only when empty.)
for p in /var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni/results /run/containerd /etc/kubernetes; do
  [[ -e $p ]] || echo "created? $p" >>"$HS"
done
[[ -e /var/lib/cni ]] || echo "created-dir? /var/lib/cni" >>"$HS"
echo "node-bin $NODE_BIN" >>"$HS"
echo "sockets $S" >>"$HS"

# ---- the bridge (before kubelet, so that the node IP exists) and the no-egress rule ----
ip link add "$NODE_BRIDGE" type bridge
echo "bridge $NODE_BRIDGE" >>"$HS"
ip addr add "$NODE_IP/24" dev "$NODE_BRIDGE"
ip link set "$NODE_BRIDGE" up
# (mangle, not filter: kube-proxy puts its ACCEPT rules first in filter FORWARD; mangle FORWARD comes before them)
iptables -t mangle -I FORWARD -s "$NODE_SUBNET" ! -o "$NODE_BRIDGE" -j DROP
echo "iptables-rule mangle FORWARD -s $NODE_SUBNET ! -o $NODE_BRIDGE -j DROP" >>"$HS"

# ---- identity: a client cert for system:node:NAME (group system:nodes); RBAC only, so bind the node roles ----
sign node "/O=system:nodes/CN=system:node:$NODE_NAME" v3_client
chmod 600 "$P/node.key"
cat >"$N/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $P/ca.crt
users:
- name: node
  user:
    client-certificate: $P/node.crt
    client-key: $P/node.key
contexts:
- name: node
  context: {cluster: testenv, user: node}
current-context: node
KC
for role in system:node system:node-proxier; do
  admin_curl /apis/rbac.authorization.k8s.io/v1/clusterrolebindings -X POST -H 'Content-Type: application/json' -o /dev/null -d @- <<JSON
{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"testenv-${role#system:}"},
 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"$role"},
 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:nodes"}]}
JSON
done

# ---- the `kubernetes` Service's endpoint: the API server listens on loopback only, so a forwarder on the node IP ----
start node-forward "$NODE_BIN/testenv-forward" "$NODE_IP:6443" "127.0.0.1:$API_PORT"
wait_for kube-apiserver admin_curl /api/v1/namespaces/default/services/kubernetes
admin_curl /apis/discovery.k8s.io/v1/namespaces/default/endpointslices -X POST -H 'Content-Type: application/json' -o /dev/null -d @- <<JSON
{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"kubernetes-testenv",
 "labels":{"kubernetes.io/service-name":"kubernetes","endpointslice.kubernetes.io/managed-by":"testenv"}},
 "addressType":"IPv4","endpoints":[{"addresses":["$NODE_IP"],"conditions":{"ready":true}}],
 "ports":[{"name":"https","port":6443,"protocol":"TCP"}]}
JSON

# ---- the local registry: distribution's, plain HTTP on the node's address, its storage under $N; podman pushes to
# it with registries.conf below (insecure), containerd pulls from it through hosts.toml ----
REGISTRY=$NODE_IP:5000
mkdir -p "$N/registry/storage"
cat >"$N/registry/config.yml" <<YAML
version: 0.1
log: {level: warn, fields: {service: registry}}
storage:
  filesystem: {rootdirectory: $N/registry/storage}
  delete: {enabled: true}
http:
  addr: $REGISTRY
YAML
cat >"$N/registry/registries.conf" <<CONF
[[registry]]
location = "$REGISTRY"
insecure = true
CONF
start registry env OTEL_TRACES_EXPORTER=none "$NODE_BIN/registry" serve "$N/registry/config.yml"
wait_for registry curl -fsS -o /dev/null "http://$REGISTRY/v2/"

# ---- containerd (TOML expands nothing: literal paths) ----
C=$N/containerd
mkdir -p "$C/certs.d/$REGISTRY"
cat >"$C/certs.d/$REGISTRY/hosts.toml" <<TOML
server = "http://$REGISTRY"
[host."http://$REGISTRY"]
  capabilities = ["pull", "resolve"]
TOML
cat >"$C/config.toml" <<TOML
version = 3
root = "$C/root"
state = "$C/state"
imports = []
disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.blockfile", "io.containerd.snapshotter.v1.erofs",
  "io.containerd.snapshotter.v1.btrfs"]
[grpc]
  address = "$S/containerd.sock"
[ttrpc]
  address = "$S/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = "overlayfs"
    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = "$C/certs.d"
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = "$(cat "$NODE_BIN/pause.image")"
  [plugins.'io.containerd.cri.v1.runtime']
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = "runc"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = "$RUNC"
          SystemdCgroup = false
          Root = "$C/runc-root"
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ["$NODE_BIN/cni"]
      conf_dir = "$N/cni/net.d"
  [plugins.'io.containerd.shim.v1.manager']
    socket_dir = "$S/s"
  [plugins.'io.containerd.grpc.v1.cri']
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
TOML
cat >"$N/cni/net.d/10-testenv.conflist" <<JSON
{"cniVersion":"1.0.0","name":"testenv","plugins":[
 {"type":"bridge","bridge":"$NODE_BRIDGE","isGateway":true,"ipMasq":false,"hairpinMode":true,
  "ipam":{"type":"host-local","dataDir":"$N/cni/ipam","ranges":[[{"subnet":"$NODE_SUBNET","gateway":"$NODE_IP"}]],
   "routes":[{"dst":"0.0.0.0/0"}]}},
 {"type":"portmap","capabilities":{"portMappings":true}}]}
JSON
start containerd env PATH="$NODE_BIN:$PATH" "$NODE_BIN/containerd" --config "$C/config.toml"
wait_for containerd "$NODE_BIN/ctr" -a "$S/containerd.sock" version
"$NODE_BIN/ctr" -a "$S/containerd.sock" -n k8s.io images import "$NODE_BIN/pause.tar" >/dev/null 2>>"$W/logs/ctr.log"
log "node: containerd ready, pause image imported"

# ---- kubelet and kube-proxy ----
cat >"$N/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://$S/containerd.sock
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
resolvConf: ""
podLogsDir: $N/pod-logs
volumePluginDir: $N/volume-plugins
rotateCertificates: false
serverTLSBootstrap: false
registerNode: true
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
YAML
start kubelet "$NODE_BIN/kubelet" --config="$N/kubelet.yaml" --kubeconfig="$N/kubeconfig" --root-dir="$N/kubelet" \
  --cert-dir="$N/kubelet/pki" --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=2
cat >"$N/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: $NODE_SUBNET
hostnameOverride: $NODE_NAME
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
clientConnection: {kubeconfig: $N/kubeconfig}
YAML
start kube-proxy "$NODE_BIN/kube-proxy" --config="$N/kube-proxy.yaml"
node_ready() { admin_curl "/api/v1/nodes/$NODE_NAME" | grep -q '"type":"Ready","status":"True"'; }
wait_for kubelet node_ready
log "node: $NODE_NAME Ready"
wait_for kube-proxy curl -fsS http://127.0.0.1:10256/healthz
kube_svc_rules() { iptables -t nat -S KUBE-SERVICES | grep -q 'default/kubernetes:https'; }
wait_for kube-proxy kube_svc_rules
NODE_STARTUP_MS=$((($(date +%s%N) - NT0) / 1000000))
echo "$NODE_STARTUP_MS" >"$N/startup-ms"
log "node: $NODE_NAME Ready and kube-proxy serving the kubernetes Service, ${NODE_STARTUP_MS}ms after the node's start"
