#!/usr/bin/env bash
# llama.cpp's chat parser beside a toolwire text decoder on the same bytes (docs/performance.md:
# the rows "beside llama.cpp's chat parser", and "The commands"). Fetches llama.cpp's source as the npm package
# @fugood/llama.node ships it (version and integrity pinned in bench/llama/package-lock.json),
# compiles its chat-parsing sources with bench/llama/llama_chat_bench.cpp and runs it on the inputs
# bench_all writes for the decoder (--dump-inputs --format). Writes reports/bench/DATE-llama.json and
# DATE-llama.md (DATE-llama-FORMAT.* for a format other than hermes).
# A benchmark: it downloads a package, so it runs in neither CI nor the tests.
#   scripts/bench-llama.sh [--rounds N] [--budget SECONDS] [--template FILE] [--format NAME]
#                          [--forced-open] [--fixtures] [--tag TAG] [--layout glm-4.7|minimax-m2]
#     --template: the chat template the parser is built from (default ../shared/templates/qwen3.jinja,
#       relative to the repository root)
#     --format: toolwire's decoder for the same model text (default hermes; a model dialect:
#       harmony with gpt-oss.jinja, deepseek-v3.1 with deepseek-v3.1.jinja, kimi-k2, mistral,
#       llama3 …), whose inputs bench_all writes with that dialect's output encoder
#     --forced-open: the template opens the reasoning in the prompt (DeepSeek V3.1 with thinking
#       on): toolwire decodes with forced_open, as llama.cpp's parser reads it
#     --budget: seconds one streamed llama.cpp decode may take before its input is cut (default 2)
#     --fixtures: no timing: each decode fixture of tests/data/decode/NAME read by llama.cpp's
#       parser built for the fixture's tools, beside what toolwire's decoder gives
#       (DATE-llama-NAME-fixtures.{md,json})
#     --tag: appended to the reports' names (DATE-llama-NAME-TAG…), for a second template of one
#       format (glm with glm-4.7.jinja: --tag 4.7)
#     --layout: the inputs (or fixtures) rewritten to another layout of the markup, for a parser
#       that reads only its template's: glm-4.7, no line breaks between a call's elements (the glm
#       output encoder writes GLM-4.6's); minimax-m2, the template's line breaks between them
# Needs npm, g++ (C++17) and nlohmann/json.hpp (Debian: nlohmann-json3-dev). Work tree: build-llama/
# (TOOLWIRE_LLAMA_BUILD), the release tree: build/ (TOOLWIRE_BENCH_BUILD).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TOOLWIRE_BENCH_BUILD:-build}
work=${TOOLWIRE_LLAMA_BUILD:-build-llama}

. "$root/scripts/llama-src.sh"
llama_src_need bench-llama g++ || exit 1

template=../shared/templates/qwen3.jinja
format=hermes
fixtures=
args=()
command="scripts/bench-llama.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --template) template=$(realpath "${2:?--template FILE}"); shift 2 ;;
    --rounds|--budget|--format|--tag|--layout)
      args+=("$1" "${2:?$1 VALUE}"); [ "$1" = --format ] && format=$2
      shift 2 ;;
    --forced-open) args+=("$1"); shift ;;
    --fixtures) fixtures=1; shift ;;
    *) echo "usage: scripts/bench-llama.sh [--rounds N] [--budget SECONDS] [--template FILE]" \
            "[--format NAME] [--forced-open] [--fixtures] [--tag TAG] [--layout glm-4.7|minimax-m2]" >&2
       exit 2 ;;
  esac
done
(cd "$root" && [ -f "$template" ]) || { echo "bench-llama: no chat template at $template" >&2; exit 1; }

# Only what it links and runs (the library, bench_all) in a configured tree; a new one is built whole.
if [ -f "$root/$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$root/$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/$dir" --target toolwire_static bench_all >/dev/null
else
  "$root/scripts/build.sh" "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
llama_src_fetch "$root" "$work" bench-llama || exit 1
version=$llama_version
src=$llama_src
obj=$root/$work/obj-$version
llama_src_compile bench-llama "$obj" g++ -std=c++17 -O3 -DNDEBUG -ffunction-sections \
  -fdata-sections -w || exit 1
exe=$root/$work/llama_chat_bench
nice -n 10 g++ -std=c++17 -O2 -Wall -Wextra -isystem "$src/common" -isystem "$src/include" \
  -isystem "$src/ggml/include" -I"$root/include" "$root/bench/llama/llama_chat_bench.cpp" \
  "$obj"/*.o -Wl,--gc-sections "$root/$dir/libtoolwire.a" $(pkg-config --libs libcjson) -lm \
  -o "$exe"

if [ -n "$fixtures" ]; then
  [ -d "$root/tests/data/decode/$format" ] || { echo "bench-llama: no decode fixtures tests/data/decode/$format" >&2; exit 1; }
  cd "$root"
  exec "$exe" --fixtures "tests/data/decode/$format" --template "$template" \
    --out reports/bench --source "@fugood/llama.node $version (npm), src/llama.cpp/common" \
    --command "$command" "${args[@]}"
fi
rm -rf "$root/$work/inputs"
"$root/$dir/bench_all" --dump-inputs "$root/$work/inputs" --format "$format" >/dev/null
cd "$root"
exec "$exe" --inputs "$work/inputs" --template "$template" --out reports/bench \
  --source "@fugood/llama.node $version (npm), src/llama.cpp/common" --command "$command" \
  "${args[@]}"
