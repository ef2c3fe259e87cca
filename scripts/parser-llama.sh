#!/usr/bin/env bash
# llama.cpp's chat parser judged as a parser driver (docs/parsers-llama.md). Builds
# build-llama/llama_parser_driver from the llama.cpp source scripts/bench-llama.sh uses
# (scripts/llama-src.sh: @fugood/llama.node, pinned in bench/llama/package-lock.json), then:
#   - with `toolwire parsers` in the build: runs it on the driver and writes reports/parsers/;
#   - always: parsers/llama.cpp/compare.py, every decode fixture of the dialects the driver reads
#     through the driver (one piece and 1..8-byte pieces) against the fixture's expected result,
#     minus the declared differences (parsers/llama.cpp/expected.json): build-llama/compare.md.
# Downloads a package, so it runs in neither CI nor the tests.
#   scripts/parser-llama.sh [--build-only] [--no-compare] [--templates DIR]
#     --templates: the chat templates (default ../shared/templates, relative to the repository)
# Needs npm, g++ (C++17), python3 and nlohmann/json.hpp (Debian: nlohmann-json3-dev). Work tree:
# build-llama/ (TOOLWIRE_LLAMA_BUILD), the release tree: build/ (TOOLWIRE_BENCH_BUILD).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TOOLWIRE_BENCH_BUILD:-build}
work=${TOOLWIRE_LLAMA_BUILD:-build-llama}
. "$root/scripts/llama-src.sh"
llama_src_need parser-llama g++ || exit 1

build_only=0 compare=1 templates=../shared/templates
while [ $# -gt 0 ]; do
  case $1 in
    --build-only) build_only=1; shift ;;
    --no-compare) compare=0; shift ;;
    --templates) templates=${2:?--templates DIR}; shift 2 ;;
    *) echo "usage: scripts/parser-llama.sh [--build-only] [--no-compare] [--templates DIR]" >&2
       exit 2 ;;
  esac
done
(cd "$root" && [ -d "$templates" ]) || { echo "parser-llama: no chat templates in $templates" >&2; exit 1; }

llama_src_fetch "$root" "$work" parser-llama || exit 1
obj=$root/$work/obj-$llama_version # the objects bench-llama.sh compiles, the same flags
llama_src_compile parser-llama "$obj" g++ -std=c++17 -O3 -DNDEBUG -ffunction-sections \
  -fdata-sections -w || exit 1
exe=$root/$work/llama_parser_driver
nice -n 10 g++ -std=c++17 -O2 -Wall -Wextra -isystem "$llama_src/common" \
  -isystem "$llama_src/include" -isystem "$llama_src/ggml/include" \
  -DLLAMA_PARSER_VERSION="\"$llama_build\"" "$root/parsers/llama.cpp/llama_parser_driver.cpp" \
  "$obj"/*.o -Wl,--gc-sections -o "$exe"
echo "parser-llama: built $work/llama_parser_driver ($llama_build, @fugood/llama.node $llama_version)"
[ "$build_only" -eq 0 ] || exit 0

cd "$root" # the driver's command as the reports show it: relative to the repository
driver="$work/llama_parser_driver --templates $templates"
if [ "$compare" -eq 1 ]; then
  python3 parsers/llama.cpp/compare.py --driver "$driver" --out "$work/compare" \
    --differences parsers/llama.cpp/expected.json
fi
if [ -x "$dir/toolwire" ] && "$dir/toolwire" parsers --help >/dev/null 2>&1; then
  mkdir -p reports/parsers
  "$dir/toolwire" parsers --parser "llama.cpp=$driver" \
    --expected parsers/llama.cpp/expected.json --out reports/parsers --timeout 60
else
  echo "parser-llama: $dir/toolwire has no 'parsers' command yet; reports/parsers/ not written" >&2
fi
