#!/usr/bin/env bash
# CI fuzzing: build the targets with fuzz/build.sh as OSS-Fuzz would (no
# Docker; clang, ASan+UBSan), replay every regression input (FUZZ_JOBS
# targets at a time), then fuzz each target from its corpus (every corpus
# input runs first) for FUZZ_SECONDS (default 5) seconds, FUZZ_JOBS targets
# at a time (default: the number of cores). FUZZ_SECONDS=0 replays the
# corpus and the regressions only;
# FUZZ_NO_BUILD=1 uses the targets already built in build-fuzz-ci/out;
# FUZZ_BUILD_ONLY=1 builds them and stops (scripts/test.sh builds them so,
# early and at low priority, beside the other stages).
# The default keeps the whole test command (scripts/test.sh) within 15
# minutes on a 2-core machine; the replay is always complete, and the long
# fuzzing is fuzz/overnight's.
# Exits non-zero on any crash, leak, timeout or violated invariant; crash
# inputs are kept under build-fuzz-ci/crashes/<target>/. The tree is not
# modified: new corpus entries go to build-fuzz-ci/corpus/<target>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${FUZZ_SECONDS:-5}
# A fixed seed makes the gate reproducible: the same tree fuzzes the same
# inputs on every run (FUZZ_SEED=0 asks libFuzzer for a random one; the
# overnight runner always uses random seeds).
seed=${FUZZ_SEED:-1}
jobs=${FUZZ_JOBS:-$(nproc)}
ci=$root/build-fuzz-ci
start=$(date +%s)

export CC=clang
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
export OUT=$ci/out WORK=$ci/work
# the targets read corpus/ here; OSS-Fuzz's seed zips are not needed
export TOOLWIRE_FUZZ_SEED_ZIP=0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if [ "${FUZZ_NO_BUILD:-0}" = 1 ] && [ -f "$OUT/targets.txt" ]; then
  echo "== fuzz: the targets already in $OUT (FUZZ_NO_BUILD=1) =="
else
  echo "== fuzz: build (fuzz/build.sh) =="
  fuzz/build.sh
fi
if [ "${FUZZ_BUILD_ONLY:-0}" = 1 ]; then
  echo "fuzz-ci: built in $(( $(date +%s) - start ))s"
  exit 0
fi
mapfile -t targets <"$OUT/targets.txt"

opt() { # target key default
  local v
  v=$(sed -n "s/^$2 = //p" "fuzz/$1.options" 2>/dev/null | head -n1)
  echo "${v:-$3}"
}

fail=0
# The fuzzing below starts each target on its corpus: libFuzzer runs every
# corpus input before its first mutation, whatever -max_total_time says (a
# crash there fails the target as one found later does), but only its first
# max_len bytes (fuzz/<target>.options). So with fuzzing on, the replay here
# is of fuzz/regressions/ and of the corpus inputs longer than max_len, whole;
# FUZZ_SECONDS=0 replays the corpus and the regressions.
replay_dirs=(fuzz/regressions)
[ "$secs" -gt 0 ] || replay_dirs=(corpus fuzz/regressions)
echo "== fuzz: replay ${replay_dirs[*]}$([ "$secs" -gt 0 ] && echo " and the corpus inputs over max_len"), $jobs at a time =="
replay_one() { # target: replays every input; the status goes to replay-<target>.rc
  local t=$1 dirs=() long=() d f rc=0
  for d in "${replay_dirs[@]}"; do [ -d "$d/$t" ] && dirs+=("$d/$t"); done
  if [ "$secs" -gt 0 ] && [ -d "corpus/$t" ]; then
    while IFS= read -r -d '' f; do long+=("$f"); done \
      < <(find "corpus/$t" -type f -size +"$(opt "$t" max_len 16384)"c -print0)
  fi
  [ "${#dirs[@]}" -gt 0 ] || [ "${#long[@]}" -gt 0 ] || { echo skip >"$ci/replay-$t.rc"; return 0; }
  mkdir -p "$ci/crashes/$t"
  : >"$ci/replay-$t.log"
  if [ "${#dirs[@]}" -gt 0 ]; then
    "$OUT/fuzz_$t" -runs=0 -timeout=25 -rss_limit_mb=2560 \
      -artifact_prefix="$ci/crashes/$t/" "${dirs[@]}" >>"$ci/replay-$t.log" 2>&1 || rc=$?
  fi
  # files, not a folder: libFuzzer runs each one whole, once
  if [ "$rc" -eq 0 ] && [ "${#long[@]}" -gt 0 ]; then
    "$OUT/fuzz_$t" -timeout=25 -rss_limit_mb=2560 -artifact_prefix="$ci/crashes/$t/" \
      "${long[@]}" >>"$ci/replay-$t.log" 2>&1 || rc=$?
    echo "long corpus inputs replayed whole: ${#long[@]}" >>"$ci/replay-$t.log"
  fi
  echo "$rc" >"$ci/replay-$t.rc"
}
replaying=()
for t in "${targets[@]}"; do
  rm -f "$ci/replay-$t.rc"
  replay_one "$t" &
  replaying+=($!)
  if [ "${#replaying[@]}" -ge "$jobs" ]; then wait "${replaying[0]}" || true; replaying=("${replaying[@]:1}"); fi
