#!/usr/bin/env bash
# The test control plane's stable interface, used by the Makefile, the vitest global setup and benchmarks.
#   hack/testenv.sh build        build or reuse etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
#                                kubectl, kwok, helm v3/v4 from Go modules; prints the bin folder last (stdout)
#   hack/testenv.sh up [DIR]     build (or reuse), then start the control plane with TESTENV_NODES (default 3)
#                                fake nodes; prints the work folder (stdout), which holds `kubeconfig` and `env`
#   hack/testenv.sh down DIR     stop exactly the processes `up` started in DIR, by PID, and delete DIR
#   hack/testenv.sh status DIR   PID, RSS and state of each component
#   hack/testenv.sh build-node   build or reuse a real node's parts (kubelet, kube-proxy, containerd, CNI plugins,
#                                crictl, pause image); `TESTENV_NODES=real hack/testenv.sh up` builds them too and
#                                starts one real node instead of the kwok nodes (root only; hack/testenv/node-up.sh),
#                                with a local registry on the node's address (TESTENV_REGISTRY in DIR/env)
#   hack/testenv.sh load-image IMAGE DIR   copy IMAGE from podman's store into DIR's real node (containerd, k8s.io)
# Progress goes to stderr. Settings (env): see the header of hack/testenv/build.sh and hack/testenv/up.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/testenv" && pwd)
cmd=${1:-}
shift || true
case "$cmd" in
  build) exec "$HERE/build.sh" "$@" ;;
  build-node)
    if [[ -z ${TESTENV_BIN:-} ]]; then TESTENV_BIN=$("$HERE/build.sh" | tail -n 1); fi
    TESTENV_BIN=$TESTENV_BIN exec "$HERE/build-node.sh" "$@"
    ;;
  up)
    # A real node: its missing host tools (podman, runc, iptables, ip) installed from Debian's packages as root, then
    # the machine checked (hack/testenv/node-check.sh), before anything is built.
    if [[ ${TESTENV_NODES:-} == real ]]; then TESTENV_NODE_INSTALL=1 "$HERE/node-check.sh" || exit 1; fi
    if [[ -z ${TESTENV_BIN:-} ]]; then TESTENV_BIN=$("$HERE/build.sh" | tail -n 1); fi
    if [[ ${TESTENV_NODES:-} == real && -z ${TESTENV_NODE_BIN:-} ]]; then
      TESTENV_NODE_BIN=$(TESTENV_BIN=$TESTENV_BIN "$HERE/build-node.sh" | tail -n 1)
      export TESTENV_NODE_BIN
    fi
    TESTENV_BIN=$TESTENV_BIN exec "$HERE/up.sh" "$@"
    ;;
  load-image)
    IMG=${1:?usage: hack/testenv.sh load-image IMAGE DIR}
    W=${2:?usage: hack/testenv.sh load-image IMAGE DIR}
    sock=$(sed -n 's/^TESTENV_CONTAINERD_SOCK=//p' "$W/env" 2>/dev/null || true)
    node_bin=$(sed -n 's/^TESTENV_NODE_BIN=//p' "$W/env" 2>/dev/null || true)
    [[ -S $sock ]] || { echo "testenv load-image: $W has no real node (start it with TESTENV_NODES=real)" >&2; exit 1; }
    T0=$(date +%s%N)
    # podman save | ctr import: a docker-archive keeps the name (localhost/…, docker.io/library/…)
    "${CONTAINER_TOOL:-podman}" save -q --format docker-archive "$IMG" |
      "$node_bin/ctr" -a "$sock" -n k8s.io images import - 2>&1 >/dev/null | { grep -v 'support for cgroup v1 is deprecated' >&2 || true; }
    echo "testenv load-image: $IMG loaded into $W's node in $((($(date +%s%N) - T0) / 1000000))ms" >&2
    ;;
  down) exec "$HERE/down.sh" "$@" ;;
  status)
    W=${1:?usage: hack/testenv.sh status DIR}
    printf '%-24s %8s %10s %s\n' COMPONENT PID RSS_MiB STATE
    for name in etcd kube-apiserver kube-controller-manager kube-scheduler kwok node-forward registry containerd kubelet kube-proxy watchdog; do
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
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
