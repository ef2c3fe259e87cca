#!/usr/bin/env python3
"""Generate the data-first fixtures of the text decoders (think, hermes, fenced).

Usage:  python3 tests/tools/gen_text_fixtures.py [--check]

Writes tests/data/decode/{think,hermes,fenced}/NAME.json, one scenario per file, following
docs/text-formats.md. Every offset is a byte offset into the UTF-8 input and is computed
here (never by hand). Expectations (content, thinking, calls) are written out by hand;
offsets, codes and orderings are sanity-checked before anything is written.
With --check nothing is written: the script only verifies that the files on disk are
exactly what it would generate.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_gen  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "data", "decode"))
WS = " \t\n\r\f\v"  # the ASCII whitespace of docs/text-formats.md "Whitespace"

TC_OPEN = "<tool_call>"
TC_CLOSE = "</tool_call>"
FENCE_OPEN = "```tool_call"

# Defaults of docs/text-formats.md; options equal to a default are not written.
DEFAULTS = {"forced_open": False, "unterminated": "synthesize", "finish": "stop",
            "max_args_bytes": 204800, "max_calls": 64, "max_depth": 64,
            "max_input_bytes": 16 * 1024 * 1024, "bare_json": False,
            "allow_unknown_tool": False, "schema_warn": False}
OPTION_KEYS = ["forced_open", "unterminated", "finish", "tools", "max_args_bytes", "max_calls",
               "max_depth", "max_input_bytes", "bare_json", "allow_unknown_tool", "schema_warn"]

PER_CALL_CODES = {"tool_call_json", "tool_call_unterminated", "missing_name", "unknown_tool",
                  "arguments_not_object", "args_too_large", "json_too_deep", "args_schema",
                  "too_many_calls", "arguments_as_string", "parameters_alias", "duplicate_id"}


# ---------------------------------------------------------------- helpers

def trim(s):
    return s.strip(WS)


def at(s, needle, n=1):
    """Byte offset of the n-th (1-based) occurrence of needle in the UTF-8 encoding of s."""
    b, nb, pos = s.encode(), needle.encode(), -1
    for _ in range(n):
        pos = b.find(nb, pos + 1)
        if pos < 0:
            raise ValueError("%r: occurrence %d not found" % (needle, n))
    return pos


def blen(s):
    return len(s.encode())


def js(v):
    """JSON as a model would write it (", " and ": " separators, UTF-8 kept raw)."""
    return json.dumps(v, ensure_ascii=False)


def compact_len(v):
    return len(json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode())


def tc(payload, inner_pre="", inner_post=""):
    """A <tool_call> block; payload is a JSON value or a raw string."""
    body = payload if isinstance(payload, str) else js(payload)
    return TC_OPEN + inner_pre + body + inner_post + TC_CLOSE


def tcn(payload):
    """A <tool_call> block in the Qwen layout: tag, newline, JSON, newline, tag."""
    return tc(payload, "\n", "\n")


def fc(payload, sep="\n"):
    """A ```tool_call block."""
    body = payload if isinstance(payload, str) else js(payload)
    return FENCE_OPEN + sep + body + sep + "```"


def C(id_, name, args):
    return {"id": id_, "name": name, "arguments": args}


# Tool definitions used by several cases.
WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "integer"},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
}
TIME = {"name": "get_time", "description": "Current time in a time zone",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}
SEARCH = {
    "name": "search",
    "description": "Search documents",
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "filter": {
                "type": "object",
                "properties": {"min": {"type": "integer"}, "exact": {"type": "boolean"}},
                "required": ["min"],
            },
            "cursor": {"type": ["string", "null"]},
            "opts": {"type": "object"},
            "ids": {"type": "array"},
            "nothing": {"type": "null"},
        },
        "required": ["query"],
    },
}
LEVEL = {
    "name": "set_level",
    "description": "Set a level and a gain",
    "parameters": {"type": "object",
                   "properties": {"level": {"type": "integer"}, "gain": {"type": "number"}}},
}
NOSCHEMA = {"name": "ping", "description": "No parameters declared"}


def openai_form(tool):
    return {"type": "function", "function": tool}


# ---------------------------------------------------------------- case table

CASES = []


def case(fmt, name, description, rule, input, *, content="", thinking="", calls=(),
         errors=(), warnings=(), finish_reason=None, **options):
    for k in options:
        if k not in OPTION_KEYS:
            raise KeyError("%s/%s: unknown option %s" % (fmt, name, k))
    opts = {k: options[k] for k in OPTION_KEYS
            if k in options and (k == "tools" or options[k] != DEFAULTS.get(k))}
    if finish_reason is None:
        finish_reason = ("tool_calls" if calls else
                         "length" if opts.get("finish") == "length" else "stop")
    obj = {"description": description, "rule": rule, "format": fmt}
    if opts:
        obj["options"] = opts
    obj["input"] = input
    obj["expect"] = {
        "content": content,
        "thinking": thinking,
        "tool_calls": list(calls),
        "finish_reason": finish_reason,
        "errors": [{"code": c, "offset": o} for c, o in errors],
        "warnings": [{"code": c, "offset": o} for c, o in warnings],
    }
    CASES.append((fmt, name, obj))


# ================================================================ think (§1)

T = "think"

case(T, "basic_think", "a leading <think> block is thinking, the rest is content",
     "think 1-3", "<think>Let me add 2 and 2.</think>The answer is 4.",
     thinking="Let me add 2 and 2.", content="The answer is 4.")

case(T, "thinking_spelling", "the <thinking> spelling is a think block too",
     "think 1 (both spellings)", "<thinking>Plan the reply.</thinking>\nHello!",
     thinking="Plan the reply.", content="Hello!")

case(T, "own_close_think", "</thinking> does not close a <think> block; it is text inside it",
     "think 1 (own closing tag)", "<think>a </thinking> b</think>c",
     thinking="a </thinking> b", content="c")

case(T, "own_close_thinking", "</think> does not close a <thinking> block; it is text inside it",
     "think 1 (own closing tag)", "<thinking>x </think> y</thinking>Done",
     thinking="x </think> y", content="Done")

case(T, "nested_open_is_text",
     "an opening tag inside a block is text; the first own closing tag closes, the second is stray content",
     "think 1, think 5", "<think>outer <think> inner</think> tail</think>",
     thinking="outer <think> inner", content="tail</think>")

inp = "<think>Maybe " + tc({"name": "f", "arguments": {}}) + " later.</think>OK"
case(T, "tool_call_in_closed_block", "a <tool_call> inside a closed block is reasoning text",
     "think 1, think 7 (closed block)", inp,
     thinking="Maybe " + tc({"name": "f", "arguments": {}}) + " later.", content="OK")

