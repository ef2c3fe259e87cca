#!/usr/bin/env bash
# The Criterion suites mirror the rooms of the program: every tests/**/test_*.c
# sits in tests/<room>/, where <room> is a folder of harness/ (backends, checks,
# cli, …), lib (the library in src/) or fuzz (fuzz/). None at tests/ top level,
# none deeper than one folder, no two with the same file name (a test is named
# after its file), and no test named after an issue: neither a file name nor a
# Test(suite, name) holds "issue", "bug" or "regression" followed by a number.
# It first plants each fault in a scratch tree and fails unless it catches it.
#   tests/tools/check_test_layout.sh [SOURCE_DIR]
#   tests/tools/check_test_layout.sh --self-test   (only that)
set -u

check() {
  local root=$1 bad="" n=0 f rel dir base
  declare -A seen=()
  for f in $(cd "$root" && find tests -name 'test_*.c' -not -path 'tests/data/*' | sort); do
    n=$((n + 1))
    rel=${f#tests/}
    base=${rel##*/}
    dir=${rel%"$base"}
    dir=${dir%/}
    if [ -z "$dir" ]; then
      bad="$bad$f: at tests/ top level; move it into the folder of its room"$'\n'
    elif [ "${dir#*/}" != "$dir" ]; then
      bad="$bad$f: more than one folder deep; tests/<room>/test_*.c"$'\n'
    elif [ "$dir" != lib ] && [ "$dir" != fuzz ] && [ ! -d "$root/harness/$dir" ]; then
      bad="$bad$f: tests/$dir/ is no room (harness/$dir/ does not exist; lib and fuzz are the others)"$'\n'
    fi
    if [ -n "${seen[$base]:-}" ]; then
      bad="$bad$f: the same file name as ${seen[$base]} (both would be the test ${base%.c})"$'\n'
    fi
    seen[$base]=$f
    if printf '%s\n' "$base" | grep -Eiq 'issue|(bug|regression)_?[0-9]'; then
      bad="$bad$f: a file name that names an issue, not what it tests"$'\n'
    fi
    local hits
    hits=$(grep -Ein '^(Parameterized)?Test\(([^)]*[,( ])?[^,)]*(issue|(bug|regression)_?[0-9])' "$root/$f" | tr "\n" " ")
    if [ -n "$hits" ]; then
      bad="$bad$f: a test named after an issue, not what it tests: $hits"$'\n'
    fi
  done
  if [ "$n" -eq 0 ]; then
    echo "no tests/**/test_*.c under $root" >&2
    return 2
  fi
  if [ -n "$bad" ]; then
    printf '%s' "$bad" >&2
    return 1
  fi
  echo "all $n test files sit in a room's folder, named after what they test"
}

self_test() {
  local t ok=0
  t=$(mktemp -d /tmp/tw_layout_XXXXXX) || exit 2
  mkdir -p "$t/harness/run" "$t/tests/run" "$t/tests/lib" "$t/tests/data/x"
  printf 'Test(run, jobs) {}\n' > "$t/tests/run/test_run.c"
  printf 'Test(json, nul) {}\n' > "$t/tests/lib/test_json.c"
  printf 'Test(x, y) {}\n' > "$t/tests/data/x/test_data.c"
  check "$t" > /dev/null 2>&1 || { echo "self-test: a good tree fails" >&2; ok=1; }
  expect_fail() { # what, then the file to plant and its text
    printf '%s\n' "$3" > "$t/$2"
    if check "$t" > /dev/null 2>&1; then
      echo "self-test: $1 passes" >&2
      ok=1
    fi
    rm -f "$t/$2"
  }
  expect_fail "a test at top level" tests/test_top.c 'Test(a, b) {}'
  mkdir -p "$t/tests/nowhere"
  expect_fail "a test in no room" tests/nowhere/test_x.c 'Test(a, b) {}'
  expect_fail "a file name used twice" tests/lib/test_run.c 'Test(a, b) {}'
  expect_fail "a file named after an issue" tests/lib/test_issue7.c 'Test(a, b) {}'
  expect_fail "a suite named after an issue" tests/lib/test_ok.c 'Test(issue3_convert, sources) {}'
  expect_fail "a test named after an issue" tests/lib/test_ok.c 'Test(convert, regression_27) {}'
  expect_fail "a parameterized test named after an issue" tests/lib/test_ok.c \
    'ParameterizedTest(struct p *p, bug12, replay) {}'
  rm -rf "$t"
  [ "$ok" -eq 0 ] && echo "self-test: every planted layout fault is caught"
  return "$ok"
}

if [ "${1:-}" = --self-test ]; then
  self_test
  exit $?
fi
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
self_test || exit 1
check "$root"
