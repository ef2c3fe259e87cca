#!/usr/bin/env bash
# Differential fuzzing of llama.cpp's chat parser against toolwire's reference decoders
# (docs/parsers-llama.md). Builds build-llama/fuzz/fuzz_llama_diff with clang (libFuzzer,
# ASan, UBSan): parsers/llama.cpp/fuzz_llama_diff.cpp, llama.cpp's chat parser sources
# (scripts/llama-src.sh, compiled with -fsanitize=fuzzer-no-link,address,undefined) and
# libtoolwire's sources compiled as fuzz/build.sh compiles them. Seeds: every decode fixture
# of the dialects (tests/data/decode/DIALECT/), one dialect byte before its input. Runs it
# for --minutes (fork mode, the run going past findings). A finding of a signature declared
# known (parsers/llama.cpp/known-defects.json, or TOOLWIRE_LLAMA_KNOWN) is counted by the
# target and its smallest input kept (findings/known-SIGNATURE-DIALECT); any other aborts and
# becomes a crash file. Then each signature's smallest input is minimised (-minimize_crash,
# TOOLWIRE_LLAMA_DIFF_ONLY keeping the signature) and build-llama/fuzz/findings.md written:
# per signature, new ones first, its count, smallest input and minimal input.
# Downloads a package, so it runs in neither CI nor the tests; fuzz/overnight runs it when
# the llama.cpp source is there (build-llama/npm).
#   scripts/fuzz-llama.sh [--minutes N] [--jobs N] [--build-only | --findings-only]
#                         [--templates DIR] [--sort N] [--minimise S]
#     --minutes: fuzzing time (default 10); --jobs: fork workers (default 1); --findings-only:
#     no fuzzing, only sort and minimise build-llama/fuzz/findings/; --sort: the crash files
#     replayed to read their signature (default 60; a replay takes seconds); --minimise: seconds
#     of -minimize_crash for the smallest input of each signature (default 60, at most 4 times
#     that in all; 0: none); --plain-llama:
#     link the parser driver's llama.cpp objects (scripts/parser-llama.sh --build-only) instead
#     of compiling them with sanitizers and coverage (minutes, not an hour on a busy machine;
#     llama.cpp's side then neither sanitized nor coverage-guided)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${TOOLWIRE_LLAMA_BUILD:-build-llama}
. "$root/scripts/llama-src.sh"
llama_src_need fuzz-llama clang clang++ python3 || exit 1

minutes=10 jobs=1 build_only=0 templates=../shared/templates sort_max=60 fuzz=1 min_s=60 plain=0
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=${2:?--minutes N}; shift 2 ;;
    --jobs) jobs=${2:?--jobs N}; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --templates) templates=${2:?--templates DIR}; shift 2 ;;
    --sort) sort_max=${2:?--sort N}; shift 2 ;;
    --minimise) min_s=${2:?--minimise S}; shift 2 ;;
    --findings-only) fuzz=0; shift ;;
    --plain-llama) plain=1; shift ;;
    *) echo "usage: scripts/fuzz-llama.sh [--minutes N] [--jobs N] [--build-only | --findings-only]" \
            "[--templates DIR] [--sort N] [--minimise S] [--plain-llama]" >&2
       exit 2 ;;
  esac
done
[ "$minutes" -ge 1 ] 2>/dev/null || { echo "fuzz-llama: --minutes is at least 1" >&2; exit 2; }
(cd "$root" && [ -d "$templates" ]) || { echo "fuzz-llama: no chat templates in $templates" >&2; exit 1; }
export TOOLWIRE_TEMPLATES TOOLWIRE_LLAMA_KNOWN
TOOLWIRE_TEMPLATES=$(cd "$root" && realpath "$templates")
TOOLWIRE_LLAMA_KNOWN=${TOOLWIRE_LLAMA_KNOWN:-$root/parsers/llama.cpp/known-defects.json}

san=(-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
     -fsanitize=fuzzer-no-link)
