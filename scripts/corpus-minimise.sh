#!/usr/bin/env bash
# Minimise corpus/<target>/: libFuzzer's -merge=1 of the committed corpus and
# any extra inputs into an empty folder keeps only the inputs that add
# coverage (the smallest of each set that reaches the same features), and
# that folder then replaces corpus/<target>/. fuzz/overnight runs it after
# fuzzing; run it by hand to fold in the new inputs of a run elsewhere.
#
#   scripts/corpus-minimise.sh [--fuzzers DIR] [--from DIR]... [--jobs N] [TARGET]...
#
# --fuzzers DIR  the fuzz_<target> binaries: fuzz/build.sh's $OUT or the CMake
#                build's build-fuzz/fuzz (default: build-fuzz-ci/out, else
#                build-fuzz-oss/out, else build-fuzz/fuzz, the first that has them)
# --from DIR     (repeatable) extra inputs: DIR/<target>/ is merged in too,
#                e.g. --from ../other-clone/corpus or a run's new-input folders
# --jobs N       targets merged at a time (default 1)
# TARGET         default: every folder of corpus/
#
# fuzz/regressions/ is never touched: those are named regression inputs,
# replayed as they are. A merge that fails leaves corpus/<target>/ as it was.
# Prints, per target, the file counts before (corpus + extra) and after, and
# the features and coverage edges that libFuzzer counts for the inputs kept
# (the same as for all of them: the merge keeps every feature).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzzers="" jobs=1 from=() targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --fuzzers) fuzzers=$2; shift 2 ;;
    --from) from+=("$(cd "$2" && pwd)"); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "corpus-minimise: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "corpus-minimise: --jobs needs a number >= 1" >&2; exit 2; }
if [ "${#targets[@]}" -eq 0 ]; then
  for d in corpus/*/; do targets+=("$(basename "$d")"); done
fi
if [ -z "$fuzzers" ]; then
  for d in build-fuzz-ci/out build-fuzz-oss/out build-fuzz/fuzz; do
    if [ -x "$d/fuzz_${targets[0]}" ]; then fuzzers=$d; break; fi
  done
  [ -n "$fuzzers" ] || {
    echo "corpus-minimise: no fuzz binaries; build them with fuzz/build.sh or give --fuzzers DIR" >&2
    exit 2
  }
fi
fuzzers=$(cd "$fuzzers" && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p fuzz/work # ignored by git; on the same file system as corpus/, so the swap is a rename
work=$(mktemp -d "$root/fuzz/work/minimise.XXXXXX")
trap 'rm -rf "$work"' EXIT

count() { find "$1" -type f 2>/dev/null | wc -l; }

minimise() { # target; prints one line, returns non-zero on failure
  local t=$1 bin=$fuzzers/fuzz_$1 dirs=() n0=0 d
  [ -x "$bin" ] || { echo "FAIL $t: no $bin"; return 1; }
  [ -d "corpus/$t" ] && dirs+=("corpus/$t")
  for d in "${from[@]}"; do [ -d "$d/$t" ] && dirs+=("$d/$t"); done
  for d in "${dirs[@]}"; do n0=$((n0 + $(count "$d"))); done
  if [ "$n0" -eq 0 ]; then echo "skip $t: no inputs"; return 0; fi
  mkdir -p "$work/$t/min"
  # no -max_len: the merge reads each input whole (up to libFuzzer's 1 MiB
  # merge cap), as the regression replay in ctest does
  if ! "$bin" -merge=1 -merge_control_file="$work/$t/merge.ctl" -timeout=25 -rss_limit_mb=2560 \
      "$work/$t/min" "${dirs[@]}" >"$work/$t/merge.log" 2>&1; then
    echo "FAIL $t: merge failed, corpus/$t left as it was"; tail -n 20 "$work/$t/merge.log"
    return 1
  fi
  local n1 feat
  n1=$(count "$work/$t/min")
  # libFuzzer's count of what the kept inputs reach, all of it new to the
  # empty folder: the features and edges of the whole input set
  feat=$(sed -n 's/^MERGE-OUTER: [0-9]* new files with \([0-9]*\) new features added; \([0-9]*\) new coverage edges.*/\1 features, \2 edges/p' \
    "$work/$t/merge.log" | tail -n 1)
  if [ "$n1" -eq 0 ]; then echo "FAIL $t: the merge kept no input, corpus/$t left as it was"; return 1; fi
  # libFuzzer names what it keeps by the SHA-1 of its content; a kept input
  # takes back the name it had (a seed-* name, say), so that the change to
  # corpus/ is only the inputs dropped and the new ones
  (cd "$work/$t/min" && find . -maxdepth 1 -type f -printf '%f\n') | LC_ALL=C sort >"$work/$t/kept"
  find "${dirs[@]}" -type f -exec sha1sum {} + | LC_ALL=C sort -s -k1,1 | awk '!seen[$1]++' |
    LC_ALL=C join - "$work/$t/kept" | while read -r h f; do
      f=$(basename "$f")
      [ "$f" = "$h" ] || [ -e "$work/$t/min/$f" ] || mv "$work/$t/min/$h" "$work/$t/min/$f"
    done
  rm -rf "corpus/$t.old"
  [ -d "corpus/$t" ] && mv "corpus/$t" "corpus/$t.old"
  mv "$work/$t/min" "corpus/$t"
  rm -rf "corpus/$t.old" "$work/$t"
  echo "ok   $t: $n0 -> $n1 files (${feat:-features not reported})"
}

fail=0 running=0
for t in "${targets[@]}"; do
  minimise "$t" >"$work/$t.out" 2>&1 &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || fail=1 # whichever ends first frees its slot
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || fail=1
  running=$((running - 1))
done
for t in "${targets[@]}"; do cat "$work/$t.out"; done
exit "$fail"
