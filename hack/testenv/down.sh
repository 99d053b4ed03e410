#!/usr/bin/env bash
# testenv down: stops exactly the processes that `up` started in DIR, by their recorded PIDs (reverse start
# order; SIGTERM, then SIGKILL after 10 s), then deletes DIR unless TESTENV_KEEP=1. Called by hack/testenv.sh
# down, by up.sh on a failed start and by the watchdog. A PID whose command line no longer names the component
# (the PID was reused) is left alone.
set -uo pipefail
W=${1:?usage: hack/testenv.sh down DIR}
[[ -d $W ]] || { echo "testenv down: $W does not exist" >&2; exit 1; }
stop() { # NAME
  local f=$W/$1.pid pid i
  [[ -f $f ]] || return 0
  pid=$(cat "$f")
  rm -f "$f"
  if ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2"; then return 0; fi
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  echo "testenv down: $1 (pid $pid) ignored SIGTERM for 10s; sending SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
}
[[ ${TESTENV_FROM_WATCHDOG:-0} == 1 ]] || stop watchdog testenv-watchdog
stop kube-controller-manager kube-controller-manager
stop kube-apiserver kube-apiserver
stop etcd "etcd"
if [[ ${TESTENV_KEEP:-0} == 1 ]]; then echo "testenv down: stopped; kept $W" >&2; else rm -rf "$W"; fi