llama_src_fetch "$root" "$work" fuzz-llama || exit 1
if [ "$plain" -eq 1 ]; then
  # the parser driver's objects (scripts/parser-llama.sh --build-only): no sanitizer and no
  # coverage inside llama.cpp, only in toolwire and the target; minutes to build, not an hour
  llobj=$root/$work/obj-$llama_version stubs=$root/$work/fuzz/libllama_stubs_plain.c
  ls "$llobj"/*.o >/dev/null 2>&1 || { echo "fuzz-llama: no $work/obj-$llama_version: run scripts/parser-llama.sh --build-only" >&2; exit 1; }
else
  # sections per function, so that a link can drop what the parser never reaches
  llama_src_compile fuzz-llama "$root/$work/obj-fuzz-$llama_version" clang++ -std=c++17 -w \
    -ffunction-sections -fdata-sections "${san[@]}" || exit 1
  llobj=$root/$work/obj-fuzz-$llama_version stubs=$root/$work/fuzz/libllama_stubs.c
fi

# libtoolwire's sources, as fuzz/build.sh compiles them (its cJSON compiled from source too)
cjson=${TOOLWIRE_FUZZ_CJSON_DIR:-}
[ -n "$cjson" ] || cjson=$("$root/scripts/cjson-fuzz.sh")
tw=$root/$work/fuzz/tw
mkdir -p "$tw"
for s in "$root"/src/*.c "$cjson/cJSON.c"; do # two at a time, a source again only when newer
  o=$tw/$(basename "${s%.c}").o
  [ "$o" -nt "$s" ] && continue
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
  nice -n 10 clang "${san[@]}" -std=c11 -Wno-macro-redefined -D_GNU_SOURCE \
    -DTOOLWIRE_VERSION=\"fuzz\" -I"$cjson/include" -I"$root/include" -I"$root/src" -c "$s" \
    -o "$o.tmp" && mv "$o.tmp" "$o" &
done
wait
for s in "$root"/src/*.c "$cjson/cJSON.c"; do
  [ -f "$tw/$(basename "${s%.c}").o" ] || { echo "fuzz-llama: $s did not compile" >&2; exit 1; }
done
exe=$root/$work/fuzz/fuzz_llama_diff
# common.cpp's model, context and sampler helpers reference libllama and ggml, which are not
# linked (the instrumented sections keep them past --gc-sections): each such symbol gets a stub
# that says which was called and aborts. The chat parser never calls one; a finding whose trace
# names a stub is not a defect of the parser.
target=$root/$work/fuzz/fuzz_llama_diff.o
[ "$target" -nt "$root/parsers/llama.cpp/fuzz_llama_diff.cpp" ] &&
  [ "$target" -nt "$root/parsers/llama.cpp/llama_parser_common.h" ] ||
  nice -n 10 clang++ -std=c++17 "${san[@]}" -Wall -Wextra -isystem "$llama_src/common" \
    -isystem "$llama_src/include" -isystem "$llama_src/ggml/include" -I"$cjson/include" \
    -I"$root/include" -c "$root/parsers/llama.cpp/fuzz_llama_diff.cpp" -o "$target"
# the symbols the link finds undefined (names as in the objects: --no-demangle) become stubs
link() { nice -n 10 clang++ "${san[@]}" "$target" "$llobj"/*.o "$@" "$tw"/*.o -fsanitize=fuzzer \
           -Wl,--no-demangle -lm -lpthread -o "$exe"; }
[ -f "$stubs.o" ] && link "$stubs.o" 2>/dev/null || {
  { link 2>&1 || true; } | sed -n "s/.*undefined reference to \`\(.*\)'$/\1/p" | sort -u >"$stubs.syms"
  {
    echo '/* generated by scripts/fuzz-llama.sh: the libllama/ggml symbols the llama.cpp objects reference */'
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    echo 'static void stub(const char *name) { fprintf(stderr, "fuzz_llama_diff: %s called (libllama is not linked)\n", name); abort(); }'
    awk '{ printf "void s%d(void) __asm__(\"%s\"); void s%d(void) { stub(\"%s\"); }\n", NR, $0, NR, $0 }' "$stubs.syms"
  } >"$stubs"
  nice -n 10 clang "${san[@]}" -w -c "$stubs" -o "$stubs.o"
  link "$stubs.o"
}
echo "fuzz-llama: built $work/fuzz/fuzz_llama_diff ($llama_build)"
[ "$build_only" -eq 0 ] || exit 0

