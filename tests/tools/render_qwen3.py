#!/usr/bin/env python3
"""Render the Qwen3, Qwen3-Coder and Qwen3.5 chat templates the way Hugging Face
transformers does, and write byte-exact fixtures for toolwire's prompt encoders
(hermes-prompt, qwen3-coder-prompt, qwen3.5-prompt).

Usage:
  render_qwen3.py [--template NAME|PATH] [--out DIR]
                                                  write tests/data/NAME/NN_name.json
                                                  (NAME: qwen3, the default, qwen3-coder
                                                  or qwen3.5)
  render_qwen3.py --render REQUEST.json [--template PATH]
                                                  print the rendering of one neutral
                                                  request (or of a fixture's "request")
  render_qwen3.py --check [--template PATH]       re-render every fixture in --out and
                                                  compare with its "expected"

The template NAME is read from ../shared/templates/NAME.jinja, relative to the
repository root; it is never copied into the project. A fixture whose rendering
raises (raise_exception) holds "error", the template's message, in place of
"expected".

Environment, as in transformers' chat template utils:
  ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                extensions=[jinja2.ext.loopcontrols])
  tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)
      = json.dumps(...)  -> default separators (", ", ": ") when indent is None
  raise_exception(msg) raises TemplateError.
Variables: messages, tools (None when the request has none), add_generation_prompt
(options.add_generation_prompt, default False as in transformers), enable_thinking
(only when options set it).

Neutral request -> template inputs (as an OpenAI-compatible server would):
  tools[]      -> {"type": "function", "function": {"name", "description", "parameters"}}
                  (keys in that order, only those present; OpenAI-form input is unwrapped first)
  user/system  -> {"role", "content"}
  assistant    -> {"role", "content", ["reasoning_content" when "thinking" is a non-empty
                  string], ["tool_calls": [{"id", "type": "function",
                  "function": {"name", "arguments": <object>}}] when non-empty]}
  tool         -> {"role": "tool", "content", "tool_call_id"}  (name, is_error dropped)
"""
import argparse
import json
import os
import sys

try:
    import jinja2
    import jinja2.ext
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment
except ImportError:  # the renderings are checked only where jinja2 is installed
    print("render_qwen3: jinja2 is not installed; skipped", file=sys.stderr)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TEMPLATES = ("qwen3", "qwen3-coder", "qwen3.5")


def template_path(name):
    return os.path.normpath(os.path.join(REPO, "..", "shared", "templates", name + ".jinja"))


# ---------------------------------------------------------------- rendering

def _raise_exception(message):
    raise TemplateError(message)


def _tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers overrides jinja's tojson (which HTML-escapes and sorts keys)
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent,
                      separators=separators, sort_keys=sort_keys)


def compile_template(path):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    return env.from_string(source)


def map_tool(tool):
    if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
        tool = tool["function"]
    fn = {}
    for key in ("name", "description", "parameters"):
        if key in tool:
            fn[key] = tool[key]
    return {"type": "function", "function": fn}


def map_message(msg):
    role = msg["role"]
    content = msg.get("content", "")
    if content is None:
        content = ""
    if role == "assistant":
        out = {"role": "assistant", "content": content}
        thinking = msg.get("thinking")
        if isinstance(thinking, str) and thinking != "":
            out["reasoning_content"] = thinking
        calls = msg.get("tool_calls") or []
        if calls:
            out["tool_calls"] = [
                {"id": c.get("id", ""), "type": "function",
                 "function": {"name": c["name"], "arguments": c.get("arguments", {})}}
                for c in calls
            ]
        return out
    if role == "tool":
        return {"role": "tool", "content": content, "tool_call_id": msg.get("tool_call_id", "")}
    return {"role": role, "content": content}


def render(template, request):
    options = request.get("options") or {}
    kwargs = {
        "messages": [map_message(m) for m in request["messages"]],
        "tools": [map_tool(t) for t in request["tools"]] if request.get("tools") else None,
        "add_generation_prompt": bool(options.get("add_generation_prompt", False)),
    }
    if "enable_thinking" in options:
        kwargs["enable_thinking"] = options["enable_thinking"]
    return template.render(**kwargs)


