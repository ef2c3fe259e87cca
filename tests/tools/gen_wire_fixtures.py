#!/usr/bin/env python3
"""Generate the decode fixtures of the JSON wire formats.

Usage:  python3 tests/tools/gen_wire_fixtures.py [--check]

Writes tests/data/decode/{openai-response,openai-stream,anthropic-response,anthropic-stream}/NAME.json,
one scenario per file, following docs/formats/openai.md and docs/formats/anthropic.md.
Bodies are built here from Python values; every offset is a byte offset into the input and is
computed here (never by hand): for streams the byte offset of an SSE event's first field line,
for response bodies the offset of a JSON value found by walking the body text.
With --check nothing is written: the script only verifies the files on disk.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_gen  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "data", "decode"))
FORMATS = ("openai-response", "openai-stream", "anthropic-response", "anthropic-stream")

OPTION_KEYS = ["tools", "max_args_bytes", "max_calls", "max_depth", "max_input_bytes",
               "allow_unknown_tool", "schema_warn"]
PER_CALL = {"tool_call_json", "missing_name", "unknown_tool", "arguments_not_object",
            "args_too_large", "json_too_deep", "args_schema", "too_many_calls",
            "arguments_as_object", "duplicate_id", "legacy_function_call"}


def js(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def blen(s):
    return len(s.encode())


# ---------------------------------------------------------------- SSE bodies

class Stream:
    """An SSE body built event by event; remembers each event's offset."""

    def __init__(self, eol="\n"):
        self.text = ""
        self.eol = eol
        self.offs = []

    def raw(self, s):
        self.text += s
        return self

    def ev(self, data, event=None, space=True):
        """One event; returns its offset (the first field line)."""
        off = blen(self.text)
        self.offs.append(off)
        if event:
            self.text += "event: " + event + self.eol
        self.text += ("data: " if space else "data:") + (data if isinstance(data, str) else js(data))
        self.text += self.eol + self.eol
        return off

    def done(self):
        return self.ev("[DONE]")


def chunk(delta=None, finish=None, index=0, choices=None, **extra):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    if choices is not None:
        c["choices"] = choices
    else:
        c["choices"] = [{"index": index, "delta": delta or {}, "finish_reason": finish}]
    c.update(extra)
    return c


def tcd(index=None, id=None, name=None, args=None, type_=True):
    """One tool_calls delta element."""
    d = {}
    if index is not None:
        d["index"] = index
    if id is not None:
        d["id"] = id
    if type_ and id:
        d["type"] = "function"
    fn = {}
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    if fn:
        d["function"] = fn
    return d


def ant(kind, **kw):
    d = {"type": kind}
    d.update(kw)
    return d


def ant_stream(events, eol="\n"):
    """events: (type, payload-dict or raw str); returns (Stream, offsets)."""
    s = Stream(eol)
    offs = []
    for e in events:
        if isinstance(e, tuple):
            t, data = e
            offs.append(s.ev(data, event=t))
        else:
            offs.append(s.ev(e, event=e.get("type")))
    return s, offs


# ---------------------------------------------------------------- JSON locator

def _ws(b, i):
    while i < len(b) and b[i] in b" \t\r\n\f\v":
        i += 1
    return i


def _skip_str(b, i):
    i += 1
    while i < len(b):
        if b[i] == 0x5C:
            i += 2
            continue
        if b[i] == 0x22:
            return i + 1
        i += 1
    return len(b)


def _skip_val(b, i):
    if b[i] == 0x22:
        return _skip_str(b, i)
    if b[i] in b"{[":
        depth = 0
        while i < len(b):
            c = b[i]
            if c == 0x22:
                i = _skip_str(b, i)
                continue
            if c in b"{[":
                depth += 1
            elif c in b"}]":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return len(b)
    while i < len(b) and b[i] not in b",}] \t\r\n":
        i += 1
    return i


def loc(text, *path):
    """Byte offset of the value at path (keys and indexes) in the JSON text."""
    b = text.encode()
    i = _ws(b, 0)
    for step in path:
        if isinstance(step, str):
            assert b[i] == 0x7B
            i = _ws(b, i + 1)
            while True:
                ke = _skip_str(b, i)
                key = json.loads(b[i:ke].decode())
                i = _ws(b, ke)
                assert b[i] == 0x3A
                i = _ws(b, i + 1)
                if key == step:
                    break
                i = _ws(b, _skip_val(b, i))
                assert b[i] == 0x2C, "path %r not found" % (path,)
                i = _ws(b, i + 1)
        else:
            assert b[i] == 0x5B
            i = _ws(b, i + 1)
            for _ in range(step):
                i = _ws(b, _skip_val(b, i))
                assert b[i] == 0x2C
                i = _ws(b, i + 1)
    return i


# ---------------------------------------------------------------- shared values

WEATHER = {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
                   "required": ["city"], "additionalProperties": False},
}
TIME = {"name": "get_time", "description": "Current time",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}


def C(id_, name, args):
    return {"id": id_, "name": name, "arguments": args}


CASES = []


def case(fmt, name, description, rule, input, *, content="", thinking="", calls=(), errors=(),
         warnings=(), finish_reason="", signature=None, **options):
    for k in options:
        if k not in OPTION_KEYS:
            raise KeyError("%s/%s: unknown option %s" % (fmt, name, k))
    obj = {"description": description, "rule": rule, "format": fmt}
    opts = {k: options[k] for k in OPTION_KEYS if k in options}
    if opts:
        obj["options"] = opts
    obj["input"] = input
    exp = {"content": content, "thinking": thinking}
    if signature is not None:
        exp["thinking_signature"] = signature
    exp.update({
        "tool_calls": list(calls),
        "finish_reason": finish_reason,
        "errors": [{"code": c, "offset": o} for c, o in errors],
        "warnings": [{"code": c, "offset": o} for c, o in warnings],
    })
    obj["expect"] = exp
    CASES.append((fmt, name, obj))


def completion(message, finish="stop", extra_choices=()):
    return js({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
               "choices": list(extra_choices) + [{"index": 0, "message": message, "finish_reason": finish}]})


def msg(content=None, **kw):
    m = {"role": "assistant", "content": content}
    m.update(kw)
    return m


def otc(id_, name, args, **kw):
    d = {"id": id_, "type": "function", "function": {"name": name, "arguments": args}}
    d.update(kw)
    return d


def tc_off(body, i, key=None, choice=0):
    return loc(body, "choices", choice, "message", "tool_calls", key if key is not None else i)


# ================================================================ openai-response

R = "openai-response"

