#!/usr/bin/env bash
# testenv node-check: can this machine run the real node of `TESTENV_NODES=real hack/testenv.sh up`? Exits 0 when it
# can; otherwise prints the exact reason (one line, stderr) and exits 1. Reads only, except with TESTENV_NODE_INSTALL=1
# (hack/testenv.sh up): then it first installs the missing host tools from Debian's packages as root
# (TESTENV_NODE_INSTALL_DRY_RUN=1 prints the apt-get command and exits 0 instead).
set -uo pipefail
TOOL=${CONTAINER_TOOL:-podman}
no() { echo "testenv up: TESTENV_NODES=real cannot run a node here: $*" >&2; exit 1; }
[[ $(uname -s) == Linux ]] || no "not Linux ($(uname -s))"
# The host tools, by Debian package: podman builds the pause image (build-node.sh), runc runs the containers
# (TESTENV_RUNC names another), iptables and ip6tables for kube-proxy and the pod network, ip for the bridge.
missing_tools() {
  local t
  for t in "$TOOL" runc iptables ip6tables ip mount umount; do
    [[ $t == runc && -n ${TESTENV_RUNC:-} ]] && continue
    command -v "$t" >/dev/null || printf '%s\n' "$t"
  done
}
mapfile -t missing < <(missing_tools)
if ((${#missing[@]} > 0)); then
  pkgs=()
  for t in "${missing[@]}"; do
    case $t in ip6tables) p=iptables ;; ip) p=iproute2 ;; umount) p=mount ;; *) p=$t ;; esac
    [[ " ${pkgs[*]} " == *" $p "* ]] || pkgs+=("$p")
  done
  install="apt-get update && apt-get install -y --no-install-recommends ${pkgs[*]}"
  what="${missing[*]} $( ((${#missing[@]} == 1)) && echo is || echo are) missing"
  runc=$([[ " ${missing[*]} " == *" runc "* ]] && echo ' (or set TESTENV_RUNC=/path/to/runc)')
  if [[ ${TESTENV_NODE_INSTALL:-0} != 1 || $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    no "$what; as root, run: $install$runc; TESTENV_NODES=real hack/testenv.sh up does it when run as root"
  fi
  if [[ ${TESTENV_NODE_INSTALL_DRY_RUN:-0} == 1 ]]; then
    echo "testenv up: $what; would run: $install" >&2
    exit 0
  fi
  echo "testenv up: $what; installing them from Debian's packages: $install" >&2
  out=$({ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}"; } 2>&1) ||
    no "'$install' failed: $(tail -n 1 <<<"$out")"
  mapfile -t missing < <(missing_tools)
  ((${#missing[@]} == 0)) || no "${missing[*]} still missing after '$install'"
fi
[[ $(id -u) == 0 ]] || no "not root (uid $(id -u)): kubelet and containerd need root for mounts, cgroups, network namespaces and iptables"
RUNC=${TESTENV_RUNC:-$(command -v runc)}
[[ -x $RUNC ]] || no "TESTENV_RUNC=$RUNC is not an executable file"
"$RUNC" --version >/dev/null 2>&1 || no "$RUNC --version fails"
fs=$(stat -fc %T /sys/fs/cgroup 2>/dev/null || true)
if [[ $fs == cgroup2fs ]]; then
  grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null || no "cgroup v2 without the memory controller"
  [[ -w /sys/fs/cgroup ]] || no "/sys/fs/cgroup is not writable"
else
  for c in cpu memory pids; do
    [[ -d /sys/fs/cgroup/$c ]] || no "no cgroups: /sys/fs/cgroup/$c is not mounted (found: ${fs:-nothing} at /sys/fs/cgroup)"
    [[ -w /sys/fs/cgroup/$c ]] || no "/sys/fs/cgroup/$c is not writable"
  done
fi
iptables -t nat -S >/dev/null 2>&1 || no "iptables -t nat does not work: $(iptables -t nat -S 2>&1 | head -n 1)"
[[ -e /proc/sys/net/ipv4/ip_forward ]] || no "no /proc/sys/net/ipv4/ip_forward"
grep -qw overlay /proc/filesystems || no "the kernel has no overlay filesystem (containerd's overlayfs snapshotter needs it)"
ip link add testenv-chk0 type bridge 2>/dev/null || no "cannot create a bridge device (ip link add type bridge)"
ip link del testenv-chk0
# One real node per machine: fixed kubelet ports, the shared /kubepods cgroups and /var/lib/kubelet/device-plugins.
if ip link show "${TESTENV_NODE_BRIDGE:-tenv0}" >/dev/null 2>&1; then
  no "bridge ${TESTENV_NODE_BRIDGE:-tenv0} exists: another real node is running on this machine (one per machine)"
fi
S=${TESTENV_NODE_SOCKETS:-/run/testenv-node}
[[ ! -e $S ]] || no "$S exists: another real node is running on this machine, or one was not stopped (hack/testenv.sh down DIR)"
for d in /sys/fs/cgroup/memory/kubepods /sys/fs/cgroup/kubepods; do
  [[ ! -d $d ]] || no "$d exists: another kubelet runs (or ran) on this machine (one real node per machine)"
done
exit 0