case(T, "several_blocks_joined", "every block is extracted and the thinking texts are joined with \\n",
     "think 2, think 3",
     "<think>first</think>A <thinking>second</thinking>B <think>third</think>C",
     thinking="first\nsecond\nthird", content="A B C")

case(T, "empty_blocks_skipped", "blocks whose trimmed text is empty add nothing to the join",
     "think 2 (empty blocks)",
     "<think>\n\n</think><think>one</think>mid<think> \t </think><thinking>two</thinking>end",
     thinking="one\ntwo", content="midend")

case(T, "only_empty_block", "an empty block gives thinking \"\"",
     "think 2 (empty block)", "<think>\n\n</think>\n\nHello.", thinking="", content="Hello.")

case(T, "trim_ascii_whitespace", "thinking and content are trimmed of space, \\t, \\n, \\r, \\f, \\v",
     "whitespace, think 2-3",
     "\r\n\t<think> \f\v\r\n inner  text \n\t</think>\v\f  answer \r\n",
     thinking="inner  text", content="answer")

case(T, "nbsp_not_trimmed", "non-ASCII whitespace (U+00A0) is not trimmed",
     "whitespace", "<think>\u00a0idea\u00a0</think>\u00a0reply\u00a0",
     thinking="\u00a0idea\u00a0", content="\u00a0reply\u00a0")

case(T, "content_both_sides", "text on both sides of a block is joined as it stands (two spaces stay)",
     "think 3", "Before <think>hidden</think> after", thinking="hidden", content="Before  after")

case(T, "content_joined_no_space", "nothing is inserted where a block was removed",
     "think 3", "A<think>x</think>B", thinking="x", content="AB")

case(T, "forced_open_basic", "forced-open: everything before </think> is thinking",
     "think 4 (forced-open)", "The user wants a greeting.\n</think>\n\nHello there!",
     forced_open=True, thinking="The user wants a greeting.", content="Hello there!")

case(T, "forced_open_repeated_tag", "forced-open: a repeated opening tag after leading whitespace is dropped",
     "think 4 (repeated opening tag)", " \n<think>\nreasoning here\n</think>\nAnswer.",
     forced_open=True, thinking="reasoning here", content="Answer.")

case(T, "forced_open_closes_with_thinking", "forced-open: </thinking> closes the block too",
     "think 4 (either closing spelling)", "Step one.</thinking>Result",
     forced_open=True, thinking="Step one.", content="Result")

case(T, "forced_open_first_close_wins",
     "forced-open: whichever closing spelling comes first closes; the later one is stray content",
     "think 4, think 5", "a</thinking>b</think>c",
     forced_open=True, thinking="a", content="b</think>c")

case(T, "forced_open_inner_open_is_text", "forced-open: an opening tag not at the start is text",
     "think 4, think 1", "x <think> y</think>z",
     forced_open=True, thinking="x <think> y", content="z")

case(T, "forced_open_then_block", "forced-open: blocks after the first close are ordinary blocks",
     "think 4, think 2", "a</think>b<think>c</think>d",
     forced_open=True, thinking="a\nc", content="bd")

case(T, "stray_close", "a closing tag with no open block is content",
     "think 5", "Hello </think> world", content="Hello </think> world")

inp = "Answer so far. <think>  still going"
case(T, "unterminated_synthesize", "synthesize: the text after the opening tag is thinking, error at its <",
     "think 6 (synthesize)", inp, thinking="still going", content="Answer so far.",
     errors=[("think_unterminated", at(inp, "<think>"))])

inp = "<think>a</think>x<thinking>b"
case(T, "unterminated_after_closed", "synthesize: an unterminated last block joins the earlier ones",
     "think 6 (synthesize), think 2", inp, thinking="a\nb", content="x",
     errors=[("think_unterminated", at(inp, "<thinking>"))])

case(T, "unterminated_other_close", "a <thinking> block with only </think> after it is unterminated",
     "think 1, think 6", "<thinking>a</think>b", thinking="a</think>b",
     errors=[("think_unterminated", 0)])

case(T, "direct_only_block", "direct: the opening tag and everything after it are content",
     "think 6 (direct)", "<think>I am not sure", unterminated="direct",
     content="<think>I am not sure", errors=[("think_unterminated", 0)])

inp = "<think>secret</think>Reply <think>more"
case(T, "direct_after_closed", "direct: an earlier closed block stays thinking, never leaks",
     "think 6 (direct)", inp, unterminated="direct", thinking="secret",
     content="Reply <think>more", errors=[("think_unterminated", at(inp, "<think>", 2))])

case(T, "forced_open_unterminated", "forced-open never closed (synthesize): all is thinking, offset 0",
     "think 4, think 6 (synthesize)", "never closed reasoning", forced_open=True,
     thinking="never closed reasoning", errors=[("think_unterminated", 0)])

case(T, "forced_open_unterminated_direct", "forced-open never closed (direct): the whole text is content",
     "think 4, think 6 (direct)", "just an answer", forced_open=True, unterminated="direct",
     content="just an answer", errors=[("think_unterminated", 0)])