b = completion(msg("Hello there."))
case(R, "content_string", "message.content as a string is the content; finish_reason passed through",
     "openai 1", b, content="Hello there.", finish_reason="stop")

b = completion(msg(None, tool_calls=[otc("call_a", "get_weather", js({"city": "Paris"}))]), "tool_calls")
case(R, "content_null_tool_call", "content null and one call with arguments as a JSON string",
     "openai 1, openai 3", b, calls=[C("call_a", "get_weather", {"city": "Paris"})],
     finish_reason="tool_calls")

b = completion(msg([{"type": "text", "text": "Part one, "}, {"type": "image_url", "image_url": {"url": "x"}},
                    {"type": "text", "text": "part two."}]))
case(R, "content_parts", "content as an array of parts: text parts joined, other parts ignored",
     "openai 1 (parts)", b, content="Part one, part two.", finish_reason="stop")

b = completion(msg("The answer is 4.", reasoning_content="2 + 2 = 4."))
case(R, "reasoning_content", "reasoning_content becomes thinking", "openai 2", b,
     content="The answer is 4.", thinking="2 + 2 = 4.", finish_reason="stop")

b = completion(msg("Done.", reasoning="Think first."))
case(R, "reasoning_field", "the reasoning field becomes thinking", "openai 2", b,
     content="Done.", thinking="Think first.", finish_reason="stop")

b = completion(msg("Ok.", reasoning_content="Same text.", reasoning="Same text."))
case(R, "reasoning_both_same", "reasoning_content and reasoning with the same text give it once",
     "openai 2 (both)", b, content="Ok.", thinking="Same text.", finish_reason="stop")

b = completion(msg("Ok.", reasoning_content="First.", reasoning="Second."))
case(R, "reasoning_both_differ", "a different reasoning next to reasoning_content is dropped with an error",
     "openai 2 (both differ)", b, content="Ok.", thinking="First.", finish_reason="stop",
     errors=[("reasoning_field", loc(b, "choices", 0, "message", "reasoning"))])

tcs = {"0": otc("call_x", "get_time", "{}"), "1": otc("call_y", "get_weather", js({"city": "Oslo"}))}
b = completion(msg(None, tool_calls=tcs), "tool_calls")
case(R, "tool_calls_object", "tool_calls as an object keyed by index: calls in key order (a shim)",
     "openai 3 (object)", b, calls=[C("call_x", "get_time", {}), C("call_y", "get_weather", {"city": "Oslo"})],
     finish_reason="tool_calls")

b = completion(msg(None, tool_calls=[otc("call_o", "get_weather", {"city": "Rome"})]), "tool_calls")
case(R, "arguments_object", "arguments as an object are accepted with a warning",
     "openai 3 (object arguments)", b, calls=[C("call_o", "get_weather", {"city": "Rome"})],
     finish_reason="tool_calls", warnings=[("arguments_as_object", tc_off(b, 0))])

b = completion(msg(None, tool_calls=[otc("call_f", "get_weather", "```json\n{\"city\": \"Lima\"}\n```")]),
               "tool_calls")
case(R, "arguments_fenced", "a fenced JSON argument string is tolerated", "openai 3 (fence)", b,
     calls=[C("call_f", "get_weather", {"city": "Lima"})], finish_reason="tool_calls")

b = completion(msg(None, tool_calls=[otc("call_1", "get_weather", "{\"city\": \"Pa"),
                                     otc("call_2", "get_time", "{}")]), "tool_calls")
case(R, "arguments_invalid_json", "an argument string that does not parse refuses that call only",
     "openai 3 (tool_call_json)", b, calls=[C("call_2", "get_time", {})], finish_reason="tool_calls",
     errors=[("tool_call_json", tc_off(b, 0))])

b = completion(msg(None, tool_calls=[otc("call_1", "get_time", "[1, 2]")]), "tool_calls")
case(R, "arguments_string_array", "an argument string holding an array is refused",
     "openai 3 (arguments_not_object)", b, finish_reason="tool_calls",
     errors=[("arguments_not_object", tc_off(b, 0))])

b = completion(msg(None, tool_calls=[otc("call_1", "get_time", 5)]), "tool_calls")
case(R, "arguments_number", "arguments that are neither a string nor an object are refused",
     "openai 3 (arguments_not_object)", b, finish_reason="tool_calls",
     errors=[("arguments_not_object", tc_off(b, 0))])

b = completion(msg(None, tool_calls=[{"id": "call_m", "type": "function", "function": {"name": "get_time"}}]),
               "tool_calls")
case(R, "arguments_missing", "missing arguments are {}", "openai 3 (missing)", b,
     calls=[C("call_m", "get_time", {})], finish_reason="tool_calls")

b = completion(msg(None, tool_calls=[otc("call_e", "get_time", "")]), "tool_calls")
case(R, "arguments_empty_string", "an empty argument string does not parse: refused",
     "openai 3 (tool_call_json)", b, finish_reason="tool_calls", errors=[("tool_call_json", tc_off(b, 0))])

b = completion(msg(None, function_call={"name": "get_weather", "arguments": js({"city": "Kyiv"})}),
               "function_call")
case(R, "legacy_function_call", "legacy function_call becomes one call with a generated id",
     "openai 3 (legacy)", b, calls=[C("call_1", "get_weather", {"city": "Kyiv"})],
     finish_reason="tool_calls",
     warnings=[("legacy_function_call", loc(b, "choices", 0, "message", "function_call"))])

b = completion(msg(None, tool_calls=[{"type": "function", "function": {"name": "get_time", "arguments": "{}"}},
                                     otc("", "get_weather", js({"city": "Bern"}))]), "tool_calls")
case(R, "missing_ids", "missing and empty ids become call_N", "ids (generated)", b,
     calls=[C("call_1", "get_time", {}), C("call_2", "get_weather", {"city": "Bern"})],
     finish_reason="tool_calls")

b = completion(msg(None, tool_calls=[otc("dup", "get_time", "{}"), otc("dup", "get_time", "{\"tz\":\"UTC\"}")]),
               "tool_calls")
case(R, "duplicate_ids", "a duplicate id is rewritten with __2 (a shim)", "ids (duplicate)", b,
     calls=[C("dup", "get_time", {}), C("dup__2", "get_time", {"tz": "UTC"})], finish_reason="tool_calls",
     warnings=[("duplicate_id", tc_off(b, 1))])

b = completion(msg(None, tool_calls=[otc("call_n", "", "{}")]), "tool_calls")
case(R, "missing_name", "a call without a name is refused", "calls (missing_name)", b,
     finish_reason="tool_calls", errors=[("missing_name", tc_off(b, 0))])

