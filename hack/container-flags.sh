#!/usr/bin/env bash
# container-flags: prints the extra `build`/`run` flags podman or buildah need on this machine, read from /proc and
# /sys without starting anything; prints nothing where the defaults work. Called by the Makefile (docker-build) and
# hack/image-test.sh. Two cases, both seen on this project's sandboxed machines:
#  - cgroups v1 with a cgroup2 hierarchy beside it ("hybrid"): crun refuses it ("cgroups in hybrid mode not
#    supported"), runc runs it: `--runtime runc` when runc is installed;
#  - no CAP_SYS_RESOURCE: the runtime cannot raise the hard RLIMIT_NOFILE/NPROC that podman asks for by default
#    ("setrlimit `RLIMIT_NPROC`: Operation not permitted"): `--ulimit` with this machine's own hard limits (the
#    runtime's nproc is capped at kernel.pid_max).
set -euo pipefail
flags=()
if [[ -d /sys/fs/cgroup/unified && $(stat -fc %T /sys/fs/cgroup 2>/dev/null) == tmpfs ]] && command -v runc >/dev/null; then
  flags+=(--runtime runc)
fi
cap_eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
if ((((16#${cap_eff:-0}) >> 24 & 1) == 0)); then # bit 24: CAP_SYS_RESOURCE
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo "$nproc")
  if [[ $nproc == unlimited ]] || ((nproc > pid_max)); then nproc=$pid_max; fi
  [[ $nofile == unlimited ]] || flags+=(--ulimit "nofile=$nofile:$nofile")
  flags+=(--ulimit "nproc=$nproc:$nproc")
fi
echo "${flags[@]}"
