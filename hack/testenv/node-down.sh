# shellcheck shell=bash
# testenv node-down: stops the real node that node-up.sh started in $W/node and undoes what it changed outside it
# (from $W/node/host-state). Sourced by down.sh before the control plane stops; uses its W, stop and running.
# Order: kubelet (so that nothing restarts), every pod sandbox through CRI (CNI DEL, network namespaces, cgroups),
# kube-proxy and its rules (kube-proxy --cleanup), containerd and any shim or container left, the forwarder and the
# registry (its storage is under $W/node); then
# mounts under $W/node, the kubepods cgroups, the KUBE-* iptables chains, the no-egress rule, the bridge, sysctls
# and the fixed paths kubelet/containerd created.
N=$W/node
NODE_BIN=$(sed -n 's/^TESTENV_NODE_BIN=//p' "$W/env" 2>/dev/null)
[[ -n $NODE_BIN ]] || NODE_BIN=$(sed -n 's/^node-bin //p' "$N/host-state" 2>/dev/null)
C=$N/containerd
SOCK=$(sed -n 's/^TESTENV_CONTAINERD_SOCK=//p' "$W/env" 2>/dev/null)
[[ -n $SOCK ]] || SOCK=$(sed -n 's/^sockets //p' "$N/host-state" 2>/dev/null)/containerd.sock
nlog() { echo "testenv down: node: $*" >&2; }
stop kubelet "$N/kubelet.yaml"
if [[ -S $SOCK && -x $NODE_BIN/crictl ]] && running "$(cat "$W/containerd.pid" 2>/dev/null || echo 0)"; then
  cri() { timeout 60 "$NODE_BIN/crictl" -r "unix://$SOCK" -i "unix://$SOCK" --timeout 30s "$@"; }
  pods=$(cri pods -q 2>/dev/null)
  if [[ -n $pods ]]; then
    # shellcheck disable=SC2086 # one argument per pod ID
    cri stopp $pods >/dev/null 2>&1 || nlog "crictl stopp failed"
    # shellcheck disable=SC2086
    cri rmp -f $pods >/dev/null 2>&1 || nlog "crictl rmp failed"
  fi
fi
stop kube-proxy "$N/kube-proxy.yaml"
[[ ! -x $NODE_BIN/kube-proxy ]] || timeout 60 "$NODE_BIN/kube-proxy" --cleanup >"$W/logs/kube-proxy-cleanup.log" 2>&1 || true
stop containerd "$C/config.toml"
# Shims and containers that outlived containerd: found by our paths only, stopped by PID.
for pid in $(pgrep -f -- "-address $SOCK" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
RUNC=$(command -v runc || true)
if [[ -n $RUNC && -d $C/runc-root ]]; then
  for ns in "$C"/runc-root/*/; do
    [[ -d $ns ]] || continue
    for id in $("$RUNC" --root "$ns" list -q 2>/dev/null); do
      "$RUNC" --root "$ns" kill -a "$id" KILL >/dev/null 2>&1
      "$RUNC" --root "$ns" delete -f "$id" >/dev/null 2>&1
    done
  done
fi
stop node-forward testenv-forward
stop registry "$N/registry/config.yml"
# Mounts under the node's folder (overlay snapshots, network namespaces, kubelet's bind mount of its root, volumes),
# deepest first; lazily when busy.
node_mounts() { awk -v n="$N" '$5 == n || index($5, n "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r; }
for ((i = 0; i < 3; i++)); do
  m=$(node_mounts)
  [[ -n $m ]] || break
  while read -r mp; do umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null; done <<<"$m"
done
# cgroups: kubelet's /kubepods in every hierarchy (node-check.sh made sure no other kubelet had them), deepest first.
for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
  [[ -d $d ]] || continue
  find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
  [[ ! -d $d ]] || nlog "could not remove $d (a process is still in it?)"
done
# iptables and ip6tables: the jumps from built-in chains to KUBE-* chains, then the chains (kubelet's KUBE-FIREWALL,
# KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT and anything kube-proxy --cleanup left).
for ipt in iptables ip6tables; do
  for t in filter nat mangle raw; do
    "$ipt" -t "$t" -S 2>/dev/null | grep -E '^-A [A-Z]+ .*-j KUBE-' | grep -vE '^-A KUBE-' | while read -r rule; do
      eval "\"\$ipt\" -t \"\$t\" ${rule/-A/-D}" 2>/dev/null # eval: -S quotes comments ("kubernetes service portals")
    done
    chains=$("$ipt" -t "$t" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p')
    for c in $chains; do "$ipt" -t "$t" -F "$c" 2>/dev/null; done
    for c in $chains; do "$ipt" -t "$t" -X "$c" 2>/dev/null; done
  done
done
while read -r kind a rest; do
  case $kind in
    # shellcheck disable=SC2086 # the rule's own words
    iptables-rule) iptables -t "$a" -D $rest 2>/dev/null ;;
    bridge) ip link del "$a" 2>/dev/null ;;
    sysctl) sysctl -q -w "$a" >/dev/null 2>&1 ;;
  esac
done <"$N/host-state" 2>/dev/null
# Fixed paths the node created (absent before it started): /var/lib/kubelet/device-plugins, /var/log/containers, …
while read -r kind p; do
  [[ $kind == 'created?' && -e $p ]] || continue
  if awk -v n="$p" '$5 == n || index($5, n "/") == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
    nlog "left $p: something is mounted under it"
  else
    rm -rf "$p"
  fi
done <"$N/host-state" 2>/dev/null
sed -n 's/^created-dir? //p' "$N/host-state" 2>/dev/null | while read -r p; do rmdir "$p" 2>/dev/null; done
if [[ -n $(node_mounts) ]]; then
  nlog "mounts are left under $N; keeping $W"
  TESTENV_KEEP=1
fi
