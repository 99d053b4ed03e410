#!/usr/bin/env bash
# testenv down: stops exactly the processes that `up` started in DIR, by their recorded PIDs, each with its process
# group (up starts every component with setsid): kwok, kube-scheduler and kube-controller-manager together, then
# kube-apiserver, then etcd; SIGTERM, then SIGKILL after 10 s. Then deletes DIR unless TESTENV_KEEP=1. Called by
# hack/testenv.sh down, by up.sh on a failed start and by the watchdog. A PID whose command line no longer names the
# component (the PID was reused) is left alone. With a real node, it first stops the node and undoes its changes.
set -uo pipefail
W=${1:?usage: hack/testenv.sh down DIR}
[[ -d $W ]] || { echo "testenv down: $W does not exist" >&2; exit 1; }
# running PID: the process exists and is not a zombie. A zombie has exited and released everything (ports, files,
# memory); only its parent (init, for these reparented components) still has to reap it, which can take a while.
running() {
  local st
  st=$(sed -n 's/^.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $st && $st != Z ]]
}
stop() { # NAME PATTERN
  local f=$W/$1.pid pid target i
  [[ -f $f ]] || return 0
  pid=$(cat "$f")
  rm -f "$f"
  if ! tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q -- "$2"; then return 0; fi
  # The whole process group when the component leads its own (it does, through setsid), else the PID alone.
  target=$pid
  [[ $(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ') == "$pid" ]] && target=-$pid
  kill -TERM -- "$target" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do running "$pid" || return 0; sleep 0.1; done
  echo "testenv down: $1 (pid $pid) ignored SIGTERM for 10s; sending SIGKILL" >&2
  kill -KILL -- "$target" 2>/dev/null || true
}
[[ ${TESTENV_FROM_WATCHDOG:-0} == 1 ]] || stop watchdog testenv-watchdog
# A real node (TESTENV_NODES=real) first: its pods, daemons and host changes (hack/testenv/node-down.sh).
if [[ -d $W/node ]]; then
  # shellcheck source=hack/testenv/node-down.sh
  source "$(dirname "$0")/node-down.sh"
fi
# The API server's clients first, in parallel; they would only log errors once it is gone.
stop kwok kwok &
stop kube-scheduler kube-scheduler &
stop kube-controller-manager kube-controller-manager &
wait
stop kube-apiserver kube-apiserver
stop etcd "etcd"
if [[ ${TESTENV_KEEP:-0} == 1 ]]; then echo "testenv down: stopped; kept $W" >&2; else rm -rf "$W"; fi