b = completion(msg(None, tool_calls=[otc("c1", "launch", "{}"), otc("c2", "get_weather", js({"city": "Rome"}))]),
               "tool_calls")
case(R, "unknown_tool", "a name not among the declared tools is refused", "calls (unknown_tool)", b,
     calls=[C("c2", "get_weather", {"city": "Rome"})], finish_reason="tool_calls",
     errors=[("unknown_tool", tc_off(b, 0))], tools=[WEATHER, TIME])

b = completion(msg(None, tool_calls=[otc("c1", "get_weather", js({"city": "Rome", "unit": "k"}))]), "tool_calls")
case(R, "args_schema", "arguments failing the tool schema are refused", "calls (args_schema)", b,
     finish_reason="tool_calls", errors=[("args_schema", tc_off(b, 0))], tools=[WEATHER])

case(R, "args_schema_warn", "schema_warn keeps a failing call with a warning", "calls (args_schema, warn)", b,
     calls=[C("c1", "get_weather", {"city": "Rome", "unit": "k"})], finish_reason="tool_calls",
     warnings=[("args_schema", tc_off(b, 0))], tools=[WEATHER], schema_warn=True)

b = completion(msg(None, tool_calls=[otc("a", "get_time", "{}"), otc("b", "get_time", "{}"),
                                     otc("c", "get_time", "{}")]), "tool_calls")
case(R, "max_calls", "calls past max_calls are refused", "limits (max_calls)", b,
     calls=[C("a", "get_time", {}), C("b", "get_time", {})], finish_reason="tool_calls",
     errors=[("too_many_calls", tc_off(b, 2))], max_calls=2)

b = completion(msg(None, tool_calls=[otc("big", "get_time", js({"tz": "x" * 200})), otc("ok", "get_time", "{}")]),
               "tool_calls")
case(R, "max_args_bytes", "arguments larger than max_args_bytes are refused", "limits (max_args_bytes)", b,
     calls=[C("ok", "get_time", {})], finish_reason="tool_calls", errors=[("args_too_large", tc_off(b, 0))],
     max_args_bytes=100)

b = completion(msg(None, tool_calls=[otc("deep", "get_time", js({"a": {"b": {"c": {"d": 1}}}}))]), "tool_calls")
case(R, "max_depth", "argument text nested deeper than max_depth is refused", "limits (max_depth)", b,
     finish_reason="tool_calls", errors=[("json_too_deep", tc_off(b, 0))], max_depth=3)

b = completion(msg(None, refusal="I can't help with that."))
case(R, "refusal", "a refusal becomes the content, with a warning and finish_reason content_filter",
     "openai refusal", b, content="I can't help with that.", finish_reason="content_filter",
     warnings=[("refusal", loc(b, "choices", 0, "message", "refusal"))])

b = js({"error": {"message": "Rate limit reached", "type": "rate_limit_error", "param": None,
                  "code": "rate_limit_exceeded"}})
case(R, "error_envelope", "the OpenAI error envelope: error_response, no message", "openai error", b,
     errors=[("error_response", loc(b, "error"))])

b = '{"choices": [{"index": 0, "message": {"content": "cut'
case(R, "not_json", "a body that is not JSON: response_json where the parser stopped", "openai response_json",
     b, errors=[("response_json", b.encode().find(b'cut'))])

b = js({"id": "x", "object": "chat.completion", "choices": []})
case(R, "no_choices", "no choice with index 0: response_shape", "openai response_shape", b,
     errors=[("response_shape", 0)])

b = completion(msg("It was cut"), "length")
case(R, "finish_length", "finish_reason length is passed through", "openai finish_reason", b,
     content="It was cut", finish_reason="length")

b = completion(msg(None, tool_calls=["not a call", otc("ok", "get_time", "{}")]), "tool_calls")
case(R, "tool_call_not_object", "a tool_calls element that is not an object is refused",
     "openai 3 (element)", b, calls=[C("ok", "get_time", {})], finish_reason="tool_calls",
     errors=[("tool_call_json", tc_off(b, 0))])

b = completion(msg("index zero"), "stop",
               extra_choices=[{"index": 1, "message": msg("index one"), "finish_reason": "stop"}])
case(R, "choice_index_zero", "the choice with index 0 is decoded, wherever it stands", "openai choices", b,
     content="index zero", finish_reason="stop")

b = completion(msg("Loading.", reasoning_content="Load it first.",
                   tool_calls=[otc("call_00_x", "get_time", "{}", index=0),
                               otc("call_01_y", "get_weather", js({"city": "Rome"}), index=1)]), "tool_calls")
case(R, "index_inside_array", "an index inside tool_calls[] elements (DeepSeek) changes nothing",
     "openai 3", b, content="Loading.", thinking="Load it first.",
     calls=[C("call_00_x", "get_time", {}), C("call_01_y", "get_weather", {"city": "Rome"})],
     finish_reason="tool_calls")

# ================================================================ openai-stream

S = "openai-stream"

