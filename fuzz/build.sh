#!/usr/bin/env bash
# Build every fuzz target the OSS-Fuzz / ClusterFuzzLite way: $CC, $CFLAGS,
# $LIB_FUZZING_ENGINE and $OUT come from the environment (defaults below
# are OSS-Fuzz's ASan+UBSan choice, for a local run); no CMake involved.
# Writes $OUT/fuzz_<target> with its .dict, .options and _seed_corpus.zip.
#
# cJSON is compiled from source with the same flags: $TOOLWIRE_FUZZ_CJSON_DIR
# (cJSON.c + include/cjson/cJSON.h), else scripts/cjson-fuzz.sh fetches
# Debian's source package. TOOLWIRE_FUZZ_SEED_ZIP=0 writes no
# _seed_corpus.zip (scripts/fuzz-ci.sh reads corpus/ itself).
# Every source is compiled once into one static library that each target
# links; the targets are compiled and linked as many at a time as there are
# cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The targets of the table of formats (src/format_table.h), read as
# fuzz/table.cmake reads it, one "target CONDITION" a line: every decoder's
# (the D rows' last column, "(target, MODE[, target, MODE])"), CONDITION
# ALWAYS, then the others (the T rows). `fuzz/build.sh --list [TABLE]`
# prints them and exits (tests/lib/test_format_table.c).
table_targets() { # table
  sed -n 's/^ *D([^,]*, "[^"]*", [A-Z]*, (\([^)]*\))).*/\1/p' "$1" | tr -d ' ' | tr ',' '\n' |
    awk 'NR % 2 { print $0 " ALWAYS" }'
  sed -n 's/^ *T(\([a-z0-9_]*\), \([A-Z_]*\)).*/\1 \2/p' "$1"
}
table="$root/src/format_table.h"
if [ "${1:-}" = --list ]; then
  table_targets "${2:-$table}"
  exit 0
fi
: "${CC:=clang}"
: "${CFLAGS:=-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:=$root/build-fuzz-oss/out}"
: "${WORK:=$root/build-fuzz-oss/work}"
: "${LDFLAGS:=}"
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$OUT" "$WORK/obj"

cjson=${TOOLWIRE_FUZZ_CJSON_DIR:-}
if [ -z "$cjson" ]; then cjson=$("$root/scripts/cjson-fuzz.sh"); fi
[ -f "$cjson/cJSON.c" ] || { echo "fuzz/build.sh: no cJSON source in '$cjson'" >&2; exit 1; }

