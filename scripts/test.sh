#!/usr/bin/env bash
# Quick start 2: install what is missing, build, run every test:
# a normal build with warnings as errors, then again under ASan+UBSan
# with LeakSanitizer on. The tests driven by node programs (ctest label
# `node`, tests/schedule.cmake) run once, in the ASan+UBSan build: their time
# is node's, and there the program they drive is checked for memory errors too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh --node --browser
export LC_ALL=C.UTF-8
jobs=$(nproc)

echo "== normal build =="
scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOOLWIRE_WERROR=ON
ctest --test-dir build --output-on-failure -j "$jobs" -LE node

echo "== install rules =="
scripts/install-check.sh build

echo "== main job =="
build/toolwire main --quiet

echo "== ASan + UBSan build =="
scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DTOOLWIRE_WERROR=ON -DTOOLWIRE_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
echo "== main job under ASan + UBSan =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build-asan/toolwire main --quiet --out build-asan/reports

echo "== fuzzing (scripts/fuzz-ci.sh: replay corpora, then FUZZ_SECONDS per target) =="
scripts/fuzz-ci.sh
