#!/usr/bin/env bash
# The benchmark: builds the release tree and runs bench_all from the repository root, which
# prints the table and writes reports/bench/DATE.json and DATE.md (docs/performance.md).
#   scripts/bench.sh [bench_all options…]     e.g. --rounds 5 --http-seconds 5, --no-http,
#     --name NAME (reports/bench/DATE-NAME.json and .md)
#   scripts/bench.sh --http-only --rounds 5 --http-seconds 5 --soak 1000000 --run-exchanges 10000
#     the HTTP part alone (reports/bench/DATE-http.json and .md), with the soak of one serve
#     over 1,000,000 requests and the timing of `toolwire run` of 10,000 exchanges
# The HTTP part needs wrk on the PATH (scripts/deps.sh --bench); without it, it is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TOOLWIRE_BENCH_BUILD:-build}
"$root/scripts/build.sh" "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cd "$root"
# the report's Command line names this script, not the binary it runs
TOOLWIRE_BENCH_VIA=scripts/bench.sh exec "$root/$dir/bench_all" "$@"
