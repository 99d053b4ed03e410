#!/usr/bin/env bash
# container-tools: makes sure podman (or CONTAINER_TOOL), runc and debootstrap are installed, installing them from
# Debian's packages when missing (as root). Called by hack/image-test.sh and hack/node-test.sh. Exits 0 when they are
# there; otherwise prints why they cannot be (one line, stderr) and exits 1: the caller skips, saying so.
set -euo pipefail
TOOL=${CONTAINER_TOOL:-podman}
missing=()
command -v "$TOOL" >/dev/null || missing+=("$TOOL")
command -v debootstrap >/dev/null || missing+=(debootstrap)
# runc: for cgroups v1 hosts with a cgroup2 hierarchy beside them, which crun refuses (hack/container-flags.sh).
command -v runc >/dev/null || missing+=(runc)
((${#missing[@]} == 0)) && exit 0
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
  echo "${missing[*]} missing, and no root apt-get to install them" >&2
  exit 1
fi
echo "container-tools: installing ${missing[*]} from Debian's packages" >&2
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
  containernetworking-plugins catatonit uidmap; } >/dev/null 2>&1 || { echo "apt-get install ${missing[*]} failed" >&2; exit 1; }
