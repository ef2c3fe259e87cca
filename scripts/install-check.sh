#!/usr/bin/env bash
# Install a build tree into a temporary prefix and build a small program
# against it with pkg-config: the install rules, headers and .pc file work.
# Then run the installed program from an unrelated directory: `toolwire main`
# finds the installed fixtures, and $TOOLWIRE_DATA overrides them.
set -euo pipefail
build=${1:?usage: scripts/install-check.sh BUILD_DIR}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cat > "$prefix/consumer.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <toolwire/decode.h>
/* the allocator hook: the library's allocations and cJSON's come here */
static long allocs;
static void *my_malloc(void *ctx, size_t n) { (void)ctx; allocs++; return malloc(n); }
static void *my_realloc(void *ctx, void *p, size_t n) { (void)ctx; allocs++; return realloc(p, n); }
static void my_free(void *ctx, void *p) { (void)ctx; free(p); }
int main(void)
{
    const tw_allocator a = {my_malloc, my_realloc, my_free, NULL};
    tw_set_allocator(&a);
    const char in[] = "<think>plan</think>hi<tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}}</tool_call>";
    const tw_format_ops *f = tw_format_find("hermes");
    tw_result r;
    if (!f || f->decode(in, sizeof in - 1, NULL, &r) != TW_OK || allocs == 0)
        return 1;
    int ok = strcmp(r.msg.content.data, "hi") == 0 && r.msg.ncalls == 1;
    /* the public headers expose cJSON: a program calls it with pkg-config's flags alone */
    char *args = ok ? cJSON_PrintUnformatted(r.msg.calls[0].arguments) : NULL;
    ok = args && strcmp(args, "{\"x\":1}") == 0;
    if (!ok)
        fprintf(stderr, "consumer: arguments %s\n", args ? args : "(none)");
    cJSON_free(args);
    tw_result_free(&r);
    return ok ? 0 : 1;
}
C
cc -std=c11 "$prefix/consumer.c" $(pkg-config --cflags --libs toolwire) -Wl,-rpath,"$prefix/lib" -o "$prefix/consumer"
"$prefix/consumer"
test -x "$prefix/bin/toolwire"
"$prefix/bin/toolwire" --version

# the installed data, found from anywhere (the prefix moved after the build, too)
test -d "$prefix/share/toolwire/fixtures/openai"
test -d "$prefix/share/toolwire/decode"
# the reports' JSON Schema is installed beside the data, and is JSON
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$prefix/share/toolwire/report.schema.json"
# only the API is installed: the internal headers stay in src/
test ! -e "$prefix/include/toolwire/work.h"
# toolwire.pc names libcjson as a public requirement (the headers expose cJSON *)
grep -q '^Requires: libcjson' "$prefix/lib/pkgconfig/toolwire.pc"
elsewhere=$(mktemp -d)
trap 'rm -rf "$prefix" "$elsewhere"' EXIT
(cd "$elsewhere" && env -u TOOLWIRE_DATA "$prefix/bin/toolwire" main --quiet --out "$elsewhere/reports")
test -s "$elsewhere/reports/mock-replay.html"
grep -q "share/toolwire/fixtures/" "$elsewhere/reports/mock-replay.json"

# $TOOLWIRE_DATA comes first: a data root with one fixture gives a run of one fixture
mkdir -p "$elsewhere/data/fixtures"
# (a glob, not `ls | head`: under pipefail ls can die of SIGPIPE once head has its line)
files=("$prefix/share/toolwire/fixtures/openai/"*.json)
first=${files[0]}
cp "$first" "$elsewhere/data/fixtures/"
(cd "$elsewhere" && TOOLWIRE_DATA="$elsewhere/data" "$prefix/bin/toolwire" run --quiet \
    --backend one=mock:replay --out "$elsewhere/one")
grep -q '"fixtures": 1,' "$elsewhere/one/one.json"
echo "install check: ok"