s = Stream()
s.ev(chunk({"role": "assistant", "content": ""}))
s.ev(chunk({"content": "Hel"}))
s.ev(chunk({"content": "lo!"}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "content_deltas", "content deltas are concatenated; [DONE] ends the stream", "openai 4", s.text,
     content="Hello!", finish_reason="stop")

s = Stream()
s.ev(chunk({"role": "assistant", "reasoning_content": "Think"}))
s.ev(chunk({"reasoning_content": "ing."}))
s.ev(chunk({"content": "Answer."}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "reasoning_content_deltas", "reasoning_content deltas become thinking", "openai 2, openai 4", s.text,
     content="Answer.", thinking="Thinking.", finish_reason="stop")

s = Stream()
s.ev(chunk({"role": "assistant", "content": ""}))
s.ev(chunk({"reasoning": "We", "channel": "analysis"}))
s.ev(chunk({"reasoning": " need", "channel": "analysis"}))
s.ev(chunk({"content": "Ok"}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "reasoning_deltas", "reasoning deltas (Groq) become thinking", "openai 2, openai 4", s.text,
     content="Ok", thinking="We need", finish_reason="stop")

s = Stream()
s.ev(chunk({"role": "assistant", "content": None}))
o = s.ev(chunk({"tool_calls": [tcd(0, "call_w", "get_weather", "")]}))
s.ev(chunk({"tool_calls": [tcd(0, args="{\"ci")]}))
s.ev(chunk({"tool_calls": [tcd(0, args="ty\": \"Paris\"}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "tool_call_fragments", "argument fragments of one index are concatenated", "openai 4 (merge)", s.text,
     calls=[C("call_w", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "call_a", "get_time", "")]}))
s.ev(chunk({"tool_calls": [tcd(0, args="{}")]}))
s.ev(chunk({"tool_calls": [tcd(1, "call_b", "get_weather", "")]}))
s.ev(chunk({"tool_calls": [tcd(1, args=js({"city": "Oslo"}))]}))
s.ev(chunk({}, "tool_calls"))
s.ev(chunk(choices=[], usage={"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}))
s.done()
case(S, "parallel_calls_usage_chunk", "two calls at index 0 and 1, then a usage chunk with choices: []",
     "openai 4 (parallel, usage)", s.text,
     calls=[C("call_a", "get_time", {}), C("call_b", "get_weather", {"city": "Oslo"})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "call_a", "get_weather", "{\"city\""), tcd(1, "call_b", "get_time", "{\"tz\"")]}))
s.ev(chunk({"tool_calls": [tcd(1, args=": \"UTC\"}")]}))
s.ev(chunk({"tool_calls": [tcd(0, args=": \"Rome\"}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "interleaved_indexes", "fragments of two indexes interleaved are merged per index",
     "openai 4 (merge by index)", s.text,
     calls=[C("call_a", "get_weather", {"city": "Rome"}), C("call_b", "get_time", {"tz": "UTC"})],
     finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "call_keep", "get_time", "")]}))
s.ev(chunk({"tool_calls": [tcd(0, id="", args="{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "id_not_overwritten_by_empty", "a later empty id never overwrites the first non-empty one",
     "openai 4 (id)", s.text, calls=[C("call_keep", "get_time", {})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, id="", name="get_time", args="")]}))
s.ev(chunk({"tool_calls": [tcd(0, id="call_late", args="{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "first_nonempty_id_wins", "an empty first id is filled by the first non-empty one",
     "openai 4 (id)", s.text, calls=[C("call_late", "get_time", {})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "call_n", "get_time", "")]}))
s.ev(chunk({"tool_calls": [tcd(0, name="get_weather", args="{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "name_set_once", "the name is set once; a later name is ignored", "openai 4 (name)", s.text,
     calls=[C("call_n", "get_time", {})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "call_1st", "get_time", "{}")]}))
s.ev(chunk({"tool_calls": [tcd(0, "call_2nd", "get_weather", "")]}))
s.ev(chunk({"tool_calls": [tcd(0, args=js({"city": "Nice"}))]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "index_reused_split_by_id", "calls that reuse one index with different ids are split by id",
     "openai 4 (split)", s.text,
     calls=[C("call_1st", "get_time", {}), C("call_2nd", "get_weather", {"city": "Nice"})],
     finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(1, "call_a", "get_weather", "{\"city\":")]}))
o = s.ev(chunk({"tool_calls": [tcd(1.5, args="\"Nice\"}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "index_not_integer", "a delta whose index is not an integer (1.5) is never read as 1: it is matched "
     "as a delta without an index (here the open call) and reported", "openai 4 (index)", s.text,
     calls=[C("call_a", "get_weather", {"city": "Nice"})], finish_reason="tool_calls",
     warnings=[("response_shape", o)])

s = Stream()
s.ev(chunk({"tool_calls": [tcd(1, "call_i1", "get_time", "")]}))
s.ev(chunk({"tool_calls": [tcd(1, args="{}")]}))
s.ev(chunk({"tool_calls": [tcd(2, "call_i2", "get_time", "{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "indexes_start_at_1", "indexes may start at 1", "openai 4 (index)", s.text,
     calls=[C("call_i1", "get_time", {}), C("call_i2", "get_time", {})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"role": "assistant", "tool_calls": [tcd(0, "call_w", "get_weather", js({"city": "Bonn"}))]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "whole_call_one_delta", "a whole call in one delta", "openai 4", s.text,
     calls=[C("call_w", "get_weather", {"city": "Bonn"})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(None, "g1", "get_time", "{}"), tcd(None, "g2", "get_weather", js({"city": "Ulm"}))]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "no_index_whole_calls", "deltas without index are told apart by id", "openai 4 (no index)", s.text,
     calls=[C("g1", "get_time", {}), C("g2", "get_weather", {"city": "Ulm"})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"content": "Partial"}))
s.ev(chunk({"content": " answer"}))
case(S, "no_done", "end of input without [DONE]: stream_truncated, the text is kept", "openai 4 (truncated)",
     s.text, content="Partial answer", errors=[("stream_truncated", blen(s.text))])

s = Stream()
s.ev(chunk({"reasoning": "Plan."}))
o = s.ev({"error": {"message": "Tool call validation failed", "type": "invalid_request_error",
                    "code": "tool_use_failed"}}, event="error")
case(S, "error_event", "an error event mid-stream: stream_error, what came before is kept",
     "openai 4 (stream_error)", s.text, thinking="Plan.",
     errors=[("stream_error", o), ("stream_truncated", blen(s.text))])

s = Stream()
s.ev(chunk({"content": "Before."}))
o = s.ev({"error": {"message": "overloaded", "type": "server_error"}})
s.ev(chunk({"content": " After."}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "error_object", "an error object in a data line: stream_error, later chunks still count",
     "openai 4 (stream_error)", s.text, content="Before. After.", finish_reason="stop",
     errors=[("stream_error", o)])

s = Stream()
s.ev(chunk({"content": "A"}))
o = s.ev('{"choices": [{"delta": {"content": "B"')
s.ev(chunk({"content": "C"}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "chunk_json", "an unparseable data line: chunk_json, the stream goes on", "openai chunk_json", s.text,
     content="AC", finish_reason="stop", errors=[("chunk_json", o)])

s = Stream("\r\n")
s.raw(": keep-alive\r\n\r\n")
s.ev(chunk({"content": "x"}), space=False)
s.raw(": comment\r\n")
s.ev(chunk({"content": "y"}))
s.ev(chunk({}, "stop"), space=False)
s.done()
case(S, "crlf_comments_no_space", "CRLF line ends, comment lines and data: without a space",
     "openai 4 (SSE)", s.text, content="xy", finish_reason="stop")

s = Stream("\r")
s.ev(chunk({"content": "cr"}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "cr_line_ends", "bare CR line ends", "openai 4 (SSE)", s.text, content="cr", finish_reason="stop")

s = Stream()
whole = js(chunk({"content": "multi"}))
cut = whole.index(',"object"') + 1  # after a comma: the joining \n is whitespace
s.text += "data: " + whole[:cut] + "\ndata: " + whole[cut:] + "\n\n"
s.ev(chunk({}, "stop"))
s.done()
case(S, "multiline_data", "a chunk split over two data: lines is joined with \\n and still parses",
     "openai 4 (SSE)", s.text, content="multi", finish_reason="stop")

s = Stream()
o = s.ev(chunk({"function_call": {"name": "get_weather", "arguments": ""}}))
s.ev(chunk({"function_call": {"arguments": "{\"city\": \"Graz\"}"}}))
s.ev(chunk({}, "function_call"))
s.done()
case(S, "legacy_function_call", "legacy function_call deltas become one call with a generated id",
     "openai 3 (legacy)", s.text, calls=[C("call_1", "get_weather", {"city": "Graz"})],
     finish_reason="tool_calls", warnings=[("legacy_function_call", o)])

s = Stream()
o = s.ev(chunk({"tool_calls": [{"index": 0, "id": "call_o", "function": {"name": "get_weather",
                                                                          "arguments": {"city": "Linz"}}}]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "arguments_object", "arguments as an object in a delta: accepted with a warning",
     "openai 3 (object arguments)", s.text, calls=[C("call_o", "get_weather", {"city": "Linz"})],
     finish_reason="tool_calls", warnings=[("arguments_as_object", o)])

s = Stream()
o = s.ev(chunk({"tool_calls": [tcd(0, "call_bad", "get_weather", "{\"city\": ")]}))
s.ev(chunk({"tool_calls": [tcd(0, args="Paris}")]}))
s.ev(chunk({"tool_calls": [tcd(1, "call_ok", "get_time", "{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "arguments_invalid_json", "merged arguments that do not parse refuse the call (offset: its first delta)",
     "openai 3 (tool_call_json)", s.text, calls=[C("call_ok", "get_time", {})], finish_reason="tool_calls",
     errors=[("tool_call_json", o)])

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, None, "get_time", "{}")]}))
s.ev(chunk({"tool_calls": [tcd(1, "", "get_time", "{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "missing_ids", "calls without ids get call_N", "ids (generated)", s.text,
     calls=[C("call_1", "get_time", {}), C("call_2", "get_time", {})], finish_reason="tool_calls")

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "same", "get_time", "{}")]}))
o = s.ev(chunk({"tool_calls": [tcd(1, "same", "get_time", "{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "duplicate_ids", "the same id at two indexes: the second becomes __2", "ids (duplicate)", s.text,
     calls=[C("same", "get_time", {}), C("same__2", "get_time", {})], finish_reason="tool_calls",
     warnings=[("duplicate_id", o)])

s = Stream()
o = s.ev(chunk({"tool_calls": [tcd(0, "c1", "launch", "{}")]}))
s.ev(chunk({"tool_calls": [tcd(1, "c2", "get_weather", js({"city": "Rome"}))]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "unknown_tool", "an undeclared tool is refused", "calls (unknown_tool)", s.text,
     calls=[C("c2", "get_weather", {"city": "Rome"})], finish_reason="tool_calls",
     errors=[("unknown_tool", o)], tools=[WEATHER, TIME])

s = Stream()
s.ev(chunk({"tool_calls": [tcd(0, "a", "get_time", "{}")]}))
s.ev(chunk({"tool_calls": [tcd(1, "b", "get_time", "{}")]}))
o = s.ev(chunk({"tool_calls": [tcd(2, "c", "get_time", "{}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "max_calls", "calls past max_calls are refused", "limits (max_calls)", s.text,
     calls=[C("a", "get_time", {}), C("b", "get_time", {})], finish_reason="tool_calls",
     errors=[("too_many_calls", o)], max_calls=2)

s = Stream()
o = s.ev(chunk({"tool_calls": [tcd(0, "big", "get_time", "{\"tz\": \"" + "x" * 150)]}))
s.ev(chunk({"tool_calls": [tcd(0, args="x" * 150 + "\"}")]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "max_args_bytes", "merged arguments larger than max_args_bytes are refused", "limits (max_args_bytes)",
     s.text, finish_reason="tool_calls", errors=[("args_too_large", o)], max_args_bytes=100)

s = Stream()
o = s.ev(chunk({"refusal": "I can't "}))
s.ev(chunk({"refusal": "do that."}))
s.ev(chunk({}, "stop"))
s.done()
case(S, "refusal", "refusal deltas become the content, warning refusal, finish_reason content_filter",
     "openai refusal", s.text, content="I can't do that.", finish_reason="content_filter",
     warnings=[("refusal", o)])

s = Stream()
s.ev(chunk({"content": "Calling."}))
o = s.ev(chunk({"tool_calls": [tcd(0, "call_t", "get_weather", "{\"city\": \"Ro")]}))
case(S, "truncated_mid_call", "a stream cut inside a call's arguments: the call is refused, truncation recorded",
     "openai 4 (truncated)", s.text, content="Calling.",
     errors=[("tool_call_json", o), ("stream_truncated", blen(s.text))])

s = Stream()
s.ev(chunk({"content": "Final."}))
s.ev(chunk({}, "stop"))
s.done()
s.ev(chunk({"content": " Ignored."}))
case(S, "after_done_ignored", "events after [DONE] are not part of the completion", "openai 4 ([DONE])",
     s.text, content="Final.", finish_reason="stop")

s = Stream()
s.ev(chunk({"content": "Hello"}))
o = s.ev(chunk({"content": " world"}))
cut = blen(s.text) - 10
case(S, "max_input_bytes", "input past max_input_bytes is not decoded; the cut event does not parse",
     "limits (max_input_bytes)", s.text, content="Hello",
     errors=[("chunk_json", o), ("stream_truncated", cut), ("input_too_large", cut)], max_input_bytes=cut)

b = js({"error": {"message": "stream not allowed", "type": "invalid_request_error", "param": "stream",
                  "code": None}}) + "\n"
case(S, "error_envelope_body", "a stream request answered with a JSON error envelope: error_response, no truncation",
     "openai error", b, errors=[("error_response", loc(b, "error"))])

# the stream twins of response cases: the same completion gives the same result
s = Stream()
s.ev(chunk({"role": "assistant", "content": "Loading.", "reasoning_content": "Load it first."}))
s.ev(chunk({"tool_calls": [tcd(0, "call_00_x", "get_time", "{}")]}))
s.ev(chunk({"tool_calls": [tcd(1, "call_01_y", "get_weather", ""), ]}))
s.ev(chunk({"tool_calls": [tcd(1, args=js({"city": "Rome"}))]}))
s.ev(chunk({}, "tool_calls"))
s.done()
case(S, "twin_index_inside_array", "the stream of openai-response/index_inside_array gives its result",
     "openai 4 (stream equals response)", s.text, content="Loading.", thinking="Load it first.",
     calls=[C("call_00_x", "get_time", {}), C("call_01_y", "get_weather", {"city": "Rome"})],
     finish_reason="tool_calls")

# ================================================================ anthropic-response

AR = "anthropic-response"


def amsg(content, stop="end_turn"):
    return js({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
               "content": content, "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 1, "output_tokens": 1}})


def blk(body, i):
    return loc(body, "content", i)


b = amsg([ant("text", text="Hello from Claude.")])
case(AR, "text", "a text block is the content; end_turn is stop", "anthropic 1, 2", b,
     content="Hello from Claude.", finish_reason="stop")

b = amsg([ant("thinking", thinking="Let me think.", signature="sig-abc"), ant("text", text="Answer.")])
case(AR, "thinking_signature", "a thinking block is thinking; its signature is kept", "anthropic 1", b,
     content="Answer.", thinking="Let me think.", signature="sig-abc", finish_reason="stop")

b = amsg([ant("text", text="Checking."), ant("tool_use", id="toolu_1", name="get_weather", input={"city": "Paris"})],
         "tool_use")
case(AR, "tool_use", "a tool_use block is a call with its own id; tool_use is tool_calls", "anthropic 1, 2", b,
     content="Checking.", calls=[C("toolu_1", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

b = amsg([ant("tool_use", id="toolu_a", name="get_time", input={}),
          ant("tool_use", id="toolu_b", name="get_weather", input={"city": "Oslo"})], "tool_use")
case(AR, "parallel_tool_use", "two tool_use blocks are two calls in order", "anthropic 1", b,
     calls=[C("toolu_a", "get_time", {}), C("toolu_b", "get_weather", {"city": "Oslo"})], finish_reason="tool_calls")

b = amsg([ant("text", text="Before "), ant("tool_use", id="t1", name="get_time", input={}),
          ant("text", text="after.")], "tool_use")
case(AR, "text_around_tool_use", "text blocks are joined as they stand", "anthropic 1", b,
     content="Before after.", calls=[C("t1", "get_time", {})], finish_reason="tool_calls")

b = amsg([ant("thinking", thinking="One.", signature="s1"), ant("text", text="x"),
          ant("thinking", thinking="Two.", signature="s2")])
case(AR, "two_thinking_blocks", "thinking blocks are joined with \\n; the first signature is kept",
     "anthropic 1", b, content="x", thinking="One.\nTwo.", signature="s1", finish_reason="stop")

b = amsg([ant("redacted_thinking", data="EmwKAhgBEgy"), ant("text", text="Visible.")])
case(AR, "redacted_thinking", "redacted_thinking is kept aside, never in thinking or content", "anthropic 1",
     b, content="Visible.", finish_reason="stop")

b = amsg([ant("text", text="Cut")], "max_tokens")
case(AR, "max_tokens", "max_tokens is length", "anthropic 2", b, content="Cut", finish_reason="length")

b = amsg([ant("text", text="Stopped")], "stop_sequence")
case(AR, "stop_sequence", "stop_sequence is stop", "anthropic 2", b, content="Stopped", finish_reason="stop")

b = amsg([ant("text", text="No.")], "refusal")
case(AR, "refusal", "refusal is content_filter", "anthropic 2", b, content="No.", finish_reason="content_filter")

b = amsg([ant("text", text="Paused")], "pause_turn")
case(AR, "stop_reason_passthrough", "other stop reasons pass through", "anthropic 2", b, content="Paused",
     finish_reason="pause_turn")

b = amsg([ant("tool_use", id="t1", name="get_time", input=[1])], "tool_use")
case(AR, "input_not_object", "an input that is not an object is refused", "calls (arguments_not_object)", b,
     finish_reason="tool_calls", errors=[("arguments_not_object", blk(b, 0))])

b = amsg([ant("tool_use", id="t1", name="get_time", input="{\"tz\": \"UTC\"}")], "tool_use")
case(AR, "input_as_string", "an input given as a JSON string is parsed, with a warning", "calls (arguments_as_string)", b,
     calls=[C("t1", "get_time", {"tz": "UTC"})], finish_reason="tool_calls",
     warnings=[("arguments_as_string", blk(b, 0))])

b = amsg([ant("tool_use", id="t1", name="get_time", input="not json")], "tool_use")
case(AR, "input_string_not_json", "an input string that is not a JSON object is refused", "calls (arguments_not_object)", b,
     finish_reason="tool_calls", errors=[("arguments_not_object", blk(b, 0))])

b = amsg([ant("tool_use", name="get_time", input={}), ant("tool_use", id="", name="get_time", input={})], "tool_use")
case(AR, "missing_ids", "a tool_use without id gets call_N", "ids (generated)", b,
     calls=[C("call_1", "get_time", {}), C("call_2", "get_time", {})], finish_reason="tool_calls")

b = amsg([ant("tool_use", id="t", name="get_time", input={}), ant("tool_use", id="t", name="get_time", input={})],
         "tool_use")
case(AR, "duplicate_ids", "a duplicate id is rewritten with __2", "ids (duplicate)", b,
     calls=[C("t", "get_time", {}), C("t__2", "get_time", {})], finish_reason="tool_calls",
     warnings=[("duplicate_id", blk(b, 1))])

b = amsg([ant("tool_use", id="t1", name="launch", input={}),
          ant("tool_use", id="t2", name="get_weather", input={"unit": "c"})], "tool_use")
case(AR, "unknown_tool_and_schema", "undeclared tools and schema failures are refused",
     "calls (unknown_tool, args_schema)", b, finish_reason="tool_calls",
     errors=[("unknown_tool", blk(b, 0)), ("args_schema", blk(b, 1))], tools=[WEATHER])

b = amsg([ant("tool_use", id="a", name="get_time", input={}), ant("tool_use", id="b", name="get_time", input={})],
         "tool_use")
case(AR, "max_calls", "calls past max_calls are refused", "limits (max_calls)", b,
     calls=[C("a", "get_time", {})], finish_reason="tool_calls", errors=[("too_many_calls", blk(b, 1))],
     max_calls=1)

b = js({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
case(AR, "error_envelope", "the Anthropic error envelope: error_response", "anthropic error", b,
     errors=[("error_response", loc(b, "error"))])

b = '{"type": "message", "content": [{"type": "text", "text": "cut'
case(AR, "not_json", "a body that is not JSON: response_json where the parser stopped",
     "anthropic response_json", b, errors=[("response_json", b.encode().find(b'cut'))])

b = js({"type": "message", "content": "plain"})
case(AR, "content_not_array", "content that is not an array: response_shape", "anthropic response_shape", b,
     errors=[("response_shape", 0)])

b = amsg([ant("server_tool_use", id="srv_1", name="web_search", input={"query": "x"}), ant("text", text="Found.")])
case(AR, "unknown_block_ignored", "block types other than text, thinking, redacted_thinking and tool_use are ignored",
     "anthropic 1", b, content="Found.", finish_reason="stop")

# ================================================================ anthropic-stream

AS = "anthropic-stream"


def mstart():
    return ant("message_start", message={"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                                         "model": "claude", "stop_reason": None, "stop_sequence": None})


def mdelta(stop):
    return ant("message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage={"output_tokens": 5})


def cbs(i, block):
    return ant("content_block_start", index=i, content_block=block)


def cbd(i, delta):
    return ant("content_block_delta", index=i, delta=delta)


def cbe(i):
    return ant("content_block_stop", index=i)


STOP = ant("message_stop")
PING = ant("ping")

s, o = ant_stream([mstart(), cbs(0, ant("text", text="")), PING, cbd(0, ant("text_delta", text="Hello")),
                   cbd(0, ant("text_delta", text=", world.")), cbe(0), mdelta("end_turn"), STOP])
case(AS, "text_deltas", "text deltas are concatenated; ping is ignored", "anthropic 3", s.text,
     content="Hello, world.", finish_reason="stop")

s, o = ant_stream([mstart(), cbs(0, ant("thinking", thinking="", signature="")),
                   cbd(0, ant("thinking_delta", thinking="Use the ")),
                   cbd(0, ant("thinking_delta", thinking="tool.")), cbd(0, ant("thinking_delta", thinking="")),
                   cbd(0, ant("signature_delta", signature="EoQDsig")), cbe(0),
                   cbs(1, ant("tool_use", id="toolu_01", name="fixed_version", input={})),
                   cbd(1, ant("input_json_delta", partial_json="")), cbe(1), mdelta("tool_use"), STOP])
case(AS, "thinking_signature_tool_use", "thinking with signature, then a tool_use with empty partial_json (its start input)",
     "anthropic 3", s.text, thinking="Use the tool.", signature="EoQDsig",
     calls=[C("toolu_01", "fixed_version", {})], finish_reason="tool_calls")

s, o = ant_stream([mstart(), cbs(0, ant("tool_use", id="toolu_w", name="get_weather", input={})),
                   cbd(0, ant("input_json_delta", partial_json="{\"ci")),
                   cbd(0, ant("input_json_delta", partial_json="ty\": \"Par")),
                   cbd(0, ant("input_json_delta", partial_json="is\"}")), cbe(0), mdelta("tool_use"), STOP])
case(AS, "input_json_fragments", "partial_json fragments are concatenated per block", "anthropic 3", s.text,
     calls=[C("toolu_w", "get_weather", {"city": "Paris"})], finish_reason="tool_calls")

s, o = ant_stream([mstart(), cbs(0, ant("tool_use", id="toolu_w", name="get_weather", input={})),
                   cbd(0, ant("input_json_delta", partial_json="{\"city\": ")),
                   cbd(0.5, ant("input_json_delta", partial_json="\"Nice\"}")), cbe(0), mdelta("tool_use"), STOP])
case(AS, "delta_index_not_integer", "a delta whose index is 0.5 names no started block (never block 0): its "
     "partial JSON is dropped and reported, and the call it was meant for is refused as incomplete",
     "anthropic 3 (index)", s.text, errors=[("tool_call_json", o[1])], warnings=[("response_shape", o[3])],
     finish_reason="tool_calls")

s, o = ant_stream([PING, mstart(), PING, cbs(0, ant("text", text="")), PING, cbd(0, ant("text_delta", text="a")),
                   PING, cbe(0), PING, mdelta("end_turn"), PING, STOP])
case(AS, "ping_anywhere", "ping may appear anywhere", "anthropic 3 (ping)", s.text, content="a",
     finish_reason="stop")

s, o = ant_stream([mstart(), ant("future_event", x=1), cbs(0, ant("text", text="")),
                   cbd(0, ant("citations_delta", citation={})), cbd(0, ant("text_delta", text="ok")), cbe(0),
                   mdelta("end_turn"), STOP])
case(AS, "unknown_events_ignored", "unknown event and delta types are ignored", "anthropic 3 (unknown)", s.text,
     content="ok", finish_reason="stop")

s, o = ant_stream([mstart(), cbs(0, ant("text", text="")), cbd(0, ant("text_delta", text="Partial")),
                   ("error", ant("error", error={"type": "overloaded_error", "message": "Overloaded"}))])
case(AS, "error_event", "an error event: stream_error, the text so far is kept", "anthropic 3 (error)", s.text,
     content="Partial", errors=[("stream_error", o[3]), ("stream_truncated", blen(s.text))])

s, o = ant_stream([mstart(), cbs(0, ant("text", text="")), cbd(0, ant("text_delta", text="No stop"))])
case(AS, "no_message_stop", "end of input without message_stop: stream_truncated", "anthropic 3 (truncated)",
     s.text, content="No stop", errors=[("stream_truncated", blen(s.text))])

s, o = ant_stream([mstart(), cbs(0, ant("tool_use", id="t_bad", name="get_time", input={})),
                   cbd(0, ant("input_json_delta", partial_json="{\"tz\": ")), cbe(0),
                   cbs(1, ant("tool_use", id="t_ok", name="get_time", input={})),
                   cbd(1, ant("input_json_delta", partial_json="{}")), cbe(1), mdelta("tool_use"), STOP])
case(AS, "invalid_partial_json", "partial_json that does not parse refuses the call (offset: its block start)",
     "anthropic 3 (tool_call_json)", s.text, calls=[C("t_ok", "get_time", {})], finish_reason="tool_calls",
     errors=[("tool_call_json", o[1])])

s, o = ant_stream([mstart(), cbs(0, ant("tool_use", id="ta", name="get_time", input={})),
                   cbs(1, ant("tool_use", id="tb", name="get_weather", input={})),
                   cbd(1, ant("input_json_delta", partial_json=js({"city": "Oslo"}))),
                   cbd(0, ant("input_json_delta", partial_json="{}")), cbe(0), cbe(1), mdelta("tool_use"), STOP])
case(AS, "parallel_tool_use", "two tool_use blocks with their own fragments", "anthropic 3", s.text,
     calls=[C("ta", "get_time", {}), C("tb", "get_weather", {"city": "Oslo"})], finish_reason="tool_calls")

s, o = ant_stream([mstart(), cbs(0, ant("tool_use", id="t_cut", name="get_weather", input={})),
                   cbd(0, ant("input_json_delta", partial_json="{\"city\": \"Ro")), mdelta("max_tokens"), STOP])
case(AS, "max_tokens_cut_tool_use", "max_tokens inside a tool_use: the incomplete call is refused, finish length",
     "anthropic 2, 3", s.text, finish_reason="length", errors=[("tool_call_json", o[1])])

s, o = ant_stream([mstart(), cbs(0, ant("text", text="")), cbd(0, ant("text_delta", text="A")),
                   ("content_block_delta", '{"type": "content_block_delta", "index": 0, "delta": {"type": "te'),
                   cbd(0, ant("text_delta", text="B")), cbe(0), mdelta("end_turn"), STOP])
case(AS, "chunk_json", "an event whose data does not parse: chunk_json, the stream goes on", "anthropic chunk_json",
     s.text, content="AB", finish_reason="stop", errors=[("chunk_json", o[3])])

s, o = ant_stream([mstart(), cbs(0, ant("thinking", thinking="", signature="")),
                   cbd(0, ant("thinking_delta", thinking="One.")), cbd(0, ant("signature_delta", signature="s1")),
                   cbe(0), cbs(1, ant("thinking", thinking="", signature="")),
                   cbd(1, ant("thinking_delta", thinking="Two.")), cbd(1, ant("signature_delta", signature="s2")),
                   cbe(1), cbs(2, ant("text", text="x")), cbe(2), mdelta("end_turn"), STOP])
case(AS, "two_thinking_blocks", "thinking blocks joined with \\n; the first signature is kept", "anthropic 1, 3",
     s.text, content="x", thinking="One.\nTwo.", signature="s1", finish_reason="stop")

s, o = ant_stream([("message_start", {"message": {"id": "m"}}), ("content_block_start",
                   {"index": 0, "content_block": {"type": "text", "text": "typed by "}}),
                   ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "event name"}}),
                   ("content_block_stop", {"index": 0}),
                   ("message_delta", {"delta": {"stop_reason": "end_turn"}}), ("message_stop", {})])
case(AS, "type_from_event_name", "data without a type field is typed by the SSE event name", "anthropic 3",
     s.text, content="typed by event name", finish_reason="stop")

s, o = ant_stream([mstart(), cbs(0, ant("redacted_thinking", data="EmwKAhgB")), cbe(0),
                   cbs(1, ant("text", text="")), cbd(1, ant("text_delta", text="Visible.")), cbe(1),
                   mdelta("end_turn"), STOP])
case(AS, "redacted_thinking", "a redacted_thinking block is kept aside", "anthropic 1, 3", s.text,
     content="Visible.", finish_reason="stop")

s, o = ant_stream([mstart(), cbs(0, ant("text", text="")), cbd(0, ant("text_delta", text="No.")), cbe(0),
                   mdelta("refusal"), STOP], eol="\r\n")
case(AS, "refusal_crlf", "refusal is content_filter; CRLF line ends", "anthropic 2, SSE", s.text,
     content="No.", finish_reason="content_filter")

s, o = ant_stream([mstart(), cbs(0, ant("tool_use", id="t1", name="launch", input={})),
                   cbd(0, ant("input_json_delta", partial_json="{}")), cbe(0),
                   cbs(1, ant("tool_use", id="t2", name="get_weather", input={})),
                   cbd(1, ant("input_json_delta", partial_json=js({"city": "Rome"}))), cbe(1),
                   mdelta("tool_use"), STOP])
case(AS, "unknown_tool", "an undeclared tool is refused", "calls (unknown_tool)", s.text,
     calls=[C("t2", "get_weather", {"city": "Rome"})], finish_reason="tool_calls",
     errors=[("unknown_tool", o[1])], tools=[WEATHER])

s, o = ant_stream([mstart(), cbs(0, ant("text", text="")), cbd(0, ant("text_delta", text="Done.")), cbe(0),
                   mdelta("end_turn"), STOP, cbs(1, ant("text", text="")),
                   cbd(1, ant("text_delta", text=" Ignored."))])
case(AS, "after_message_stop_ignored", "events after message_stop are not part of the message",
     "anthropic 3", s.text, content="Done.", finish_reason="stop")

b = js({"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}})
case(AS, "error_envelope_body", "a stream request answered with a JSON error envelope: error_response",
     "anthropic error", b, errors=[("error_response", loc(b, "error"))])

s, o = ant_stream([mstart(), cbs(0, ant("thinking", thinking="", signature="")),
                   cbd(0, ant("thinking_delta", thinking="Let me think.")),
                   cbd(0, ant("signature_delta", signature="sig-abc")), cbe(0),
                   cbs(1, ant("text", text="")), cbd(1, ant("text_delta", text="Answer.")), cbe(1),
                   mdelta("end_turn"), STOP])
case(AS, "twin_thinking_signature", "the stream of anthropic-response/thinking_signature gives its result",
     "anthropic 3 (stream equals response)", s.text, content="Answer.", thinking="Let me think.",
     signature="sig-abc", finish_reason="stop")


# ---------------------------------------------------------------- checks and output

def sanity(fmt, name, obj):
    where = "%s/%s" % (fmt, name)
    b = obj["input"].encode()
    exp = obj["expect"]
    for kind in ("errors", "warnings"):
        for e in exp[kind]:
            c, o = e["code"], e["offset"]
            assert 0 <= o <= len(b), where + ": offset out of range"
            if fmt.endswith("-stream"):
                if c == "error_response":
                    ok = b[o:o + 1] == b"{"
                elif c == "stream_truncated":
                    ok = o == min(len(b), obj.get("options", {}).get("max_input_bytes", len(b)))
                elif c == "input_too_large":
                    ok = o == obj["options"]["max_input_bytes"]
                else:  # every other code points at an event's first field line
                    ok = o == 0 or b[o - 1:o] in (b"\n", b"\r")
                    ok = ok and (b.startswith(b"data", o) or b.startswith(b"event", o))
            elif c in PER_CALL:
                ok = b[o:o + 1] == b"{" or (c == "tool_call_json" and b[o:o + 1] == b'"')
            elif c in ("error_response",):
                ok = b[o:o + 1] == b"{"
            elif c == "refusal" or c == "reasoning_field":
                ok = b[o:o + 1] == b'"'
            else:
                ok = True
            assert ok, where + ": bad %s %s at %d" % (kind, c, o)
    ids = [c["id"] for c in exp["tool_calls"]]
    assert len(ids) == len(set(ids)), where + ": duplicate ids"


def render(obj):
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def main():
    return fixture_gen.run(CASES, OUT, FORMATS, sanity, render)


if __name__ == "__main__":
    sys.exit(main())
