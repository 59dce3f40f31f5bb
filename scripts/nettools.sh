#!/usr/bin/env bash
# What the pod network namespaces and the proxy's nftables mode need from the host: `ip` (iproute2)
# and `nft` (nftables), installed from the OS packages when root; otherwise say which mode is off.
set -uo pipefail
missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v nft >/dev/null || missing+=(nftables)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; } &&
    { echo "installed ${missing[*]} (pod network namespaces, the proxy's nftables mode)"; exit 0; }
fi
echo "note: ${missing[*]} missing and not installable here (needs root and apt-get):" \
     "KUBUS_POD_NETWORK=namespaces and the proxy's nftables mode are unavailable; the host mode works" >&2
