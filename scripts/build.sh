#!/usr/bin/env bash
# Configure and build one tree: scripts/build.sh DIR [cmake options…]
set -euo pipefail
dir=${1:?usage: scripts/build.sh DIR [cmake options]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
gen=()
if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
if [ ! -f "$root/$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$root/$dir" "${gen[@]}" "$@" >/dev/null
else
  cmake -S "$root" -B "$root/$dir" "$@" >/dev/null
fi
cmake --build "$root/$dir" -j "$(nproc)"