# ---------------------------------------------------------------- fixtures

class Raw:
    """A number token written into the fixture file exactly as spelled
    ("1E5", "1e400"); the template sees what Python's json reads from it."""

    def __init__(self, text):
        self.text = text


def to_text(obj):
    """json.dumps(obj, ensure_ascii=False, indent=2) with every Raw written verbatim."""
    raws = []

    def sub(x):
        if isinstance(x, Raw):
            raws.append(x.text)
            return "\u0000raw%d\u0000" % (len(raws) - 1)
        if isinstance(x, dict):
            return {k: sub(v) for k, v in x.items()}
        if isinstance(x, list):
            return [sub(v) for v in x]
        return x

    text = json.dumps(sub(obj), ensure_ascii=False, indent=2)
    for i, t in enumerate(raws):
        text = text.replace(json.dumps("\u0000raw%d\u0000" % i), t)
    return text


WEATHER = {
    "name": "get_weather",
    "description": "Weather for a city",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string", "description": "City name"}},
                   "required": ["city"]},
}
TIME = {
    "name": "get_time",
    "description": "Current local time in a timezone",
    "parameters": {"type": "object",
                   "properties": {"tz": {"type": "string"}},
                   "required": ["tz"]},
}
SEARCH = {
    "name": "search_flights",
    "description": "Vuelos entre dos ciudades — précis, 日本語も可 <fast> & \"cheap\"",
    "parameters": {
        "type": "object",
        "properties": {
            "route": {
                "type": "object",
                "description": "Origen → destino",
                "properties": {
                    "from": {"type": "string", "description": "IATA, e.g. \"CDG\""},
                    "to": {"type": "string"},
                },
                "required": ["from", "to"],
            },
            "passengers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "age": {"type": "integer", "minimum": 0, "maximum": 120},
                    },
                },
            },
            "cabin": {"type": "string", "enum": ["economy", "business", "première"]},
            "max_price": {"type": "number", "exclusiveMinimum": 0.5},
            "flexible": {"type": "boolean", "default": False},
        },
        "required": ["route"],
        "additionalProperties": False,
    },
}
CALC = {
    "name": "calc",
    "description": "Evaluate arithmetic; path\\to\\file\tand a tab",
    "parameters": {"type": "object",
                   "properties": {"expr": {"type": "string"}},
                   "required": ["expr"]},
}
NOW = {"name": "now", "description": "Current UTC time", "parameters": {}}
PING = {"name": "ping", "description": "Liveness check", "parameters": {"type": "object", "properties": {}}}

