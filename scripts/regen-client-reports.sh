#!/usr/bin/env bash
# Regenerate the committed client reports, reports/clients/, from a fresh run of every driver in
# clients/ over fixtures/clients (docs/clients.md). Run it whenever a driver, clients/package-lock.json,
# a client scenario or a check changes; the test clients_sdks compares a fresh run with them.
# Usage: scripts/regen-client-reports.sh [BUILD_DIR]     (default build; JOBS=N for --jobs, default 2)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
toolwire=$build/toolwire
[ -x "$toolwire" ] || { echo "regen-client-reports: $toolwire is not built" >&2; exit 2; }
cd "$root" || exit 2
# the libraries exactly as locked
(cd clients && npm ci --prefer-offline --no-audit --no-fund --loglevel=error) || {
  echo "regen-client-reports: npm ci failed in $root/clients" >&2
  exit 2
}
# the relative paths keep the reports' targets the same on every machine
"$toolwire" clients --jobs "${JOBS:-2}" --drivers clients --out reports/clients fixtures/clients
rc=$?
# 1: some client fails a check (the reports say which): the reports are still the ones to commit
if [ "$rc" -gt 1 ]; then
  echo "regen-client-reports: toolwire clients exited $rc" >&2
  exit "$rc"
fi
echo "regen-client-reports: reports/clients/ regenerated (toolwire clients exited $rc)"
