#!/usr/bin/env bash
# Install the Debian packages toolwire needs, only those missing. Idempotent.
set -euo pipefail

PKGS=(
  gcc make cmake pkg-config git ca-certificates
  libcjson-dev libcriterion-dev libcurl4-openssl-dev libmicrohttpd-dev libyaml-dev zlib1g-dev
  libjansson-dev
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "deps: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
