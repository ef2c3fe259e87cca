#!/usr/bin/env bash
# Mutation testing (tests/mutation/run.py, docs/testing.md): each mutant of
# tests/mutation/mutants.md applied alone to a scratch copy, rebuilt, and the
# tests it names run: killed / survived / equivalent (with its reason).
#   scripts/mutation.sh [--only FILE...] [--id ID...] [--report FILE] [--scratch DIR]
#   scripts/mutation.sh --check    every mutant still applies (no build)
# Minutes per mutant on a loaded machine: not part of the test command.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "mutation: python3 not found" >&2; exit 2; }
exec nice -n 10 python3 "$root/tests/mutation/run.py" "$@"
