#!/usr/bin/env bash
# Install a build tree into a temporary prefix and build a small program
# against it with pkg-config: the install rules, headers and .pc file work.
set -euo pipefail
build=${1:?usage: scripts/install-check.sh BUILD_DIR}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cat > "$prefix/consumer.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <toolwire/decode.h>
int main(void)
{
    const char in[] = "<think>plan</think>hi<tool_call>{\"name\": \"f\"}</tool_call>";
    const tw_format_ops *f = tw_format_find("hermes");
    tw_result r;
    if (!f || f->decode(in, sizeof in - 1, NULL, &r) != TW_OK)
        return 1;
    int ok = strcmp(r.msg.content.data, "hi") == 0 && r.msg.ncalls == 1;
    tw_result_free(&r);
    return ok ? 0 : 1;
}
C
cc -std=c11 "$prefix/consumer.c" $(pkg-config --cflags --libs toolwire) -Wl,-rpath,"$prefix/lib" -o "$prefix/consumer"
"$prefix/consumer"
test -x "$prefix/bin/toolwire"
"$prefix/bin/toolwire" --version
echo "install check: ok"
