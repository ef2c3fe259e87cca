#!/usr/bin/env bash
# Seed corpus/<target>/ from the decode fixtures' inputs (tests/data/decode),
# the conformance fixtures (fixtures/**.json, for the fixture target), the
# expected calls' arguments (json_diff) and the hand-picked adversarial
# inputs of fuzz/seeds/. Idempotent: files are named
# by content hash, so a rerun adds only what is new and never removes what
# fuzzing merged in. Needs python3.
#
#   fuzz/seed-corpus.sh [--clean] [--target NAME]...
#
# --clean empties the corpus directories being seeded first; --target NAME
# (repeatable) seeds only corpus/NAME/ and leaves every other corpus alone.
# NAME is a fuzz target (a fuzz/NAME.options file exists). Without --target
# every target is seeded.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
clean=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --clean) clean=1; shift ;;
    --target)
      [ $# -ge 2 ] || { echo "seed-corpus: --target needs a NAME" >&2; exit 2; }
      if [ ! -f "fuzz/$2.options" ]; then
        echo "seed-corpus: unknown target '$2' (no fuzz/$2.options)" >&2; exit 2
      fi
      targets+=("$2"); shift 2 ;;
    --target=*)
      t=${1#--target=}
      if [ -z "$t" ] || [ ! -f "fuzz/$t.options" ]; then
        echo "seed-corpus: unknown target '$t' (no fuzz/$t.options)" >&2; exit 2
      fi
      targets+=("$t"); shift ;;
    -h|--help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
    *) echo "seed-corpus: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ "$clean" = 1 ]; then
  if [ ${#targets[@]} -eq 0 ]; then
    rm -rf corpus/*/
  else
    for t in "${targets[@]}"; do rm -rf "corpus/$t/"; done
  fi
fi
exec python3 - "$root" ${targets[@]+"${targets[@]}"} <<'PY'
import hashlib, json, os, pathlib, re, sys

root = pathlib.Path(sys.argv[1])
corpus = root / "corpus"
only = set(sys.argv[2:])  # empty: every target
# decode fixture format -> targets it seeds: the decoder's own targets in the
# table of formats (src/format_table.h, the D rows' last column), and sse
# for a decoder of the SSE family; the text decoders seed each other
TEXT = ["think", "hermes", "hermes_stream", "fenced"]
FORMATS = {}
SSE_TARGETS = []  # the targets of the decoders of the SSE family
for m in re.finditer(r'^ *D\([^,]*, "([^"]*)", ([A-Z]+), \(([^)]*)\)\)',
                     (root / "src" / "format_table.h").read_text(), re.M):
    cols = [c.strip() for c in m.group(3).split(",")]
    FORMATS[m.group(1)] = cols[0::2] + (["sse"] if m.group(2) == "SSE" else [])
    SSE_TARGETS += cols[0::2] if m.group(2) == "SSE" else []
for name in ("think", "hermes", "fenced"):
    FORMATS[name] = TEXT

def header(opts, seed):
    """The 8 header bytes of fuzz/invariants.h for a fixture's options."""
    h = [0] * 8
    o = opts or {}
    if o.get("forced_open"): h[0] |= 1
    if o.get("unterminated") == "direct": h[0] |= 2
    if o.get("bare_json"): h[0] |= 4
    if o.get("allow_unknown_tool"): h[0] |= 8
    if o.get("schema_warn"): h[0] |= 16
    if o.get("tools") is not None: h[0] |= 32
    h[0] |= {"think": 1, "thinking": 2}.get(o.get("think_tags"), 0) << 6
    h[1] = {"length": 1, "stop_sequence": 2}.get(o.get("finish"), 0) | (15 << 2)
    if "max_args_bytes" in o:
        h[2] |= 1; h[3] = min(255, max(0, (int(o["max_args_bytes"]) - 1) // 8))
    if "max_calls" in o:
        h[2] |= 2; h[4] |= min(7, int(o["max_calls"]) - 1)
    if "max_depth" in o:
        h[2] |= 4; h[4] |= min(31, int(o["max_depth"]) - 1) << 3
    if "max_input_bytes" in o:
        h[2] |= 8; h[5] = min(255, max(0, (int(o["max_input_bytes"]) - 1) // 16))
    h[7] = seed
    return bytes(h)

added = 0
def put(target, data):
    global added
    if only and target not in only:
        return
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    p = d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])
    if not p.exists():
        p.write_bytes(data)
        added += 1

for f in sorted((root / "tests/data/decode").rglob("*.json")):
    fx = json.loads(f.read_text())
    targets = FORMATS.get(fx.get("format"), [])
    text = fx.get("input")
    if not isinstance(text, str):
        continue
    body = text.encode("utf-8", "surrogatepass")
    seed = 1 + hashlib.sha1(f.name.encode()).digest()[0] % 255
    for t in targets:
        put(t, header(fx.get("options"), seed) + body)
        if t == "hermes_stream":
            put(t, header(fx.get("options"), 0) + body)  # one byte at a time
        if t == "sse":
            put(t, header({}, seed) + body)

# json_diff: the arguments of every call a decode fixture expects, as text
for f in sorted((root / "tests/data/decode").rglob("*.json")):
    fx = json.loads(f.read_text())
    for c in ((fx.get("expect") or {}).get("tool_calls") or []):
        if isinstance(c, dict) and "arguments" in c:
            put("json_diff", json.dumps(c["arguments"], ensure_ascii=False).encode("utf-8", "surrogatepass"))

for f in sorted((root / "fixtures").rglob("*.json")):
    put("fixture", bytes(8) + f.read_bytes())

# request: the request bodies of the conformance fixtures, each with the
# seed byte that picks its reader: the reader's own value, FNV-1a of its name
# modulo 256 (fuzz/inv_request.c, tw_fz_request_ring)
READERS = re.findall(r'^\s*R\(\s*\w+\s*,\s*"([^"]+)"', (root / "src/format_table.h").read_text(), re.M)
def ring(name):
    h = 2166136261
    for c in name.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h % 256
def reader_of(path):
    if path.endswith("/chat/completions"): return "openai-request"
    if path.endswith("/messages"): return "anthropic-request"
    if path.endswith("/responses"): return "openai-responses-request"
    if path.endswith("/generate"): return "vllm-generate-request"
    if ":generateContent" in path or ":streamGenerateContent" in path: return "gemini-request"
    return None
for f in sorted((root / "fixtures").rglob("*.json")):
    try:
        fx = json.loads(f.read_text())
    except ValueError:
        continue
    for x in (fx.get("exchanges") or []) if isinstance(fx, dict) else []:
        req = x.get("request") or {}
        rd = reader_of(str(req.get("path", "")))
        if rd is None or "body" not in req:
            continue
        body = json.dumps(req["body"], ensure_ascii=False).encode("utf-8", "surrogatepass")
        if len(body) <= 16384 - 8:
            put("request", header({}, ring(rd)) + body)

# and the prompts the chat templates rendered, read by their prompt readers
for d, rd in (("qwen3", "hermes-prompt"), ("qwen3-coder", "qwen3-coder-prompt"),
              ("qwen3.5", "qwen3.5-prompt")):
    for f in sorted((root / "tests/data" / d).glob("*.json")):
        want = json.loads(f.read_text()).get("expected")
        if isinstance(want, str):
            body = want.encode("utf-8", "surrogatepass")
            if len(body) <= 16384 - 8:
                put("request", header({}, ring(rd)) + body)

# the model dialects' prompts (tests/data/prompts/<dialect>/), read by <dialect>-prompt
for d in sorted((root / "tests/data/prompts").glob("*")):
    rd = d.name + "-prompt"
    if not d.is_dir() or rd not in READERS:
        continue
    for f in sorted(d.glob("*.json")):
        want = json.loads(f.read_text()).get("expected")
        if isinstance(want, str):
            body = want.encode("utf-8", "surrogatepass")
            if len(body) <= 16384 - 8:
                put("request", header({}, ring(rd)) + body)

# hand-picked inputs: fuzz/seeds/<target>/<name> holds the body; a file
# named *.hdr beside it gives its 8 header bytes as hex (default: zeros)
for d in sorted((root / "fuzz/seeds").glob("*")):
    if not d.is_dir():
        continue
    for f in sorted(d.iterdir()):
        if f.suffix == ".hdr":
            continue
        hdr_file = f.with_name(f.name + ".hdr")
        raw = f.read_bytes()
        if d.name in ("schema", "json_diff"):
            put(d.name, raw)  # own layouts: schema's depth byte…; json_diff has no header
            continue
        hdr = bytes.fromhex(hdr_file.read_text().strip()) if hdr_file.exists() else bytes(8)
        put(d.name, hdr + raw)
        if d.name in ("hermes", "think", "fenced"):
            for t in TEXT:
                put(t, hdr + raw)
        if d.name in SSE_TARGETS:
            put("sse", hdr + raw)

print(f"seed-corpus: {added} new inputs")
PY
