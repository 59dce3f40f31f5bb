#!/usr/bin/env bash
# What real containers need from the host (issue 36): containerd and runc, the CNI plugins, the
# registry images are served from, and the binaries kubus builds its images from (busybox-static,
# catatonit; python3-kubernetes for kubus/python-kubernetes). Installed from the OS packages when
# root; otherwise say what is missing and go on.
set -uo pipefail
declare -A needs=(
  [containerd]=/usr/bin/containerd
  [runc]=/usr/sbin/runc
  [containernetworking-plugins]=/usr/lib/cni/bridge
  [docker-registry]=/usr/bin/docker-registry
  [busybox-static]=/bin/busybox
  [catatonit]=/usr/bin/catatonit
  [python3-kubernetes]=/usr/lib/python3/dist-packages/kubernetes/__init__.py
)
missing=()
for package in "${!needs[@]}"; do
  dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    [ -x "${needs[$package]}" ] || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; } &&
    { echo "installed ${missing[*]} (real containers and their images)"; exit 0; }
fi
echo "note: ${missing[*]} missing and not installable here (needs root and apt-get):" \
     "real containers and the local image registry are unavailable" >&2
