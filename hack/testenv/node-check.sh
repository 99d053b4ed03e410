#!/usr/bin/env bash
# testenv node-check: can this machine run the real node of `TESTENV_NODES=real hack/testenv.sh up`? Exits 0 when it
# can; otherwise prints the exact reason (one line, stderr) and exits 1. Reads only; starts nothing.
set -uo pipefail
RUNC=${TESTENV_RUNC:-$(command -v runc || true)}
no() { echo "testenv up: TESTENV_NODES=real cannot run a node here: $*" >&2; exit 1; }
[[ $(uname -s) == Linux ]] || no "not Linux ($(uname -s))"
[[ $(id -u) == 0 ]] || no "not root (uid $(id -u)): kubelet and containerd need root for mounts, cgroups, network namespaces and iptables"
if [[ -z $RUNC && ${TESTENV_NODE_CHECK_RUNC_INSTALLABLE:-0} == 1 ]] && command -v apt-get >/dev/null; then
  : # hack/testenv.sh up checks before build-node.sh, which installs Debian's runc when it is missing
else
  [[ -n $RUNC && -x $RUNC ]] || no "runc is missing (apt-get install runc, or TESTENV_RUNC=/path/to/runc)"
  "$RUNC" --version >/dev/null 2>&1 || no "$RUNC --version fails"
fi
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
for b in ip iptables ip6tables mount umount; do command -v "$b" >/dev/null || no "'$b' is missing"; done
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