fz=$root/$work/fuzz
if [ "$fuzz" -eq 1 ]; then
# seeds: the decode fixtures, a dialect byte (its row of the driver's table) before each input;
# the dictionary: the dialects' dictionaries merged
# the findings of this run only: the last run's kept as findings.prev
rm -rf "$fz/seeds" "$fz/findings.prev"
[ ! -d "$fz/findings" ] || mv "$fz/findings" "$fz/findings.prev"
mkdir -p "$fz/seeds" "$fz/corpus" "$fz/findings"
python3 - "$root" "$fz/seeds" <<'EOF'
import glob, hashlib, json, os, re, sys
root, out = sys.argv[1], sys.argv[2]
table = re.findall(r'\{"([a-z0-9.-]+)", "[^"]+\.jinja", ', open(os.path.join(root, "parsers/llama.cpp/llama_parser_common.h")).read())
for i, d in enumerate(table):
    for f in glob.glob(os.path.join(root, "tests/data/decode", d, "*.json")):
        fx = json.load(open(f))
        b = bytes([i]) + (fx["input"].encode() if "input" in fx else bytes.fromhex(fx["input_hex"]))
        open(os.path.join(out, hashlib.sha1(b).hexdigest()), "wb").write(b)
EOF
cat "$root"/fuzz/{hermes,qwen3_coder,harmony,deepseek_v31,dsml,kimi_k2,mistral,llama3,glm,minimax_m2,gemma4}.dict \
  | grep -E '^[a-z_0-9]*"' | sort -u >"$fz/llama_diff.dict"
start=$(date +%s)
echo "fuzz-llama: fuzzing $minutes min, -fork=$jobs (log: $work/fuzz/fuzz.log)"
# inputs whose findings are all known are kept out of the corpus (measured: more executions,
# coverage and corpus; reports/parsers/fuzz-llama-2026-11-29.md); TOOLWIRE_LLAMA_DIFF_REJECT_KNOWN=0 keeps them
(cd "$fz" && TOOLWIRE_LLAMA_DIFF_REJECT_KNOWN=${TOOLWIRE_LLAMA_DIFF_REJECT_KNOWN:-1} nice -n 10 ./fuzz_llama_diff -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
  -ignore_ooms=1 -max_total_time=$((minutes * 60)) -timeout=10 -max_len=4096 -rss_limit_mb=2560 \
  -dict=llama_diff.dict -artifact_prefix=findings/ corpus seeds >fuzz.log 2>&1) || true
echo "fuzz-llama: fuzzed $(( $(date +%s) - start )) s: $(grep -E '^#[0-9]+: cov:' "$fz/fuzz.log" | tail -n1)"
echo "fuzz-llama: $(cat "$fz"/findings/counts-*.tsv 2>/dev/null | awk -F'\t' '{ n += $4 } END { print n + 0 }') findings of known signatures"

fi

