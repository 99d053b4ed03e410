#!/usr/bin/env bash
# The test control plane's stable interface, used by the Makefile, the vitest global setup and benchmarks.
#   hack/testenv.sh build        build or reuse etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
#                                kubectl, kwok, helm v3/v4 from Go modules; prints the bin folder last (stdout)
#   hack/testenv.sh up [DIR]     build (or reuse), then start the control plane with TESTENV_NODES (default 3)
#                                fake nodes; prints the work folder (stdout), which holds `kubeconfig` and `env`
#   hack/testenv.sh down DIR     stop exactly the processes `up` started in DIR, by PID, and delete DIR
#   hack/testenv.sh status DIR   PID, RSS and state of each component
# Progress goes to stderr. Settings (env): see the header of hack/testenv/build.sh and hack/testenv/up.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/testenv" && pwd)
cmd=${1:-}
shift || true
case "$cmd" in
  build) exec "$HERE/build.sh" "$@" ;;
  up)
    if [[ -z ${TESTENV_BIN:-} ]]; then TESTENV_BIN=$("$HERE/build.sh" | tail -n 1); fi
    TESTENV_BIN=$TESTENV_BIN exec "$HERE/up.sh" "$@"
    ;;
  down) exec "$HERE/down.sh" "$@" ;;
  status)
    W=${1:?usage: hack/testenv.sh status DIR}
    printf '%-24s %8s %10s %s\n' COMPONENT PID RSS_MiB STATE
    for name in etcd kube-apiserver kube-controller-manager kube-scheduler kwok watchdog; do
      [[ -f $W/$name.pid ]] || continue
      pid=$(cat "$W/$name.pid")
      if rss=$(ps -o rss= -p "$pid" 2>/dev/null); then
        printf '%-24s %8s %10s %s\n' "$name" "$pid" "$((rss / 1024))" running
      else
        printf '%-24s %8s %10s %s\n' "$name" "$pid" - gone
      fi
    done
    ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