blk = tcn({"name": "get_time", "arguments": {}})
inp = "<think>I should call it " + blk
case(T, "implicit_end", "a valid <tool_call> in an unterminated block ends the reasoning; think keeps it as content",
     "think 7 (implicit end)", inp, thinking="I should call it", content=blk,
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

blk = tc({"name": "f", "arguments": {"a": 1}})
inp = "Need data. " + blk
case(T, "implicit_end_forced_open", "forced-open never closed: a valid <tool_call> ends the reasoning",
     "think 7 (forced-open)", inp, forced_open=True, thinking="Need data.", content=blk,
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

case(T, "invalid_tool_call_no_end", "a <tool_call> whose payload does not parse does not end reasoning",
     "think 7 (invalid block), think 6", "<think>try <tool_call>not json</tool_call> hmm",
     thinking="try <tool_call>not json</tool_call> hmm", errors=[("think_unterminated", 0)])

case(T, "string_payload_no_end", "a payload that is a JSON string (not object or array) does not end reasoning",
     "think 7 (invalid block)", "<think>a <tool_call>\"just a string\"</tool_call>",
     thinking="a <tool_call>\"just a string\"</tool_call>", errors=[("think_unterminated", 0)])

inp = "<think>plan " + TC_OPEN + js({"name": "f", "arguments": {}})
case(T, "unclosed_tool_call_no_end", "a <tool_call> never closed by </tool_call> does not end reasoning",
     "think 7 (incomplete block)", inp, thinking=inp[len("<think>"):].strip(WS),
     errors=[("think_unterminated", 0)])

good = tc({"name": "f"})
inp = "<think>a <tool_call>oops</tool_call> b " + good
case(T, "implicit_end_first_valid", "an invalid <tool_call> is skipped; the first valid one ends reasoning",
     "think 7", inp, thinking="a <tool_call>oops</tool_call> b", content=good,
     warnings=[("think_implicit_end", at(inp, TC_OPEN, 2))])

case(T, "partial_open_at_end", "an undecided prefix <thi at the end of the input is text",
     "think 8", "The answer is <thi", content="The answer is <thi")

case(T, "partial_close_in_block", "an undecided </thin at the end stays inside the unterminated block",
     "think 8, think 6", "<think>abc</thin", thinking="abc</thin",
     errors=[("think_unterminated", 0)])

case(T, "angle_brackets_text", "a < b and tag-like words are plain text",
     "think 8", "if a < b and b > c then <thinker> is not a tag </thinker>",
     content="if a < b and b > c then <thinker> is not a tag </thinker>")

case(T, "multibyte", "multibyte UTF-8 in thinking and content",
     "think 2-3", "<think>Überlegung: 東京 🌸</think>Antwort: ja ✓",
     thinking="Überlegung: 東京 🌸", content="Antwort: ja ✓")

inp = "Résumé 東京 🌸 <think>思考中"
case(T, "multibyte_offset", "the think_unterminated offset counts bytes, not characters",
     "offsets, think 6", inp, thinking="思考中", content="Résumé 東京 🌸",
     errors=[("think_unterminated", at(inp, "<think>"))])

case(T, "empty_input", "an empty input gives empty content and thinking", "think 2-3", "")

head = "Public answer text, then a tag: <thi"
inp = head + "nk>secret</think> tail"
case(T, "max_input_cut_partial_tag",
     "bytes past max_input_bytes are not decoded; the cut leaves <thi at the end, which is text",
     "limits (max_input_bytes), think 8", inp, max_input_bytes=blen(head),
     content=head, errors=[("input_too_large", blen(head))])

inp = "<think>reasoning that the cap cuts short because it is long</think>Answer"
assert inp.encode().find(b"</think>") > 40
case(T, "max_input_cut_in_block", "the input finishes at max_input_bytes, inside a block: unterminated",
     "limits (max_input_bytes), think 6", inp, max_input_bytes=40,
     thinking=trim(inp.encode()[7:40].decode()),
     errors=[("think_unterminated", 0), ("input_too_large", 40)])


# ================================================================ hermes (§2)

H = "hermes"
W_PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}

inp = tcn(W_PARIS)
case(H, "object_payload", "one object payload is one call with a generated id",
     "hermes 2-3 (object payload), hermes 6, hermes 13", inp,
     calls=[C("call_1", "get_weather", {"city": "Paris"})])

inp = tc('{"arguments": {"city": "Oslo", "unit": "c"}, "name": "get_weather"}')
case(H, "keys_any_order", "arguments may come before name", "hermes 3", inp,
     calls=[C("call_1", "get_weather", {"city": "Oslo", "unit": "c"})])

inp = tcn([{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": 2}},
           {"name": "c", "arguments": {}}])
case(H, "array_payload", "an array payload gives one call per element, in order",
     "hermes 3 (array payload), hermes 6", inp,
     calls=[C("call_1", "a", {"x": 1}), C("call_2", "b", {"y": 2}), C("call_3", "c", {})])

inp = ("Let me check both.\n" + tcn({"name": "get_weather", "arguments": {"city": "Paris"}}) + "\n"
       + tcn({"name": "get_weather", "arguments": {"city": "Rome"}}))
case(H, "several_blocks", "several blocks are parsed in order; ids count across blocks",
     "hermes 3, hermes 6, hermes 8", inp, content="Let me check both.",
     calls=[C("call_1", "get_weather", {"city": "Paris"}),
            C("call_2", "get_weather", {"city": "Rome"})])

inp = ("First.\n" + tc({"name": "a", "arguments": {}}) + "\nThen.\n"
       + tc({"name": "b", "arguments": {}}) + "\nDone.")
case(H, "content_between_blocks", "content is the text around the blocks, as it stands, trimmed",
     "hermes 8", inp, content="First.\n\nThen.\n\nDone.",
     calls=[C("call_1", "a", {}), C("call_2", "b", {})])

inp = tc(js(W_PARIS), "\n```\n", "\n```\n")
case(H, "fence_plain", "a ``` fence around the payload is stripped", "hermes 2 (fence)", inp,
     calls=[C("call_1", "get_weather", {"city": "Paris"})])

inp = tc(js(W_PARIS), "\n```json\n", "\n```\n")
case(H, "fence_json", "a ```json fence around the payload is stripped", "hermes 2 (fence)", inp,
     calls=[C("call_1", "get_weather", {"city": "Paris"})])

inp = tc({"name": "echo", "arguments": {"text": "literal </tool_call> inside"}}) + " done"
case(H, "close_tag_in_string", "a </tool_call> inside a JSON string does not close the block",
     "hermes 2 (JSON-aware end)", inp, content="done",
     calls=[C("call_1", "echo", {"text": "literal </tool_call> inside"})])

inp = tc('Calling now: {"name": "f", "arguments": {"q": "x"}} as planned')
case(H, "retry_first_object", "invalid payload: the first balanced {...} inside it is parsed",
     "hermes 2 (literal fallback, first-balanced retry)", inp,
     calls=[C("call_1", "f", {"q": "x"})])

inp = tc('json: [{"name": "a"}, {"name": "b", "arguments": {"k": true}}] end')
case(H, "retry_first_array", "invalid payload: the first balanced [...] is parsed as an array payload",
     "hermes 2 (first-balanced retry), hermes 3", inp,
     calls=[C("call_1", "a", {}), C("call_2", "b", {"k": True})])

inp = "Go. " + tc('{"name": "f", "arguments": {"a": 1},}') + " after"
case(H, "retry_failure", "the retry on the first balanced {...} fails too: tool_call_json, markup dropped",
     "hermes 2 (retry failure)", inp, content="Go.  after",
     errors=[("tool_call_json", at(inp, TC_OPEN))])

inp = ('Intro <tool_call>{"name": "broken", "arguments": {</tool_call> mid '
       + tc({"name": "ok", "arguments": {}}))
case(H, "retry_failure_others_kept", "a refused unparsable block does not affect the other calls",
     "hermes 2 (literal fallback), hermes 8", inp, content="Intro  mid",
     calls=[C("call_1", "ok", {})], errors=[("tool_call_json", at(inp, TC_OPEN))])

inp = tc([{"name": "a"}, 5, {"name": "b"}])
case(H, "array_non_object_element", "an array element that is not an object is refused; the others are calls",
     "hermes 3", inp, calls=[C("call_1", "a", {}), C("call_2", "b", {})],
     errors=[("tool_call_json", 0)])

case(H, "empty_array", "an empty array payload gives no call and no error", "hermes 3",
     tc("[]") + " ok", content="ok")

inp = tc({"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"})
case(H, "arguments_string_json", "arguments as a string holding a JSON object are parsed, with a warning",
     "hermes 4 (arguments as string)", inp,
     calls=[C("call_1", "get_weather", {"city": "Rome"})],
     warnings=[("arguments_as_string", 0)])

inp = tc({"name": "get_weather", "arguments": "city=Rome"})
case(H, "arguments_string_not_json", "a string argument that is not JSON refuses the call",
     "hermes 4 (arguments_not_object)", inp, errors=[("arguments_not_object", 0)])

inp = tc({"name": "get_weather", "arguments": "[1, 2]"})
case(H, "arguments_string_array", "a string holding a JSON array is not an object: refused",
     "hermes 4 (arguments_not_object)", inp, errors=[("arguments_not_object", 0)])

case(H, "arguments_missing", "missing arguments are {}", "hermes 4 (missing)",
     tc({"name": "get_time"}), calls=[C("call_1", "get_time", {})])

case(H, "arguments_null", "null arguments are {}", "hermes 4 (null)",
     tc({"name": "get_time", "arguments": None}), calls=[C("call_1", "get_time", {})])

inp = tc({"name": "search", "parameters": {"query": "cats"}})
case(H, "parameters_alias", "absent arguments with parameters present use parameters, with a warning",
     "hermes 4 (parameters alias)", inp, calls=[C("call_1", "search", {"query": "cats"})],
     warnings=[("parameters_alias", 0)])

inp = tc({"name": "search", "arguments": {"query": "a"}, "parameters": {"query": "b"}})
case(H, "arguments_over_parameters", "when arguments is present, parameters is ignored and no warning",
     "hermes 4", inp, calls=[C("call_1", "search", {"query": "a"})])

inp = tc({"name": "f", "arguments": 42}) + tc({"name": "g", "arguments": [1, 2]}) + \
    tc({"name": "h", "arguments": True})
case(H, "arguments_not_object", "number, array and boolean arguments are refused",
     "hermes 4 (arguments_not_object)", inp,
     errors=[("arguments_not_object", at(inp, TC_OPEN, 1)),
             ("arguments_not_object", at(inp, TC_OPEN, 2)),
             ("arguments_not_object", at(inp, TC_OPEN, 3))])

inp = "Calling.\n" + tc({"arguments": {"a": 1}})
case(H, "missing_name", "a call without name is refused", "hermes 5 (missing_name)", inp,
     content="Calling.", errors=[("missing_name", at(inp, TC_OPEN))])

inp = tc({"name": "", "arguments": {}}) + tc({"name": 7, "arguments": {}})
case(H, "empty_or_non_string_name", "an empty name and a non-string name are refused",
     "hermes 5 (missing_name)", inp,
     errors=[("missing_name", at(inp, TC_OPEN, 1)), ("missing_name", at(inp, TC_OPEN, 2))])

inp = tc({"name": "get_stock", "arguments": {}}) + "\n" + tc({"name": "get_time", "arguments": {"tz": "UTC"}})
case(H, "unknown_tool", "with tools declared, an undeclared name is refused; ids count accepted calls only",
     "hermes 5 (unknown_tool), hermes 6", inp, tools=[WEATHER, TIME],
     calls=[C("call_1", "get_time", {"tz": "UTC"})],
     errors=[("unknown_tool", at(inp, TC_OPEN, 1))])

case(H, "allow_unknown_tool", "allow_unknown_tool accepts an undeclared name",
     "hermes 5 (allow_unknown_tool)", inp, tools=[WEATHER, TIME], allow_unknown_tool=True,
     calls=[C("call_1", "get_stock", {}), C("call_2", "get_time", {"tz": "UTC"})])

inp = tc({"name": "get_weather", "arguments": {"city": "Lima"}}) + tc({"name": "get_time", "arguments": {}})
case(H, "openai_form_tools", "tools given in the OpenAI {type, function} form are read the same",
     "hermes 5, hermes 11", inp, tools=[openai_form(WEATHER)],
     calls=[C("call_1", "get_weather", {"city": "Lima"})],
     errors=[("unknown_tool", at(inp, TC_OPEN, 2))])

inp = tc({"id": "toolu_abc", "name": "get_time", "arguments": {}})
case(H, "id_kept", "a non-empty string id in the payload is kept", "hermes 6", inp,
     calls=[C("toolu_abc", "get_time", {})])

inp = tc([{"name": "a"}, {"id": "keep", "name": "b"}, {"name": "c"}, {"id": "", "name": "d"},
          {"id": 9, "name": "e"}])
case(H, "ids_mixed", "call_N counts every accepted call before it, kept ids included; empty or non-string ids are generated",
     "hermes 6", inp,
     calls=[C("call_1", "a", {}), C("keep", "b", {}), C("call_3", "c", {}), C("call_4", "d", {}),
            C("call_5", "e", {})])

inp = "".join(tc({"id": "x", "name": n, "arguments": {}}) for n in ("a", "b", "c"))
case(H, "duplicate_ids", "duplicate ids are rewritten __2, __3 with a warning each",
     "hermes 6 (duplicate_id)", inp,
     calls=[C("x", "a", {}), C("x__2", "b", {}), C("x__3", "c", {})],
     warnings=[("duplicate_id", at(inp, TC_OPEN, 2)), ("duplicate_id", at(inp, TC_OPEN, 3))])

inp = tc([{"id": "x", "name": "a"}, {"id": "x__2", "name": "b"}, {"id": "x", "name": "c"}])
case(H, "duplicate_first_free", "a duplicate takes the first free suffix (x__2 is taken, so x__3)",
     "hermes 6 (duplicate_id)", inp,
     calls=[C("x", "a", {}), C("x__2", "b", {}), C("x__3", "c", {})],
     warnings=[("duplicate_id", 0)])

inp = (tc({"arguments": {}}) + tc({"name": "a"}) + tc({"id": "k", "name": "b"}) + tc({"name": "c"}))
case(H, "generated_ids_accepted_only", "a refused call does not count for call_N",
     "hermes 6, hermes 7", inp,
     calls=[C("call_1", "a", {}), C("k", "b", {}), C("call_3", "c", {})],
     errors=[("missing_name", 0)])

inp = "Checking. " + TC_OPEN + js({"name": "f", "arguments": {}})
case(H, "unterminated_stop", "finish stop: an unterminated block is refused and its markup dropped",
     "hermes 9 (stop)", inp, content="Checking.",
     errors=[("tool_call_unterminated", at(inp, TC_OPEN))])

inp = "Sure.\n" + TC_OPEN + "\n" + js({"name": "f", "arguments": {"a": 1}}) + "\n"
case(H, "unterminated_length_complete", "finish length: a complete JSON value is accepted",
     "hermes 9 (length), hermes 13", inp, finish="length", content="Sure.",
     calls=[C("call_1", "f", {"a": 1})])

inp = "Sure.\n" + TC_OPEN + '{"name": "f", "arguments": {"a": '
case(H, "unterminated_length_incomplete", "finish length: incomplete JSON is refused; finish_reason length",
     "hermes 9 (length), hermes 13", inp, finish="length", content="Sure.",
     errors=[("tool_call_unterminated", at(inp, TC_OPEN))])

inp = TC_OPEN + "\n```json\n" + js({"name": "f", "arguments": {"a": 1}}) + "\n```\n"
case(H, "unterminated_length_fence", "finish length: whitespace and the fence are stripped before the check",
     "hermes 9 (length)", inp, finish="length", calls=[C("call_1", "f", {"a": 1})])

inp = "Sure.\n" + TC_OPEN + "\n" + js({"name": "f", "arguments": {}}) + "\n"
case(H, "unterminated_stop_sequence", "finish stop_sequence: the end of the input closes the block",
     "hermes 9 (stop_sequence)", inp, finish="stop_sequence", content="Sure.",
     calls=[C("call_1", "f", {})])

inp = TC_OPEN + 'Call {"name": "f"} now'
case(H, "stop_sequence_retry", "finish stop_sequence: the payload is decoded as in rule 2, retry included",
     "hermes 9 (stop_sequence), hermes 2", inp, finish="stop_sequence",
     calls=[C("call_1", "f", {})])

inp = "Hm. " + TC_OPEN + '{"name": "f", "arguments": '
case(H, "stop_sequence_invalid", "finish stop_sequence: an unparsable payload is tool_call_json; finish stop",
     "hermes 9 (stop_sequence), hermes 13", inp, finish="stop_sequence", content="Hm.",
     errors=[("tool_call_json", at(inp, TC_OPEN))])

inp = tc({"name": "a", "arguments": {}}) + "\n" + TC_OPEN + '{"name": "b"'
case(H, "complete_then_unterminated", "an unterminated last block does not affect an earlier call",
     "hermes 9 (stop)", inp, calls=[C("call_1", "a", {})],
     errors=[("tool_call_unterminated", at(inp, TC_OPEN, 2))])

case(H, "finish_length_no_call", "finish length without any call gives finish_reason length",
     "hermes 13", "The answer was cut off mid", finish="length",
     content="The answer was cut off mid")

a20, a21 = {"q": "x" * 12}, {"q": "y" * 13}
assert compact_len(a20) == 20 and compact_len(a21) == 21
inp = tc({"name": "f", "arguments": a20}) + tc({"name": "f", "arguments": a21})
case(H, "max_args_bytes", "arguments of exactly max_args_bytes compact bytes pass; one byte more is refused",
     "hermes 10 (max_args_bytes)", inp, max_args_bytes=20,
     calls=[C("call_1", "f", a20)], errors=[("args_too_large", at(inp, TC_OPEN, 2))])

raw = "x" * 4200
assert len(raw) > 2 * 10 + 4096
inp = "A " + tc(raw) + " B " + tc({"name": "f", "arguments": {}})
case(H, "raw_payload_too_large", "a raw payload over 2*max_args_bytes+4096 is refused with args_too_large, not parsed",
     "hermes 10 (max_args_bytes, raw payload)", inp, max_args_bytes=10, content="A  B",
     calls=[C("call_1", "f", {})], errors=[("args_too_large", at(inp, TC_OPEN))])

inp = "".join(tc({"name": n, "arguments": {}}) for n in ("a", "b", "c"))
case(H, "max_calls", "calls past max_calls are refused with too_many_calls",
     "hermes 10 (max_calls)", inp, max_calls=2,
     calls=[C("call_1", "a", {}), C("call_2", "b", {})],
     errors=[("too_many_calls", at(inp, TC_OPEN, 3))])

inp = "x " + tc([{"name": "a"}, {"name": "b"}])
case(H, "max_calls_array", "max_calls applies to the calls of an array payload; the offset is the block's",
     "hermes 10 (max_calls)", inp, max_calls=1, content="x",
     calls=[C("call_1", "a", {})], errors=[("too_many_calls", at(inp, TC_OPEN))])

inp = tc({"name": "f", "arguments": {"a": {"b": {"c": {}}}}}) + tc({"name": "g", "arguments": {}})
case(H, "max_depth", "a payload nested well past max_depth is refused; a shallow one passes",
     "hermes 10 (max_depth)", inp, max_depth=3, calls=[C("call_1", "g", {})],
     errors=[("json_too_deep", 0)])

deep = {}
for _ in range(20):
    deep = {"n": deep}
case(H, "deep_within_default", "20 levels of nesting are within the default max_depth of 64",
     "hermes 10 (max_depth)", tc({"name": "f", "arguments": deep}),
     calls=[C("call_1", "f", deep)])

inp = "Hi.\n" + tc({"name": "get_time", "arguments": {}})
case(H, "max_input_cut_in_block", "the cap cuts a block: it is unterminated, then input_too_large",
     "hermes 10 (max_input_bytes), hermes 9", inp, max_input_bytes=40, content="Hi.",
     errors=[("tool_call_unterminated", at(inp, TC_OPEN)), ("input_too_large", 40)])
assert blen(inp) > 40

blk = tc({"name": "f", "arguments": {}})
kept = blk + " ok"
inp = kept + " and a tail that is never decoded <tool_call>"
case(H, "max_input_after_call", "a call before the cap is kept; bytes past the cap are not decoded",
     "hermes 10 (max_input_bytes)", inp, max_input_bytes=blen(kept), content="ok",
     calls=[C("call_1", "f", {})], errors=[("input_too_large", blen(kept))])

inp = "Exactly forty bytes of text, no more!!!!"
assert blen(inp) == 40
case(H, "max_input_exact", "an input of exactly max_input_bytes is decoded fully, no error",
     "hermes 10 (max_input_bytes)", inp, max_input_bytes=40, content=inp)

# ---- schema (rule 11)
inp = tc({"name": "get_weather", "arguments": {"city": "Paris", "unit": "c", "days": 3}})
case(H, "schema_valid", "arguments that satisfy the schema are accepted", "hermes 11", inp,
     tools=[WEATHER], calls=[C("call_1", "get_weather", {"city": "Paris", "unit": "c", "days": 3})])

inp = tc({"name": "get_weather", "arguments": {"unit": "c"}})
case(H, "schema_required", "a missing required property refuses the call", "hermes 11 (required)",
     inp, tools=[WEATHER], errors=[("args_schema", 0)])

inp = tc({"name": "get_weather"})
case(H, "schema_missing_arguments", "missing arguments are {} and still checked against required",
     "hermes 4, hermes 11 (required)", inp, tools=[WEATHER], errors=[("args_schema", 0)])

inp = tc({"name": "get_weather", "arguments": {"city": 5}})
case(H, "schema_type_string", "a number where a string is declared refuses the call",
     "hermes 11 (type)", inp, tools=[openai_form(WEATHER)], errors=[("args_schema", 0)])

inp = (tc({"name": "set_level", "arguments": {"level": 2.5}})
       + tc({"name": "set_level", "arguments": {"level": 3, "gain": 2}})
       + tc({"name": "set_level", "arguments": {"gain": 2.5}}))
case(H, "schema_integer_vs_number", "2.5 is not an integer; an integer is a number; 2.5 is a number",
     "hermes 11 (type integer, number)", inp, tools=[LEVEL],
     calls=[C("call_1", "set_level", {"level": 3, "gain": 2}), C("call_2", "set_level", {"gain": 2.5})],
     errors=[("args_schema", 0)])

inp = tc({"name": "get_weather", "arguments": {"city": "Paris", "unit": "k"}})
case(H, "schema_enum", "a value outside enum refuses the call", "hermes 11 (enum)", inp,
     tools=[WEATHER], errors=[("args_schema", 0)])

inp = tc({"name": "get_weather", "arguments": {"city": "Paris", "country": "FR"}})
case(H, "schema_additional_properties", "an undeclared property with additionalProperties false refuses",
     "hermes 11 (additionalProperties)", inp, tools=[WEATHER], errors=[("args_schema", 0)])

inp = (tc({"name": "search", "arguments": {"query": "q", "tags": ["a", 1]}})
       + tc({"name": "search", "arguments": {"query": "q", "tags": ["a", "b"]}}))
case(H, "schema_items", "every array element is checked against items", "hermes 11 (items)", inp,
     tools=[SEARCH], calls=[C("call_1", "search", {"query": "q", "tags": ["a", "b"]})],
     errors=[("args_schema", 0)])

inp = (tc({"name": "search", "arguments": {"query": "q", "filter": {"min": "3"}}})
       + tc({"name": "search", "arguments": {"query": "q", "filter": {}}})
       + tc({"name": "search", "arguments": {"query": "q", "filter": {"min": 1, "exact": "true"}}})
       + tc({"name": "search", "arguments": {"query": "q", "filter": {"min": 1, "exact": True}}}))
case(H, "schema_nested", "nested properties, required, integer and boolean are checked recursively",
     "hermes 11 (properties, recursive)", inp, tools=[SEARCH],
     calls=[C("call_1", "search", {"query": "q", "filter": {"min": 1, "exact": True}})],
     errors=[("args_schema", at(inp, TC_OPEN, 1)), ("args_schema", at(inp, TC_OPEN, 2)),
             ("args_schema", at(inp, TC_OPEN, 3))])

inp = (tc({"name": "search", "arguments": {"query": "q", "cursor": None, "nothing": None}})
       + tc({"name": "search", "arguments": {"query": "q", "cursor": 5}})
       + tc({"name": "search", "arguments": {"query": "q", "nothing": 0}})
       + tc({"name": "search", "arguments": {"query": "q", "opts": []}})
       + tc({"name": "search", "arguments": {"query": "q", "ids": {}}})
       + tc({"name": "search", "arguments": {"query": "q", "opts": {"k": 1}, "ids": [1, "a"]}}))
case(H, "schema_types", "type null, a type array with null, object versus array",
     "hermes 11 (type null, object, array, union)", inp, tools=[SEARCH],
     calls=[C("call_1", "search", {"query": "q", "cursor": None, "nothing": None}),
            C("call_2", "search", {"query": "q", "opts": {"k": 1}, "ids": [1, "a"]})],
     errors=[("args_schema", at(inp, TC_OPEN, n)) for n in (2, 3, 4, 5)])

inp = tc({"name": "get_weather", "arguments": {"unit": "f"}})
case(H, "schema_warn", "schema_warn keeps a failing call with warning args_schema",
     "hermes 11 (schema_warn)", inp, tools=[WEATHER], schema_warn=True,
     calls=[C("call_1", "get_weather", {"unit": "f"})], warnings=[("args_schema", 0)])

inp = tc({"name": "ping", "arguments": {"anything": [1, 2]}})
case(H, "schema_none_declared", "a declared tool without parameters accepts any arguments object",
     "hermes 5, hermes 11", inp, tools=[NOSCHEMA], calls=[C("call_1", "ping", {"anything": [1, 2]})])

# ---- check order (rule 7)
inp = tc({"arguments": 5})
case(H, "order_missing_name_first", "missing_name is checked before arguments_not_object",
     "hermes 7 (order)", inp, errors=[("missing_name", 0)])

inp = tc({"name": "nope", "arguments": "bad"})
case(H, "order_unknown_before_arguments", "unknown_tool is checked before arguments_not_object",
     "hermes 7 (order)", inp, tools=[WEATHER], errors=[("unknown_tool", 0)])

inp = tc({"name": "f", "arguments": {"a": {"b": {"c": "long enough"}}}})
case(H, "order_depth_before_size", "json_too_deep is reported rather than args_too_large",
     "hermes 7 (order)", inp, max_depth=2, max_args_bytes=5, errors=[("json_too_deep", 0)])

inp = tc({"name": "get_weather", "arguments": {"other": "xxxxxxxxxxxxxxxx"}})
case(H, "order_size_before_schema", "args_too_large is reported rather than args_schema",
     "hermes 7 (order)", inp, tools=[WEATHER], max_args_bytes=10, errors=[("args_too_large", 0)])

inp = (tc({"name": "get_weather", "arguments": {"city": "A"}})
       + tc({"name": "get_weather", "arguments": {"city": 1}})
       + tc({"name": "get_weather", "arguments": {"city": "C"}}))
case(H, "order_schema_before_too_many", "args_schema is reported before too_many_calls",
     "hermes 7 (order), hermes 10 (max_calls)", inp, tools=[WEATHER], max_calls=1,
     calls=[C("call_1", "get_weather", {"city": "A"})],
     errors=[("args_schema", at(inp, TC_OPEN, 2)), ("too_many_calls", at(inp, TC_OPEN, 3))])

inp = tc({"name": "get_weather", "arguments": "{\"town\": \"Paris\"}"})
case(H, "refused_call_drops_warnings", "a refused call records no arguments_as_string warning",
     "hermes 7", inp, tools=[WEATHER], errors=[("args_schema", 0)])

# ---- think blocks in hermes
blk = tcn(W_PARIS)
inp = "<think>\nNeed the weather.\n</think>\n\n" + blk
case(H, "think_then_call", "the think block is extracted, then the call", "think 2, hermes 1", inp,
     thinking="Need the weather.", calls=[C("call_1", "get_weather", {"city": "Paris"})])

inp = "<think>I could " + tc(W_PARIS) + " but no.</think>I'll wait."
case(H, "tool_call_in_closed_think", "a <tool_call> inside a closed think block is never a call",
     "hermes 1, think 7 (closed block)", inp,
     thinking="I could " + tc(W_PARIS) + " but no.", content="I'll wait.")

blk = tc(W_PARIS)
inp = "<think>Let me call. " + blk
case(H, "implicit_end", "a valid <tool_call> inside an unterminated block ends reasoning and is a call",
     "think 7 (implicit end), hermes 1", inp, thinking="Let me call.",
     calls=[C("call_1", "get_weather", {"city": "Paris"})],
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

inp = "Planning the lookup " + tcn(W_PARIS)
case(H, "implicit_end_forced_open", "forced-open never closed: a valid <tool_call> ends reasoning",
     "think 4, think 7", inp, forced_open=True, thinking="Planning the lookup",
     calls=[C("call_1", "get_weather", {"city": "Paris"})],
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

inp = "I need the weather.\n</think>\n\n" + tcn(W_PARIS)
case(H, "forced_open_closed_then_call", "forced-open closed by </think>, then a call",
     "think 4, hermes 1", inp, forced_open=True, thinking="I need the weather.",
     calls=[C("call_1", "get_weather", {"city": "Paris"})])

case(H, "invalid_tool_call_in_unterminated", "an invalid <tool_call> in an unterminated block stays thinking, no call error",
     "think 7 (invalid block), think 6, hermes 1", "<think>maybe <tool_call>{broken</tool_call> hmm",
     thinking="maybe <tool_call>{broken</tool_call> hmm", errors=[("think_unterminated", 0)])

inp = "<think>x " + tc({"arguments": {}})
case(H, "implicit_end_refused_call", "a payload that parses ends reasoning even when the call is then refused",
     "think 7, hermes 5", inp, thinking="x",
     errors=[("missing_name", at(inp, TC_OPEN))],
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

inp = "<think>a</think> Sure. <think>b " + tc(W_PARIS)
case(H, "implicit_end_after_closed", "implicit end in a later unterminated block; earlier thinking joined",
     "think 2, think 7", inp, thinking="a\nb", content="Sure.",
     calls=[C("call_1", "get_weather", {"city": "Paris"})],
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

inp = "<think>x " + tc('Call: {"name": "f"}')
case(H, "implicit_end_via_retry", "a payload valid only by the first-balanced retry still ends reasoning",
     "think 7, hermes 2", inp, thinking="x", calls=[C("call_1", "f", {})],
     warnings=[("think_implicit_end", at(inp, TC_OPEN))])

inp = ("<think>plan " + TC_OPEN + " a " + TC_OPEN + " b {bad} " + TC_CLOSE + " then " +
       tc({"name": "get_weather", "arguments": {"city": "Paris"}}))
case(H, "implicit_end_shared_bracket",
     "openers before one invalid bracketed payload share its bracket and closing tag: none ends "
     "reasoning; the later valid block does",
     "think 7 (implicit end), hermes 1", inp,
     thinking="plan " + TC_OPEN + " a " + TC_OPEN + " b {bad} " + TC_CLOSE + " then",
     calls=[C("call_1", "get_weather", {"city": "Paris"})],
     warnings=[("think_implicit_end", at(inp, TC_OPEN, 3))])

inp = "<think>hidden</think>\n" + tc({"name": "f", "arguments": "{}"})
case(H, "warning_offset_after_think", "offsets are into the whole input, think block included",
     "offsets, hermes 4", inp, thinking="hidden", calls=[C("call_1", "f", {})],
     warnings=[("arguments_as_string", at(inp, TC_OPEN))])

# ---- bare JSON (rule 12)
payload = js({"name": "get_time", "arguments": {"tz": "UTC"}})
inp = "\n" + payload + "\n"
case(H, "bare_json_on", "bare_json: a whole-text JSON object with a name is one call, content empty",
     "hermes 12 (bare_json)", inp, bare_json=True, calls=[C("call_1", "get_time", {"tz": "UTC"})],
     warnings=[("bare_json", 1)])

case(H, "bare_json_off", "without bare_json, JSON text is content, not a call",
     "hermes 12 (off by default)", inp, content=payload)

inp = "<think>plan</think>\n" + js({"name": "f", "arguments": {}})
case(H, "bare_json_after_think", "bare_json looks at the public text; the offset is the JSON's first byte",
     "hermes 12, hermes 1", inp, bare_json=True, thinking="plan", calls=[C("call_1", "f", {})],
     warnings=[("bare_json", at(inp, "{"))])

case(H, "bare_json_prose", "bare_json: text plus JSON is not one JSON object, stays content",
     "hermes 12", 'Here: {"name": "f"}', bare_json=True, content='Here: {"name": "f"}')

case(H, "bare_json_no_name", "bare_json: a JSON object without a name is content",
     "hermes 12", '{"city": "Paris"}', bare_json=True, content='{"city": "Paris"}')

inp = tc("{broken}") + "\n" + js({"name": "f", "arguments": {}})
case(H, "bare_json_block_present", "bare_json does not apply when a <tool_call> block was found",
     "hermes 12", inp, bare_json=True, content=js({"name": "f", "arguments": {}}),
     errors=[("tool_call_json", 0)])

# ---- content, finish, multibyte
inp = "  \n Intro text \n" + tc({"name": "f", "arguments": {}}) + "\n  "
case(H, "content_trim", "content is trimmed after the blocks are removed", "hermes 8", inp,
     content="Intro text", calls=[C("call_1", "f", {})])

case(H, "plain_text", "text without blocks is content; finish_reason stop", "hermes 13",
     "Just a plain answer.", content="Just a plain answer.")

inp = ("Météo à Zürich 🌦\n" + tc({"arguments": {}}) + "\n"
       + tc({"name": "get_weather", "arguments": {"city": "Zürich"}}))
case(H, "multibyte_offsets", "offsets after multibyte text count bytes",
     "offsets", inp, content="Météo à Zürich 🌦",
     calls=[C("call_1", "get_weather", {"city": "Zürich"})],
     errors=[("missing_name", at(inp, TC_OPEN))])


# ================================================================ fenced

F = "fenced"

inp = "Sure.\n" + fc(W_PARIS) + "\nDone."
case(F, "basic", "a ```tool_call block is one call; the text around it is content",
     "fenced", inp, content="Sure.\n\nDone.", calls=[C("call_1", "get_weather", {"city": "Paris"})])

args = {"code": "```py\nprint(1)\n```"}
inp = fc({"name": "run", "arguments": args})
case(F, "backticks_in_string", "``` inside a JSON string does not close the block",
     "fenced (JSON-aware end)", inp, calls=[C("call_1", "run", args)])

inp = fc({"name": "a", "arguments": {}}) + "\nand\n" + fc({"name": "b", "arguments": {"n": 1}})
case(F, "multiple_blocks", "several fenced blocks are parsed in order", "fenced, hermes 3", inp,
     content="and", calls=[C("call_1", "a", {}), C("call_2", "b", {"n": 1})])

inp = fc([{"name": "a"}, {"name": "b"}])
case(F, "array_payload", "an array payload in a fenced block gives several calls", "fenced, hermes 3",
     inp, calls=[C("call_1", "a", {}), C("call_2", "b", {})])

inp = "Calling " + fc({"name": "f", "arguments": {}}, " ") + " now"
case(F, "inline_block", "the opener may appear mid-line, followed by a space", "fenced", inp,
     content="Calling  now", calls=[C("call_1", "f", {})])

inp = "Wait. " + FENCE_OPEN + "\n" + js({"name": "f", "arguments": {}})
case(F, "unterminated_stop", "finish stop: an unterminated fenced block is refused, markup dropped",
     "fenced, hermes 9 (stop)", inp, content="Wait.",
     errors=[("tool_call_unterminated", at(inp, FENCE_OPEN))])

inp = FENCE_OPEN + "\n" + js({"name": "f", "arguments": {"a": 1}}) + "\n"
case(F, "unterminated_length_complete", "finish length: complete JSON in an unterminated block is accepted",
     "fenced, hermes 9 (length)", inp, finish="length", calls=[C("call_1", "f", {"a": 1})])

inp = FENCE_OPEN + '\n{"name": "f", "argum'
case(F, "unterminated_length_incomplete", "finish length: incomplete JSON is refused; finish_reason length",
     "fenced, hermes 9 (length)", inp, finish="length",
     errors=[("tool_call_unterminated", 0)])

inp = "Ok.\n" + FENCE_OPEN + "\n" + js({"name": "f", "arguments": {}}) + "\n"
case(F, "stop_sequence", "finish stop_sequence: the end of the input closes the block",
     "fenced, hermes 9 (stop_sequence)", inp, finish="stop_sequence", content="Ok.",
     calls=[C("call_1", "f", {})])

inp = "<think>Use the tool.</think>\n" + fc(W_PARIS)
case(F, "think_first", "think blocks are extracted before fenced blocks", "fenced, think 2", inp,
     thinking="Use the tool.", calls=[C("call_1", "get_weather", {"city": "Paris"})])

inp = "<think>maybe " + fc(W_PARIS) + "</think>No call."
case(F, "block_in_closed_think", "a fenced block inside a closed think block is reasoning",
     "fenced, hermes 1", inp, thinking="maybe " + fc(W_PARIS), content="No call.")

inp = fc('{"name": "f", "arguments": {}} extra')
case(F, "literal_fallback_retry", "something after the JSON: literal ``` end, first-balanced retry",
     "fenced (literal fallback), hermes 2", inp, calls=[C("call_1", "f", {})])

inp = "A " + fc("{name: f}") + " B " + fc({"name": "g", "arguments": {}})
case(F, "invalid_json", "an unparsable payload is tool_call_json; markup dropped; other calls kept",
     "fenced, hermes 2, hermes 8", inp, content="A  B", calls=[C("call_1", "g", {})],
     errors=[("tool_call_json", at(inp, FENCE_OPEN))])

inp = "Example:\n```json\n" + js(W_PARIS) + "\n```"
case(F, "json_fence_is_content", "a ```json fence is not a tool-call block", "fenced", inp,
     content=inp)

inp = "```tool_calls\n" + js(W_PARIS) + "\n```"
case(F, "opener_needs_whitespace", "```tool_calls is not an opener (no whitespace after tool_call)",
     "fenced", inp, content=inp)

inp = "Météo 🌦 " + fc({"arguments": {}}) + fc({"name": "f", "arguments": "{\"a\": 1}"})
case(F, "offsets_first_backtick", "per-call offsets are the first backtick of the fence, in bytes",
     "fenced, offsets, hermes 4-5", inp, content="Météo 🌦",
     calls=[C("call_1", "f", {"a": 1})],
     errors=[("missing_name", at(inp, FENCE_OPEN, 1))],
     warnings=[("arguments_as_string", at(inp, FENCE_OPEN, 2))])

inp = fc({"name": "get_stock", "arguments": {}}) + fc({"name": "get_weather", "arguments": {"city": "Oslo"}})
case(F, "unknown_tool", "with tools declared, an undeclared name is refused", "fenced, hermes 5",
     inp, tools=[WEATHER], calls=[C("call_1", "get_weather", {"city": "Oslo"})],
     errors=[("unknown_tool", 0)])

inp = fc({"id": "t1", "name": "a"}) + fc({"id": "t1", "name": "b"})
case(F, "duplicate_id", "duplicate ids in fenced blocks are rewritten", "fenced, hermes 6", inp,
     calls=[C("t1", "a", {}), C("t1__2", "b", {})],
     warnings=[("duplicate_id", at(inp, FENCE_OPEN, 2))])

inp = fc({"name": "a"}) + fc({"name": "b"})
case(F, "max_calls", "max_calls applies to fenced blocks", "fenced, hermes 10", inp, max_calls=1,
     calls=[C("call_1", "a", {})], errors=[("too_many_calls", at(inp, FENCE_OPEN, 2))])


# ---------------------------------------------------------------- checks and output

def sanity(fmt, name, obj):
    where = "%s/%s" % (fmt, name)
    b = obj["input"].encode()
    opts = obj.get("options", {})
    exp = obj["expect"]
    for kind in ("errors", "warnings"):
        lst = exp[kind]
        offs = [e["offset"] for e in lst]
        assert offs == sorted(offs), where + ": %s not in offset order" % kind
        for e in lst:
            c, o = e["code"], e["offset"]
            assert 0 <= o <= len(b), where
            if c == "think_unterminated":
                ok = (o == 0 and opts.get("forced_open")) or b.startswith(b"<think", o)
            elif c == "think_implicit_end":
                ok = b.startswith(TC_OPEN.encode(), o)
            elif c == "input_too_large":
                ok = o == opts.get("max_input_bytes") and e is lst[-1]
            elif c == "bare_json":
                ok = b.startswith(b"{", o)
            elif c in PER_CALL_CODES:
                opener = FENCE_OPEN if fmt == "fenced" else TC_OPEN
                ok = b.startswith(opener.encode(), o)
            else:
                ok = False
            assert ok, where + ": bad %s %s at %d" % (kind, c, o)
    ids = [c["id"] for c in exp["tool_calls"]]
    assert len(ids) == len(set(ids)), where + ": duplicate ids"
    for c in exp["tool_calls"]:
        assert isinstance(c["arguments"], dict), where
    if fmt == "think":
        assert not exp["tool_calls"], where
    for s in (exp["content"], exp["thinking"]):
        assert s == trim(s), where + ": untrimmed expectation"


def render(obj):
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def main():
    return fixture_gen.run(CASES, OUT, ("think", "hermes", "fenced"), sanity, render)


if __name__ == "__main__":
    sys.exit(main())
