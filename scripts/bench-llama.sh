#!/usr/bin/env bash
# llama.cpp's chat parser beside a toolwire text decoder on the same bytes (docs/performance.md,
# "Against llama.cpp's chat parser"). Fetches llama.cpp's source as the npm package
# @fugood/llama.node ships it (version and integrity pinned in bench/llama/package-lock.json),
# compiles its chat-parsing sources with bench/llama/llama_chat_bench.cpp and runs it on the inputs
# bench_all writes for the decoder (--dump-inputs --format). Writes reports/bench/DATE-llama.json and
# DATE-llama.md (DATE-llama-FORMAT.* for a format other than hermes).
# A benchmark: it downloads a package, so it runs in neither CI nor the tests.
#   scripts/bench-llama.sh [--rounds N] [--budget SECONDS] [--template FILE] [--format NAME]
#                          [--forced-open]
#     --template: the chat template the parser is built from (default ../shared/templates/qwen3.jinja,
#       relative to the repository root)
#     --format: toolwire's decoder for the same model text (default hermes; a model dialect:
#       harmony with gpt-oss.jinja, deepseek-v3.1 with deepseek-v3.1.jinja, kimi-k2, mistral,
#       llama3 …), whose inputs bench_all writes with that dialect's output encoder
#     --forced-open: the template opens the reasoning in the prompt (DeepSeek V3.1 with thinking
#       on): toolwire decodes with forced_open, as llama.cpp's parser reads it
#     --budget: seconds one streamed llama.cpp decode may take before its input is cut (default 2)
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
args=()
command="scripts/bench-llama.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --template) template=$(realpath "${2:?--template FILE}"); shift 2 ;;
    --rounds|--budget|--format) args+=("$1" "${2:?$1 VALUE}"); [ "$1" = --format ] && format=$2
                                shift 2 ;;
    --forced-open) args+=("$1"); shift ;;
    *) echo "usage: scripts/bench-llama.sh [--rounds N] [--budget SECONDS] [--template FILE]" \
            "[--format NAME] [--forced-open]" >&2
       exit 2 ;;
  esac
done
(cd "$root" && [ -f "$template" ]) || { echo "bench-llama: no chat template at $template" >&2; exit 1; }

"$root/scripts/build.sh" "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
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

rm -rf "$root/$work/inputs"
"$root/$dir/bench_all" --dump-inputs "$root/$work/inputs" --format "$format" >/dev/null
cd "$root"
exec "$exe" --inputs "$work/inputs" --template "$template" --out reports/bench \
  --source "@fugood/llama.node $version (npm), src/llama.cpp/common" --command "$command" \
  "${args[@]}"