done
wait || true
for t in "${targets[@]}"; do
  rc=$(cat "$ci/replay-$t.rc" 2>/dev/null || echo missing)
  case $rc in
    skip) ;;
    0) what=$( (grep -o 'Done [0-9]* runs' "$ci/replay-$t.log" || true
                sed -n 's/^long corpus inputs replayed whole: \([0-9]*\)/\1 corpus inputs over max_len, whole/p' \
                  "$ci/replay-$t.log") | paste -sd ';' | sed 's/;/; /g')
       echo "ok   replay $t ($what)" ;;
    *) echo "FAIL replay $t (log: $ci/replay-$t.log)"; tail -n 30 "$ci/replay-$t.log"; fail=1 ;;
  esac
done

if [ "$secs" -gt 0 ]; then
  echo "== fuzz: ${secs}s per target, $jobs at a time =="
  run_one() {
    local t=$1
    mkdir -p "$ci/corpus/$t" "$ci/crashes/$t"
    # regressions were replayed above; a known one must not end the fuzzing at once
    local dirs=("$ci/corpus/$t")
    [ -d "corpus/$t" ] && dirs+=("corpus/$t")
    "$OUT/fuzz_$t" -max_total_time="$secs" -dict="$OUT/fuzz_$t.dict" \
      -seed="$seed" -max_len="$(opt "$t" max_len 16384)" -timeout=25 -rss_limit_mb=2560 \
      -print_final_stats=1 -artifact_prefix="$ci/crashes/$t/" "${dirs[@]}" \
      >"$ci/fuzz-$t.log" 2>&1
  }
  touch "$ci/fuzz-start"
  declare -A pid_of=()
  running=()
  for t in "${targets[@]}"; do
    run_one "$t" &
    pid_of[$t]=$!
    running+=("$t")
    if [ "${#running[@]}" -ge "$jobs" ]; then
      wait "${pid_of[${running[0]}]}" || true
      running=("${running[@]:1}")
    fi
  done
  wait || true
  for t in "${targets[@]}"; do
    log=$ci/fuzz-$t.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    found=$(find "$ci/crashes/$t" -newer "$ci/fuzz-start" -type f \
              \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    if [ "$found" -gt 0 ] || ! grep -q '^stat::number_of_executed_units' "$log"; then
      echo "FAIL fuzz $t (log: $log)"; grep -E 'invariant violated|ERROR|runtime error|SUMMARY' "$log" | head -n 5
      fail=1
    else
      echo "ok   fuzz $t (${execs:-?} execs)"
    fi
  done
fi

echo "fuzz-ci: $(( $(date +%s) - start ))s"
if [ "$fail" -ne 0 ]; then
  echo "fuzz-ci: FAILED; reproduce with $OUT/fuzz_<target> <crash file> (docs/fuzzing.md)"
  exit 1
fi
echo "fuzz-ci: ${#targets[@]} passed, 0 failed"