SYS = {"role": "system", "content": "You are a helpful assistant."}


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("no_tools_single_user",
        "No tools, a single user turn, generation prompt on, enable_thinking unset.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}],
         "options": {"add_generation_prompt": True}})

    add("no_tools_system",
        "No tools with a system message: plain ChatML system turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}],
         "options": {"add_generation_prompt": True}})

    add("system_and_tools",
        "System message + one tool: system content then a blank line then the # Tools preamble in one system turn.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER], "tool_choice": "auto",
         "options": {"add_generation_prompt": True}})

    add("tools_no_system",
        "Tools without a system message: the system turn holds only the # Tools preamble. Tool given in OpenAI form.",
        {"messages": [{"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [{"type": "function", "function": TIME}],
         "options": {"add_generation_prompt": True}})

    add("several_tools_nested_unicode",
        "Several tools, nested object/array parameters, enums, numbers, booleans, non-ASCII and HTML-ish characters kept raw by tojson.",
        {"messages": [SYS, {"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, CALC, TIME],
         "options": {"add_generation_prompt": True}})

    add("one_call_one_result",
        "Assistant turn with one tool call (empty content) and its tool result; thinking unset on history.",
        {"messages": [SYS,
                      {"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
                       "content": "18C sunny", "is_error": False}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("call_with_content",
        "Assistant turn with text content before a tool call: a newline separates the content and <tool_call>.",
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "Let me check that for you.",
                       "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18C sunny"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("parallel_calls_grouped_results",
        "Two parallel tool calls in one assistant turn; the two consecutive tool messages are grouped in one user turn.",
        {"messages": [SYS,
                      {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [
                           {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},
                           {"id": "call_b", "name": "get_time", "arguments": {"tz": "Asia/Tokyo"}}]},
                      {"role": "tool", "tool_call_id": "call_a", "name": "get_weather", "content": "18C sunny"},
                      {"role": "tool", "tool_call_id": "call_b", "name": "get_time", "content": "2025-05-01T21:04:00+09:00"}],
         "tools": [WEATHER, TIME],
         "parallel_tool_calls": True,
         "options": {"add_generation_prompt": True}})

    add("multi_turn_loop",
        "Agent loop: call, result, call, result, final answer; then a new user turn. Thinking on the final loop turn only.",
        {"messages": [SYS,
                      {"role": "user", "content": "Is it warmer in Paris or Rome?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "c1", "content": "18C sunny"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "c2", "name": "get_weather", "arguments": {"city": "Rome"}}]},
                      {"role": "tool", "tool_call_id": "c2", "content": "24C clear"},
                      {"role": "assistant", "content": "Rome is warmer (24C vs 18C).",
                       "thinking": "Rome 24 > Paris 18."},
                      {"role": "user", "content": "Thanks!"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("loop_in_progress_after_last_query",
        "Agent loop still in progress after the last user query: assistant turns after it keep their think blocks (non-empty reasoning), the one with no thinking gets none; add_generation_prompt true.",
        {"messages": [{"role": "user", "content": "Is it warmer in Paris or Rome?"},
                      {"role": "assistant", "content": "", "thinking": "\nI need Paris first.\n",
                       "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "c1", "content": "18C sunny"},
                      {"role": "assistant", "content": "Now Rome.",
                       "tool_calls": [{"id": "c2", "name": "get_weather", "arguments": {"city": "Rome"}}]},
                      {"role": "tool", "tool_call_id": "c2", "content": "24C clear"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})

    add("thinking_before_and_after_last_query",
        "Assistant history with thinking before the last user query (dropped) and after it (rendered as <think> block).",
        {"messages": [{"role": "user", "content": "What is 2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple arithmetic."},
                      {"role": "user", "content": "And times 3?"},
                      {"role": "assistant", "content": "",
                       "thinking": "Use the calculator to be sure.",
                       "tool_calls": [{"id": "k1", "name": "calc", "arguments": {"expr": "4*3"}}]},
                      {"role": "tool", "tool_call_id": "k1", "content": "12"},
                      {"role": "assistant", "content": "\n\n12", "thinking": "\n\nThe tool says 12.  \n"}],
         "tools": [CALC],
         "options": {"add_generation_prompt": False}})

    add("no_generation_prompt_final_assistant",
        "add_generation_prompt false ending in an assistant turn with no thinking: as the last message it still gets an empty <think> block.",
        {"messages": [{"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello! How can I help?"}],
         "options": {"add_generation_prompt": False}})

    add("no_generation_prompt_user_last",
        "add_generation_prompt false ending in a user turn: nothing after the last <|im_end|>.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": False, "enable_thinking": False}})

    add("enable_thinking_false",
        "enable_thinking false: the generation prompt is followed by an empty think block.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})

    add("enable_thinking_true",
        "enable_thinking true renders the same as unset: a bare generation prompt.",
        {"messages": [{"role": "user", "content": "Explain recursion briefly."}],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})

    add("inline_think_in_content",
        "Assistant content with an inline <think>…</think> and no thinking field: split out by the template; dropped before the last query, rendered as a think block after it.",
        {"messages": [{"role": "user", "content": "First question"},
                      {"role": "assistant", "content": "<think>\nold reasoning\n</think>\n\nOld answer."},
                      {"role": "user", "content": "Second question"},
                      {"role": "assistant", "content": "<think>\nnew reasoning\n</think>\n\nNew answer."}],
         "options": {"add_generation_prompt": False}})

    add("inline_think_with_thinking_field",
        "Assistant content containing <think> text while the thinking field is also set: content is kept verbatim (no split).",
        {"messages": [{"role": "user", "content": "Tell me about the <think> tag."},
                      {"role": "assistant", "content": "Models write <think>…</think> around reasoning.",
                       "thinking": "Explain the tag."},
                      {"role": "user", "content": "Thanks"}],
         "options": {"add_generation_prompt": True}})

    add("tool_result_newlines_unicode",
        "Tool result content with newlines, unicode, quotes and raw JSON, inserted verbatim (no escaping).",
        {"messages": [{"role": "user", "content": "Résumé du fichier ?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "r1", "name": "read_file",
                                       "arguments": {"path": "/tmp/notes — été.txt"}}]},
                      {"role": "tool", "tool_call_id": "r1", "name": "read_file",
                       "content": "Ligne 1: «Bonjour»\nLigne 2: 日本語テキスト 🚀\n\n{\"ok\": true, \"note\": \"tab\there\"}\n"}],
         "tools": [{"name": "read_file", "description": "Lit un fichier (UTF-8)",
                    "parameters": {"type": "object",
                                   "properties": {"path": {"type": "string"}},
                                   "required": ["path"]}}],
         "options": {"add_generation_prompt": True}})

    add("empty_parameters",
        "A tool with an empty parameters object and one with empty properties; call with empty arguments {}.",
        {"messages": [{"role": "user", "content": "What time is it (UTC)?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "n1", "name": "now", "arguments": {}}]},
                      {"role": "tool", "tool_call_id": "n1", "content": "12:00:00Z"}],
         "tools": [NOW, PING],
         "options": {"add_generation_prompt": True}})

    add("argument_scalars",
        "Arguments with integers, floats (0.5, 1e-7, 1e-05, 0.0001), negatives, booleans, null, nested arrays and string escapes (quote, backslash, tab, newline, U+0001 escaped, U+007F and / raw).",
        {"messages": [{"role": "user", "content": "Run the simulation."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "s1", "name": "simulate", "arguments": {
                           "steps": 100, "rate": 0.5, "epsilon": 1e-7, "offset": -3, "delta": -0.25,
                           "small": 1e-05, "tiny": 0.0001,
                           "verbose": True, "dry_run": False, "seed": None,
                           "weights": [1, -2.5, 0.1, []], "meta": {"label": "a \"quoted\" \\ back\tslash\nnew", "tags": [], "opt": {}},
                           "unicode": "naïve ☃ 𝄞", "ctrl": "\u0001\u007f/"}}]},
                      {"role": "tool", "tool_call_id": "s1", "content": "done"}],
         "tools": [{"name": "simulate", "description": "Run a numeric simulation",
                    "parameters": {"type": "object",
                                   "properties": {"steps": {"type": "integer", "default": 10},
                                                  "rate": {"type": "number", "default": 0.1},
                                                  "epsilon": {"type": "number", "default": 1e-9},
                                                  "seed": {"type": ["integer", "null"], "default": None}}}}],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})

    add("number_forms",
        "Number spellings that depend on the input token (json.dumps keeps Python int vs float): 2.0 stays 2.0, 1e16 prints 1e+16, 1e5 prints 100000.0, -0.0 stays -0.0, ints beyond int64/double stay exact. Needs the lexical int/float distinction, which plain cJSON loses.",
        {"messages": [{"role": "user", "content": "Scale it."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "x1", "name": "scale", "arguments": {
                           "int": 100, "float_int": 2.0, "hundred": 123.0, "e5": 1e5, "e16": 1e16, "e15": 1e15,
                           "e_minus4": 1e-4, "e_minus5": 1e-5, "neg_zero": -0.0, "max": 1.5e300,
                           "third": 1 / 3, "big_int": 12345678901234567890, "neg_big_int": -9223372036854775809}}]},
                      {"role": "tool", "tool_call_id": "x1", "content": "ok"}],
         "tools": [{"name": "scale", "description": "Scale values", "parameters": {"type": "object"}}],
         "options": {"add_generation_prompt": True}})

    add("system_not_first",
        "A system message in the middle of the conversation is rendered as an ordinary system turn; tools present.",
        {"messages": [{"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello!"},
                      {"role": "system", "content": "Answer in French from now on."},
                      {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("user_tool_response_not_query",
        "A user message that starts with <tool_response> and ends with </tool_response> does not count as the last query, so the earlier assistant turn keeps its think block.",
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "",
                       "thinking": "Call the tool.",
                       "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "user", "content": "<tool_response>\n18C sunny\n</tool_response>"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("empty_tools_list",
        "tools: [] renders exactly like no tools.",
        {"messages": [SYS, {"role": "user", "content": "Hello"}],
         "tools": [],
         "options": {"add_generation_prompt": True}})

    big = "1234567890" * 30
    add("number_spellings",
        "Number tokens as a model or client may spell them, in arguments and in a tool's parameters: exponents in both cases and signs (1E5, 1e-5, 1e+5, 1.5e3), trailing zeros (2.50, 100.0), -0 and -0.0, the smallest and largest doubles, integers at and past 2^53 and 2^64, a 300-digit integer. json.loads then json.dumps: integer tokens print as written (-0 as 0), the others as float repr.",
        {"messages": [{"role": "user", "content": "Record it."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "r1", "name": "record", "arguments": {
                           "E5": Raw("1E5"), "e_minus5": Raw("1e-5"), "e_plus5": Raw("1e+5"), "e3": Raw("1.5e3"),
                           "upper_minus": Raw("2.5E-3"), "trailing": Raw("2.50"), "hundred": Raw("100.0"),
                           "one": Raw("1.0"), "neg_int_zero": Raw("-0"), "neg_zero": Raw("-0.0"),
                           "min_double": Raw("5e-324"), "max_double": Raw("1.7976931348623157e308"),
                           "p53": Raw("9007199254740992"), "p53_plus1": Raw("9007199254740993"),
                           "p64_minus1": Raw("18446744073709551615"), "p64": Raw("18446744073709551616"),
                           "neg_p63_minus1": Raw("-9223372036854775809"), "tenth": Raw("0.1"),
                           "digits300": Raw(big), "neg_digits300": Raw("-" + big)}}]},
                      {"role": "tool", "tool_call_id": "r1", "content": "ok"}],
         "tools": [{"name": "record", "description": "Record values",
                    "parameters": {"type": "object",
                                   "properties": {"E5": {"type": "number", "maximum": Raw("1E5"),
                                                         "multipleOf": Raw("0.50")},
                                                  "p53_plus1": {"type": "integer",
                                                                "default": Raw("9007199254740993")}}}}],
         "options": {"add_generation_prompt": True}})

    add("number_beyond_double",
        "Number tokens no double holds: Python's json reads 1e400 as inf and 1e-400 as 0.0, so the template prints Infinity, -Infinity and 0.0 (the prompt is then no longer JSON inside <tool_call>); 0.10000000000000000001 prints as 0.1.",
        {"messages": [{"role": "user", "content": "Record it."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "r1", "name": "record", "arguments": {
                           "huge": Raw("1e400"), "neg_huge": Raw("-1e400"), "tiny": Raw("1e-400"),
                           "long_tenth": Raw("0.10000000000000000001"), "ok": Raw("1.5e3")}}]},
                      {"role": "tool", "tool_call_id": "r1", "content": "ok"}],
         "tools": [{"name": "record", "description": "Record values",
                    "parameters": {"type": "object", "maximum": Raw("1e400")}}],
         "options": {"add_generation_prompt": True}})

    return F


# ------------------------------------------------------- XML tool-call templates

LOOKUP = {
    "name": "lookup",
    "description": "\u3000 Look a record up \u00a0\n",
    "parameters": {
        "type": "object",
        "title": "Lookup arguments",
        "properties": {
            "id": {"type": ["integer", "null"], "description": "  Record id\t", "minimum": 1,
                   "maximum": 1e20, "default": None, "nullable": True},
            "kind": {"type": "string", "enum": ["a", "b's", "c\"d"], "title": "Kind",
                     "deprecated": False, "weight": 0.5, "exclusiveMinimum": 2.0},
            "filter": {"type": {"const": "it's", "n": [1, 2.0, True, None], "s": "x\ty\u00e9\\",
                                "u": "\u00a0\u200b\x7f\x85\u00ad\u3000\ue000\U0001F600\r\x01",
                                "q": "a'b\"c"},
                       "properties": {"field": {"type": "string"}}, "required": ["field"],
                       "additionalProperties": False},
            "when": {"description": 42, "format": "date-time", "examples": ["2025-01-01", 7]},
            "plain": True,
        },
        "required": ["id"],
        "additionalProperties": False,
        "minProperties": 1,
        "x-note": Raw("1E5"),
    },
}


def xml_fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("no_tools_single_user",
        "No tools, a single user turn, generation prompt on, enable_thinking unset.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}],
         "options": {"add_generation_prompt": True}})

    add("no_tools_system",
        "No tools with a system message (surrounding whitespace: Qwen3.5 trims it, Qwen3-Coder keeps it).",
        {"messages": [{"role": "system", "content": "  You are a helpful assistant.\n"},
                      {"role": "user", "content": "Say hi."}],
         "options": {"add_generation_prompt": True}})

    add("system_and_tools",
        "System message and one tool: one system turn holding both, in each template's order.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER], "tool_choice": "auto",
         "options": {"add_generation_prompt": True}})

    add("tools_no_system",
        "Tools without a system message (Qwen3-Coder writes its default system line). Tool given in OpenAI form.",
        {"messages": [{"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [{"type": "function", "function": TIME}],
         "options": {"add_generation_prompt": True}})

    add("nested_schemas_extra_keys",
        "Nested parameter schemas with extra keys (enum, required, minimum, additionalProperties, title, default null, a type list and a type mapping, a non-string description, a schema that is not a mapping), unicode whitespace around descriptions.",
        {"messages": [SYS, {"role": "user", "content": "Cherche un vol Paris \u2192 T\u014dky\u014d et le dossier 7."}],
         "tools": [WEATHER, SEARCH, LOOKUP, NOW, PING],
         "options": {"add_generation_prompt": True}})

    add("one_call_one_result",
        "Assistant turn with one tool call (empty content) and its tool result.",
        {"messages": [SYS,
                      {"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
                       "content": "18C sunny", "is_error": False}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("call_with_content",
        "Assistant content with surrounding whitespace before a tool call; a tool result with surrounding whitespace.",
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "\n Let me check that for you. \n",
                       "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "\n 18C sunny \n"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("parallel_calls_grouped_results",
        "Two parallel tool calls in one assistant turn; the two consecutive tool results are grouped in one user turn.",
        {"messages": [SYS,
                      {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [
                           {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},
                           {"id": "call_b", "name": "get_time", "arguments": {"tz": "Asia/Tokyo"}}]},
                      {"role": "tool", "tool_call_id": "call_a", "name": "get_weather", "content": "18C sunny"},
                      {"role": "tool", "tool_call_id": "call_b", "name": "get_time", "content": "2025-05-01T21:04:00+09:00"}],
         "tools": [WEATHER, TIME],
         "parallel_tool_calls": True,
         "options": {"add_generation_prompt": True}})

    add("multi_turn_loop",
        "Agent loop: call, result, call, result, final answer with reasoning; then a new user turn.",
        {"messages": [SYS,
                      {"role": "user", "content": "Is it warmer in Paris or Rome?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "tool", "tool_call_id": "c1", "content": "18C sunny"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "c2", "name": "get_weather", "arguments": {"city": "Rome"}}]},
                      {"role": "tool", "tool_call_id": "c2", "content": "24C clear"},
                      {"role": "assistant", "content": "Rome is warmer (24C vs 18C).",
                       "thinking": "Rome 24 > Paris 18."},
                      {"role": "user", "content": "Thanks!"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("reasoning_before_and_after_last_query",
        "Reasoning in history before the last user query (dropped) and after it (a <think> block on every assistant turn, empty when none).",
        {"messages": [{"role": "user", "content": "What is 2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple arithmetic."},
                      {"role": "user", "content": "And times 3?"},
                      {"role": "assistant", "content": "",
                       "thinking": "\n Use the calculator to be sure. \n",
                       "tool_calls": [{"id": "k1", "name": "calc", "arguments": {"expr": "4*3"}}]},
                      {"role": "tool", "tool_call_id": "k1", "content": "12"},
                      {"role": "assistant", "content": "Checking again.",
                       "tool_calls": [{"id": "k2", "name": "calc", "arguments": {"expr": "3*4"}}]},
                      {"role": "tool", "tool_call_id": "k2", "content": "12"},
                      {"role": "assistant", "content": "\n\n12", "thinking": "\u00a0The tool says 12.  \n"}],
         "tools": [CALC],
         "options": {"add_generation_prompt": False}})

    add("content_holding_think",
        "Assistant content holding <think>\u2026</think> and no reasoning field (split before the last query and after it), and content holding </think> twice.",
        {"messages": [{"role": "user", "content": "First question"},
                      {"role": "assistant", "content": "<think>\nold reasoning\n</think>\n\nOld answer."},
                      {"role": "user", "content": "Second question"},
                      {"role": "assistant", "content": "pre<think>\n\nnew <think>reasoning\n\n</think>middle</think>\n\nNew answer.",
                       "tool_calls": [{"id": "t1", "name": "calc", "arguments": {"expr": "1"}}]},
                      {"role": "tool", "tool_call_id": "t1", "content": "1"},
                      {"role": "assistant", "content": "</think>"}],
         "tools": [CALC],
         "options": {"add_generation_prompt": False}})

    add("argument_values",
        "Arguments: strings with newlines and <, integers, floats (2.0, 1e20, 1e-05, 0.1, -0.0, 1E5), a big integer, booleans, null, nested objects and arrays (tojson), unicode.",
        {"messages": [{"role": "user", "content": "Run the simulation."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "s1", "name": "simulate", "arguments": {
                           "code": "if a < b:\n    print(\"<tag>\")\n", "steps": 100, "two": 2.0,
                           "big": 1e20, "small": 1e-05, "tenth": 0.1, "neg_zero": -0.0, "e5": Raw("1E5"),
                           "huge_int": Raw("123456789012345678901234567890"),
                           "verbose": True, "dry_run": False, "seed": None,
                           "weights": [1, -2.5, 0.1, [], "x"], "meta": {"label": "a \"q\" \\ b\tc\nd", "tags": [], "n": 1.0},
                           "unicode": "na\u00efve \u2603 \U0001d11e", "empty": ""}}]},
                      {"role": "tool", "tool_call_id": "s1", "content": "done"}],
         "tools": [{"name": "simulate", "description": "Run a numeric simulation",
                    "parameters": {"type": "object",
                                   "properties": {"steps": {"type": "integer", "default": 10},
                                                  "rate": {"type": "number", "default": 0.1}}}}],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})

    add("number_beyond_double",
        "Number tokens no double holds: 1e400 is inf to Python (str() prints inf, tojson Infinity), 1e-400 is 0.0.",
        {"messages": [{"role": "user", "content": "Record it."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [{"id": "r1", "name": "record", "arguments": {
                           "huge": Raw("1e400"), "neg_huge": Raw("-1e400"), "tiny": Raw("1e-400"),
                           "nested": [Raw("1e400")]}}]},
                      {"role": "tool", "tool_call_id": "r1", "content": "ok"}],
         "tools": [{"name": "record", "description": "Record values",
                    "parameters": {"type": "object", "properties": {"huge": {"type": "number", "maximum": Raw("1e400")}}}}],
         "options": {"add_generation_prompt": True}})

    add("enable_thinking_false",
        "enable_thinking false: Qwen3.5's generation prompt holds an empty think block; Qwen3-Coder has no thinking switch.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})

    add("enable_thinking_true",
        "enable_thinking true: Qwen3.5's generation prompt opens a think block.",
        {"messages": [{"role": "user", "content": "Explain recursion briefly."}],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})

    add("no_generation_prompt_final_assistant",
        "add_generation_prompt false, ending in an assistant turn after the last query.",
        {"messages": [{"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello! How can I help?"}],
         "options": {"add_generation_prompt": False}})

    add("user_tool_response_not_query",
        "The last user message wraps a tool response, so it is not the last query (Qwen3.5: the earlier assistant turn keeps its think block).",
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "",
                       "thinking": "Call the tool.",
                       "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
                      {"role": "user", "content": " <tool_response>\n18C sunny\n</tool_response>\n"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("system_not_first",
        "A system message after the first turn: Qwen3-Coder renders it as an ordinary turn, Qwen3.5 raises.",
        {"messages": [{"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello!"},
                      {"role": "system", "content": "Answer in French from now on."},
                      {"role": "user", "content": "Weather in Paris?"}],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})

    add("no_user_query",
        "Only tool-response user turns: Qwen3.5 raises (no user query); Qwen3-Coder renders.",
        {"messages": [{"role": "system", "content": "Relay."},
                      {"role": "user", "content": "<tool_response>\nx\n</tool_response>"}],
         "options": {"add_generation_prompt": True}})

    add("empty_tools_list",
        "tools: [] renders exactly like no tools.",
        {"messages": [SYS, {"role": "user", "content": "Hello"}],
         "tools": [],
         "options": {"add_generation_prompt": True}})

    return F


# ---------------------------------------------------------------- main

def dump_fixture(description, request, expected):
    out = {"description": description, "request": request}
    out.update(expected)
    return to_text(out) + "\n"


def render_or_error(template, request):
    """{"expected": text}, or {"error": message} when the template raises."""
    try:
        return {"expected": render(template, request)}
    except TemplateError as e:
        return {"error": str(e)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--template", default="qwen3",
                    help="qwen3, qwen3-coder, qwen3.5 (read from ../shared/templates) or a path")
    ap.add_argument("--out")
    ap.add_argument("--render", metavar="REQUEST_JSON")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    name = args.template if args.template in TEMPLATES else None
    path = template_path(name) if name else args.template
    out_dir = args.out or os.path.join(REPO, "tests", "data", name or "qwen3")
    if not os.path.exists(path):
        print("template not found: %s (skipping)" % path, file=sys.stderr)
        return 77
    template = compile_template(path)

    if args.render:
        with open(args.render, encoding="utf-8") as f:
            data = json.load(f)
        if "request" in data and "messages" not in data:
            data = data["request"]
        sys.stdout.write(render(template, data))
        return 0

    if args.check:
        bad = 0
        names = sorted(n for n in os.listdir(out_dir) if n.endswith(".json"))
        for n in names:
            with open(os.path.join(out_dir, n), encoding="utf-8") as f:
                fx = json.load(f)
            want = {k: fx[k] for k in ("expected", "error") if k in fx}
            if render_or_error(template, fx["request"]) != want:
                print("MISMATCH %s" % n)
                bad += 1
        print("%d fixtures, %d mismatches" % (len(names), bad))
        return 1 if bad else 0

    os.makedirs(out_dir, exist_ok=True)
    cases = fixtures() if name in (None, "qwen3") else xml_fixtures()
    for i, (fname, description, request) in enumerate(cases, 1):
        # Render from the JSON round trip, i.e. exactly what a reader of the file sees.
        request_from_file = json.loads(to_text(request))
        expected = render_or_error(template, request_from_file)
        fpath = os.path.join(out_dir, "%02d_%s.json" % (i, fname))
        with open(fpath, "w", encoding="utf-8", newline="\n") as f:
            f.write(dump_fixture(description, request, expected))
        print(fpath)
    return 0


if __name__ == "__main__":
    sys.exit(main())