# the targets whose condition holds; a target with a fuzz/inv_<target>.c compiles it
have() { # condition of a T row
  case "$1" in
  ALWAYS) return 0 ;;
  HAVE_SSE) grep -qsE 'tw_status[[:space:]]+tw_sse_init[[:space:]]*\(' "$root"/src/*.c ;;
  HAVE_FIXTURE) grep -qsE 'tw_status[[:space:]]+tw_fixture_parse[[:space:]]*\(' "$root"/harness/*/*.c ;;
  HAVE_IMPORT) grep -qsE 'tw_status[[:space:]]+tw_import_mem_to_buf[[:space:]]*\(' "$root"/harness/*/*.c ;;
  HAVE_JSON_DIFF) pkg-config --exists jansson 2>/dev/null ;;
  *) echo "fuzz/build.sh: unknown condition $1 in $table" >&2; exit 1 ;;
  esac
}
defs=()
targets=()
extra=()
while read -r t cond; do
  if have "$cond"; then
    [ "$cond" = ALWAYS ] || defs+=(-DTW_FZ_$cond)
    targets+=("$t")
    [ -f "$root/fuzz/inv_$t.c" ] && extra+=("$root/fuzz/inv_$t.c")
  elif [ "$cond" = HAVE_JSON_DIFF ]; then
    echo "fuzz/build.sh: jansson not found (scripts/deps.sh installs it); no json_diff target" >&2
  fi
done < <(table_targets "$table")
[ "${#targets[@]}" -gt 0 ] || { echo "fuzz/build.sh: no target read from $table" >&2; exit 1; }

libs_extra=()
if pkg-config --exists jansson 2>/dev/null; then
  read -r -a libs_extra <<<"$(pkg-config --libs jansson)"
  read -r -a jinc <<<"$(pkg-config --cflags jansson)"
  defs+=("${jinc[@]}")
fi

inc=(-I"$cjson/include" -I"$root/include" -I"$root/src" -I"$root/fuzz")
for d in "$root"/harness/*/; do inc+=(-I"${d%/}"); done # every room of the harness
srcs=("$root"/src/*.c)
# the harness rooms of the program itself (its commands, runs, client and
# parser drivers, proxy) are not compiled: no target links them (measured with
# the linker's map, 2026-11-29); a target that comes to need one fails to link,
# naming the symbol, and its room leaves this list
skip_rooms=" cli run parsers proxy clients "
for f in "$root"/harness/*/*.c; do
  room=$(basename "$(dirname "$f")")
  [ "$(basename "$f")" = main.c ] || [[ $skip_rooms == *" $room "* ]] || srcs+=("$f")
done
srcs+=("$root/fuzz/invariants.c" "${extra[@]}" "$cjson/cJSON.c")

# shellcheck disable=SC2086
compile() { # src obj
  $CC $CFLAGS -std=c11 -Wno-macro-redefined -D_GNU_SOURCE -DTOOLWIRE_VERSION=\"fuzz\" "${defs[@]}" "${inc[@]}" \
    -c "$1" -o "$2"
}
export -f compile
export CC CFLAGS
objs=()
pids=()
for s in "${srcs[@]}"; do
  o="$WORK/obj/$(basename "$(dirname "$s")")_$(basename "${s%.c}").o"
  objs+=("$o")
  compile "$s" "$o" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
rm -f "$WORK/libtoolwire_fuzz.a"
ar rcs "$WORK/libtoolwire_fuzz.a" "${objs[@]}"

libs=(-lcurl -lmicrohttpd -lyaml -lz "${libs_extra[@]}" -lpthread -lm)
seed_zip=${TOOLWIRE_FUZZ_SEED_ZIP:-1}
command -v zip >/dev/null 2>&1 || seed_zip=0
target_one() { # target: its object, binary, dictionary, options and seed zip
  local t=$1 files=() d f
  # shellcheck disable=SC2086
  $CC $CFLAGS -std=c11 -DTW_FZ_FN="tw_fz_$t" -I"$root/fuzz" -I"$root/src" -I"$root/include" -I"$cjson/include" \
    -c "$root/fuzz/target.c" -o "$WORK/obj/target_$t.o"
  # shellcheck disable=SC2086
  $CC $CFLAGS $LDFLAGS "$WORK/obj/target_$t.o" "$WORK/libtoolwire_fuzz.a" $LIB_FUZZING_ENGINE \
    "${libs[@]}" -o "$OUT/fuzz_$t"
  cp "$root/fuzz/$t.dict" "$OUT/fuzz_$t.dict"
  sed "s/^dict = .*/dict = fuzz_$t.dict/" "$root/fuzz/$t.options" >"$OUT/fuzz_$t.options"
  rm -f "$OUT/fuzz_${t}_seed_corpus.zip"
  if [ "$seed_zip" != 0 ]; then
    for d in "$root/corpus/$t" "$root/fuzz/regressions/$t"; do
      [ -d "$d" ] && while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$d" -type f -print0)
    done
    [ "${#files[@]}" -eq 0 ] || zip -q -j "$OUT/fuzz_${t}_seed_corpus.zip" "${files[@]}"
  fi
}
pids=()
for t in "${targets[@]}"; do
  target_one "$t" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
printf '%s\n' "${targets[@]}" >"$OUT/targets.txt"
echo "fuzz/build.sh: ${#targets[@]} targets in $OUT"
