#!/usr/bin/env bash
# Quick start 2: install what is missing, build, run every test:
# a normal build with warnings as errors, then again under ASan+UBSan
# with LeakSanitizer on. The tests driven by node programs (ctest label
# `node`, tests/schedule.cmake) run once, in the ASan+UBSan build: their time
# is node's, and there the program they drive is checked for memory errors too.
# The tests that read only the source tree (label `source`) run once, in the
# normal build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh --node --browser
export LC_ALL=C.UTF-8
jobs=$(nproc)
# more tests than cores at once: many wait on a server or a node program
ctest_jobs=$((2 * jobs))

# The fuzzing (scripts/fuzz-ci.sh) in the background: its build of the targets
# (clang, ASan+UBSan) from the start, at low priority, so that it takes the
# cores only when the stages below leave them idle (a configure step, a link,
# tests waiting on a server); then, once the ASan+UBSan build is done, its
# replay of every regression and corpus input and its fuzzing, at normal
# priority beside the ASan+UBSan tests, which wait on servers and node programs
# much of the time. Its output is printed at the end.
mkdir -p build-fuzz-ci
rm -f build-fuzz-ci/asan-built
echo "== fuzz targets building in the background (build-fuzz-ci/fuzz-ci.log) =="
(
  FUZZ_BUILD_ONLY=1 nice -n 10 scripts/fuzz-ci.sh >build-fuzz-ci/fuzz-ci.log 2>&1 || exit 1
  # $$ is this script: a failed stage ends it, and so this wait
  while [ ! -e build-fuzz-ci/asan-built ]; do kill -0 $$ 2>/dev/null || exit 1; sleep 1; done
  FUZZ_NO_BUILD=1 scripts/fuzz-ci.sh >>build-fuzz-ci/fuzz-ci.log 2>&1
) &
fuzz_pid=$!

echo "== normal build =="
scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOOLWIRE_WERROR=ON
ctest --test-dir build --output-on-failure -j "$ctest_jobs" -LE node

echo "== install rules =="
scripts/install-check.sh build

echo "== main job =="
build/toolwire main --quiet

echo "== ASan + UBSan build =="
scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DTOOLWIRE_WERROR=ON -DTOOLWIRE_SANITIZE=ON
touch build-fuzz-ci/asan-built
echo "== fuzzing goes on beside the ASan + UBSan tests (build-fuzz-ci/fuzz-ci.log) =="
# fuzz-ci's targets run every corpus input (ASan+UBSan) before fuzzing, so
# here test_fuzz_regressions replays the regression inputs only
# (TOOLWIRE_REPLAY_CORPUS=0); the normal build's replays both.
asan=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 TOOLWIRE_REPLAY_CORPUS=0 \
  ctest --test-dir build-asan --output-on-failure -j "$ctest_jobs" -LE source || asan=1
if [ "$asan" -eq 0 ]; then
  echo "== main job under ASan + UBSan =="
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    build-asan/toolwire main --quiet --out build-asan/reports || asan=1
fi
fuzz=0
wait "$fuzz_pid" || fuzz=1
echo "== fuzzing (scripts/fuzz-ci.sh) =="
cat build-fuzz-ci/fuzz-ci.log
[ "$asan" -eq 0 ] || { echo "test.sh: the ASan + UBSan tests failed (above)" >&2; exit 1; }
[ "$fuzz" -eq 0 ] || { echo "test.sh: the fuzzing failed (above)" >&2; exit 1; }
echo "== every test passed =="
