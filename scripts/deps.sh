#!/usr/bin/env bash
# Install the Debian packages toolwire needs, only those missing. Idempotent.
#   scripts/deps.sh           the build and the main job
#   scripts/deps.sh --node    also Node.js and npm (the tests that drive real SDKs), from
#                             Debian's packages when no node/npm is on the PATH yet
#   scripts/deps.sh --browser also Debian's chromium (the tests that load the HTML reports)
#   scripts/deps.sh --bench   also wrk (the HTTP part of scripts/bench.sh)
#                             (options combine: --node --browser)
set -euo pipefail
with_node=0
with_browser=0
with_bench=0
for arg in "$@"; do
  case "$arg" in
    --node) with_node=1 ;;
    --browser) with_browser=1 ;;
    --bench) with_bench=1 ;;
    *) echo "usage: scripts/deps.sh [--node] [--browser] [--bench]" >&2; exit 2 ;;
  esac
done

PKGS=(
  gcc make cmake pkg-config git ca-certificates curl
  libcjson-dev libcriterion-dev libcurl4-openssl-dev libmicrohttpd-dev libyaml-dev zlib1g-dev
  libjansson-dev
  clang libclang-rt-14-dev llvm clang-format
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "$with_node" -eq 1 ]; then
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
fi
if [ "$with_browser" -eq 1 ] && ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
  missing+=(chromium)
fi

if [ "$with_bench" -eq 1 ]; then
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
fi

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