# Each finding under its signature (docs/parsers-llama.md): the new ones from the crash files
# (replayed: the target prints `fuzz_llama_diff: DIALECT: KIND: SIGNATURE: ...`; a crash, hang or
# sanitizer report without one goes by the sanitizer's or libFuzzer's line), the known ones from
# the workers' counts (findings/counts-*.tsv) and smallest inputs (findings/known-SIG-DIALECT).
# The smallest input of each is minimised with -minimize_crash, TOOLWIRE_LLAMA_DIFF_ONLY keeping
# its signature; findings.md lists the new signatures first.
minimise() { # INPUT ONLY: INPUT.min, unless there; --minimise 0: none. -minimize_crash starts
  # a worker per step (each configures every dialect again), its -max_total_time bounds one
  # step: the whole is bounded to 4 times --minimise
  [ -f "$1.min" ] || [ "$min_s" -eq 0 ] && return 0
  (cd "$fz" && TOOLWIRE_LLAMA_DIFF_ONLY=$2 TOOLWIRE_LLAMA_DIFF_KEEP= timeout $((min_s * 4)) nice -n 10 \
     ./fuzz_llama_diff -minimize_crash=1 -max_total_time="$min_s" -runs=100000 -exact_artifact_path="$1.min" \
     "$1" >"$1.minimize.log" 2>&1) || true
}
quoted() { python3 -c 'import json,sys; b=open(sys.argv[1],"rb").read(); print(b[0], json.dumps(b[1:].decode("utf-8","replace"))[:300])' "$1" | sed 's/|/\\|/g'; }
{
  echo "# fuzz_llama_diff findings ($llama_build)"
  echo
  echo "| status | dialect: kind: signature | findings | smallest | bytes | its minimal input (dialect byte, then the text, JSON-quoted) |"
  echo "| --- | --- | ---: | --- | ---: | --- |"
  declare -A first count
  n=0 gone=0
  for c in "$fz"/findings/crash-* "$fz"/findings/timeout-* "$fz"/findings/oom-*; do
    [ -f "$c" ] || continue
    case $c in *.min|*.trace|*.log) continue ;; esac
    n=$((n + 1))
    [ "$n" -le "$sort_max" ] || continue # each replay configures every dialect again: a few seconds
    [ -f "$c.trace" ] || (cd "$fz" && TOOLWIRE_LLAMA_DIFF_KEEP= timeout 60 ./fuzz_llama_diff "$c" >"$c.trace" 2>&1 ||
                          echo "fuzz-llama: exit $?" >>"$c.trace") || true
    grep -q '^fuzz-llama: exit' "$c.trace" || { gone=$((gone + 1)); continue; } # known since, or not reproduced
    sig=$(sed -n 's/^fuzz_llama_diff: \([a-z0-9.-]*: [a-z ]*: [a-z0-9-]*\):.*/\1/p' "$c.trace" | head -n1)
    [ -n "$sig" ] || sig=$(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+|deadly signal|timeout' "$c.trace" || echo crash)
    count[$sig]=$(( ${count[$sig]:-0} + 1 ))
    if [ -z "${first[$sig]:-}" ] || [ "$(stat -c %s "$c")" -lt "$(stat -c %s "${first[$sig]}")" ]; then
      first[$sig]=$c
    fi
  done
  for sig in "${!first[@]}"; do
    c=${first[$sig]}
    case $sig in
      *:*:*) only=$(echo "$sig" | sed 's/^\([^:]*\): [^:]*: \(.*\)$/\1:\2/') ;;
      *) only= ;;
    esac
    if [ -n "$only" ]; then minimise "$c" "$only"; else
      [ -f "$c.min" ] || [ "$min_s" -eq 0 ] || (cd "$fz" && TOOLWIRE_LLAMA_DIFF_KEEP= timeout $((min_s * 4)) \
        nice -n 10 ./fuzz_llama_diff -minimize_crash=1 -max_total_time="$min_s" -runs=100000 \
        -exact_artifact_path="$c.min" "$c" >"$c.minimize.log" 2>&1) || true
    fi
    m=$c; [ -f "$c.min" ] && m=$c.min
    echo "| NEW | $sig | ${count[$sig]} | $(basename "$c") | $(stat -c %s "$m") | \`$(quoted "$m")\` |"
  done | sort
  # the known signatures: the workers' counts summed
  cat "$fz"/findings/counts-*.tsv 2>/dev/null | awk -F'\t' '{ n[$1 "\t" $2 "\t" $3] += $4 } END { for (k in n) print k "\t" n[k] }' |
    sort | while IFS=$'\t' read -r dl kind sig cnt; do
      k=$fz/findings/known-$sig-$dl
      defect=$(python3 -c 'import json,sys; print(next((str(e["defect"]) for e in json.load(open(sys.argv[1]))["known"] if e["signature"] == sys.argv[2] and e["kind"] == sys.argv[3] and sys.argv[4] in e["dialects"]), "?"))' \
        "$TOOLWIRE_LLAMA_KNOWN" "$sig" "$kind" "$dl")
      [ -f "$k" ] || { echo "| known (defect $defect) | $dl: $kind: $sig | $cnt | (none kept) | | |"; continue; }
      minimise "$k" "$dl:$sig"
      m=$k; [ -f "$k.min" ] && m=$k.min
      echo "| known (defect $defect) | $dl: $kind: $sig | $cnt | $(basename "$k") | $(stat -c %s "$m") | \`$(quoted "$m")\` |"
    done
  [ "$n" -le "$sort_max" ] || printf '\nThe first %d of %d crash files sorted (a replay configures every dialect again).\n' "$sort_max" "$n"
  [ "$gone" -eq 0 ] || printf '\n%d crash files no longer abort on replay (their signature declared known since, or not reproduced).\n' "$gone"
} >"$fz/findings.md"
echo "fuzz-llama: $(ls "$fz"/findings | grep -cE '^(crash|timeout|oom)-[^.]*$' || true) new findings," \
  "$(ls "$fz"/findings | grep -cE '^known-[^.]*$' || true) known signatures: $work/fuzz/findings.md"
