#!/usr/bin/env bash
# llama.cpp's chat parser beside a toolwire text decoder on the same bytes (docs/performance.md,
# "Against llama.cpp's chat parser"). Fetches llama.cpp's source as the npm package
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

for tool in npm g++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench-llama: $tool is not installed: it needs npm (to fetch llama.cpp's source) and g++" >&2
    exit 1
  fi
done
if ! echo '#include <nlohmann/json.hpp>' | g++ -std=c++17 -fsyntax-only -x c++ - 2>/dev/null; then
  echo "bench-llama: nlohmann/json.hpp not found (llama.cpp's chat code needs it):" \
    "apt-get install nlohmann-json3-dev" >&2
  exit 1
fi

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
mkdir -p "$root/$work/npm"
pkg=$root/$work/npm/node_modules/@fugood/llama.node
# The package's own install script looks for its prebuilt addon; only its source is wanted. A
# reinstall gives the sources new times (and a recompile), so it runs only when the lock changed.
if ! cmp -s "$root/bench/llama/package-lock.json" "$root/$work/npm/package-lock.json" ||
   [ ! -f "$pkg/package.json" ]; then
  cp "$root/bench/llama/package.json" "$root/bench/llama/package-lock.json" "$root/$work/npm/"
  if ! (cd "$root/$work/npm" && timeout 600 npm ci --prefer-offline --ignore-scripts \
        --omit=optional --no-audit --no-fund --loglevel=error >/dev/null); then
    rm -f "$root/$work/npm/package-lock.json"
    echo "bench-llama: npm ci failed in $work/npm" >&2
    exit 1
  fi
fi
version=$(node -p "require('$pkg/package.json').version" 2>/dev/null || sed -n 's/^  "version": "\(.*\)",$/\1/p' "$pkg/package.json")
src=$pkg/src/llama.cpp

# The chat parser and what it links: chat.cpp, the PEG parser, the parser generator, the Jinja
# engine, JSON schema to grammar; common.cpp, log.cpp, trie.cpp, unicode.cpp for string and
# logging helpers (sections the program does not reach are dropped at link time).
units=(common/chat.cpp common/chat-peg-parser.cpp common/peg-parser.cpp
       common/chat-auto-parser-generator.cpp common/chat-auto-parser-helpers.cpp
       common/chat-diff-analyzer.cpp common/json-schema-to-grammar.cpp common/common.cpp
       common/log.cpp common/trie.cpp common/unicode.cpp common/jinja/caps.cpp
       common/jinja/lexer.cpp common/jinja/parser.cpp common/jinja/runtime.cpp
       common/jinja/string.cpp common/jinja/value.cpp)
obj=$root/$work/obj-$version
mkdir -p "$obj"
cxx=(g++ -std=c++17 -O3 -DNDEBUG -ffunction-sections -fdata-sections -w
     -I"$src/common" -I"$src/include" -I"$src/ggml/include")
todo=()
for u in "${units[@]}"; do
  [ "$obj/${u//\//_}.o" -nt "$src/$u" ] || todo+=("$u")
done
if [ ${#todo[@]} -gt 0 ]; then
  echo "bench-llama: compiling ${#todo[@]} llama.cpp sources (@fugood/llama.node $version), two at a time"
  start=$(date +%s)
  for u in "${todo[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
    nice -n 10 "${cxx[@]}" -c "$src/$u" -o "$obj/${u//\//_}.o" &
  done
  wait
  for u in "${todo[@]}"; do
    [ -f "$obj/${u//\//_}.o" ] || { echo "bench-llama: $u did not compile" >&2; exit 1; }
  done
  echo "bench-llama: compiled in $(( $(date +%s) - start )) s"
fi
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
