"""Gemma 4: the prompt encoder and reader gemma-4-prompt against the model's
chat template (tests/tools/render_dialect.py renders these into
tests/data/prompts/gemma-4/). The template writes tool declarations, calls and
results in Gemma's brace syntax (<|"|> string quotes, keys sorted); bos_token
is the tokenizer's <bos>."""
import render_qwen3 as rq
from render_qwen3 import Raw, WEATHER, TIME, SEARCH, CALC, NOW, PING, SYS

DIALECT = "gemma-4"
TEMPLATE = "gemma-4"

USER_W = {"role": "user", "content": "Weather in Paris?"}
GEN = {"add_generation_prompt": True}

# Enums, arrays of arrays, nullable, an array of objects with required
# properties, a type list, a property without a schema type, an object
# property without properties.
PLAN = {
    "name": "plan_trip",
    "description": "Plan a trip with \"legs\" — Zürich → 東京",
    "parameters": {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["train", "plane", "boat"],
                     "description": "How to travel"},
            "legs": {"type": "array", "description": "The legs, in order",
                     "items": {"type": "object",
                               "properties": {"from": {"type": "string"},
                                              "to": {"type": "string"},
                                              "days": {"type": "integer"}},
                               "required": ["from", "to"]}},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["cheap", "fast"]}},
            "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            "note": {"type": "string", "nullable": True},
            "alt": {"type": ["string", "null"], "description": "Alternative"},
            "budget": {"type": "number", "description": "In EUR"},
            "prefs": {"type": "object",
                      "properties": {"seat": {"type": "string", "enum": ["aisle", "window"]},
                                     "meal": {"type": "boolean"}},
                      "required": ["seat"]},
            "extra": {"type": "object"},
            "Zone": {"type": "integer"},
        },
        "required": ["mode", "legs"],
    },
}
# No parameters type: the template leaves its parameters unclosed.
LOOSE = {"name": "lookup", "description": "Look up a word",
         "parameters": {"properties": {"word": {"type": "string"}}, "required": ["word"]}}


def call(cid, name, args):
    return {"id": cid, "name": name, "arguments": args}


def template_vars(request):
    options = dict(request.get("options") or {})
    kw = {
        "messages": [rq.map_message(m) for m in request["messages"]],
        "tools": [rq.map_tool(t) for t in request["tools"]] if request.get("tools") else None,
        "add_generation_prompt": bool(options.pop("add_generation_prompt", False)),
        "bos_token": "<bos>",
    }
    kw.update(options)
    return kw


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("single_user", "One user turn; the generation prompt closes an empty thought channel.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}], "options": GEN})
    add("system_user", "A system message: the system turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}], "options": GEN})
    add("no_generation_prompt", "add_generation_prompt false: the prompt ends with the last turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}]})
    add("thinking_on", "enable_thinking true: <|think|> in the system turn, the generation prompt "
        "leaves the channel to the model.",
        {"messages": [{"role": "user", "content": "Think about 2+2."}],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})
    add("thinking_off", "enable_thinking false: as unset.",
        {"messages": [SYS, {"role": "user", "content": "Quick: 2+2?"}],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})
    add("tools_no_system", "Tools without a system message: a system turn of declarations only.",
        {"messages": [USER_W], "tools": [WEATHER], "options": GEN})
    add("system_and_tools", "A system message and two tools (one in OpenAI form).",
        {"messages": [SYS, {"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [WEATHER, {"type": "function", "function": TIME}], "options": GEN})
    add("several_tools_nested_unicode",
        "Several tools: nested objects, arrays of objects, enums, keywords the declaration "
        "does not write, non-ASCII and quotes in descriptions, a tool without parameters.",
        {"messages": [{"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, CALC, TIME, NOW, PING], "options": GEN})
    add("enum_array_schema",
        "Enums, arrays of objects and of arrays, nullable, a type list, an object without "
        "properties, a declaration without a parameters type; thinking on.",
        {"messages": [SYS, {"role": "user", "content": "Plan Zürich → Tokyo by train."}],
         "tools": [PLAN, LOOSE],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})
    add("one_call_one_result", "One history call (string argument), its result in the same turn.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"}],
         "tools": [WEATHER], "options": GEN})
    add("two_calls_two_results", "Two parallel calls, their results named by the calls they answer.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"}),
                                      call("call_2", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "tool", "tool_call_id": "call_2", "content": "21:04"}],
         "tools": [WEATHER, TIME], "options": GEN})
    add("three_parallel_calls", "Three calls of one tool, three results.",
        {"messages": [{"role": "user", "content": "Weather in Paris, Oslo and Lima"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"}),
                                      call("call_2", "get_weather", {"city": "Oslo"}),
                                      call("call_3", "get_weather", {"city": "Lima"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18"},
                      {"role": "tool", "tool_call_id": "call_2", "content": "3"},
                      {"role": "tool", "tool_call_id": "call_3", "content": "25"}],
         "tools": [WEATHER], "options": GEN})
    add("two_rounds", "Two rounds of calls in one model turn, an answer, a new question.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "rain"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_2", "get_time", {"tz": "Europe/Paris"})]},
                      {"role": "tool", "tool_call_id": "call_2", "content": "09:00"},
                      {"role": "assistant", "content": "It rains in Paris at 9 a.m."},
                      {"role": "user", "content": "Thanks!"}],
         "tools": [WEATHER, TIME], "options": GEN})
    add("foreign_ids", "Ids of another API (toolu_…): they only name the result.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("toolu_01A", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "toolu_01A", "content": "18°C"}],
         "tools": [WEATHER], "options": GEN})
    add("unmatched_result", "A result whose tool_call_id answers no call: response:unknown.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_9", "content": "lost"}],
         "tools": [WEATHER], "options": GEN})
    add("final_answer_after_result", "Results, then the answer as content of the same model turn; "
        "no generation prompt.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "assistant", "content": "It is 18°C in Paris."}],
         "tools": [WEATHER]})
    add("call_content_and_results", "A call with content: the content follows the results.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "Let me check.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "user", "content": "And tomorrow?"}],
         "tools": [WEATHER], "options": GEN})
    add("call_without_result", "The last turn's call has no result yet: the prompt ends in "
        "<|tool_response>.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "Checking.", "thinking": "Use the tool.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]}],
         "tools": [WEATHER], "options": GEN})
    add("call_no_arguments", "A call without arguments.",
        {"messages": [{"role": "user", "content": "What time is it?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "now", {})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "12:00Z"}],
         "tools": [NOW], "options": GEN})
    add("nested_arguments",
        "Nested objects and lists in arguments, keys sorted; strings with quotes, line breaks and "
        "non-ASCII as they are.",
        {"messages": [{"role": "user", "content": "Vol CDG → HND"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "search_flights",
                                           {"route": {"to": "HND", "from": "CDG"},
                                            "passengers": [{"name": "Zoë \"Z\" O'Neil", "age": 31},
                                                           {"name": "田中", "age": 7}],
                                            "cabin": "première", "flexible": True,
                                            "Note": "line1\nline2\ttab \\ slash {x:[1]}"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "[]"}],
         "tools": [SEARCH], "options": GEN})
    add("number_spellings", "Numbers as Python prints them, null as None, false.",
        {"messages": [{"role": "user", "content": "Compute."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "calc",
                                           {"a": Raw("1.50"), "b": Raw("1E5"), "c": Raw("-0"),
                                            "d": Raw("1e-5"), "e": Raw("18446744073709551616"),
                                            "f": Raw("0.1"), "g": Raw("100.0"), "h": Raw("-0.0"),
                                            "i": None, "j": False, "k": [Raw("2.50"), None, True]})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "ok"}],
         "tools": [CALC], "options": GEN})
    add("non_ascii_turns", "Non-ASCII in every kind of turn.",
        {"messages": [{"role": "system", "content": "Tu es un assistant serviable. 你好。"},
                      {"role": "user", "content": "¿Qué tiempo hace en Zürich? 🌦"},
                      {"role": "assistant", "content": "Es soleado — 22 °C."},
                      {"role": "user", "content": "ありがとう"}],
         "options": GEN})
    add("multi_turn_plain", "Plain turns; white space at the ends of content is stripped.",
        {"messages": [SYS, {"role": "user", "content": "Line one\nline two"},
                      {"role": "assistant", "content": "  Answer\n\nwith a blank line\n"},
                      {"role": "user", "content": "  spaced  "},
                      {"role": "assistant", "content": ""},
                      {"role": "user", "content": "Again?"}],
         "options": GEN})
    add("second_system_message", "A system message later in the conversation: a system turn.",
        {"messages": [SYS, {"role": "user", "content": "Hi"},
                      {"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Explain rain."}],
         "options": GEN})
    add("result_without_call", "A tool result with no call before it: the template drops it.",
        {"messages": [{"role": "user", "content": "Here is a result."},
                      {"role": "tool", "tool_call_id": "x", "content": "42"}],
         "options": GEN})
    add("reasoning_in_tool_loop", "Reasoning of a turn with calls after the last user turn is kept.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "", "thinking": "I should look it up.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"}],
         "tools": [WEATHER], "options": {"add_generation_prompt": True, "enable_thinking": True}})
    add("reasoning_dropped", "Reasoning before the last user turn, or without calls, is dropped.",
        {"messages": [{"role": "user", "content": "2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                      {"role": "user", "content": "3+3?"},
                      {"role": "assistant", "content": "6", "thinking": "Again."}],
         "options": GEN})
    add("consecutive_assistants", "Two assistant messages in a row: one model turn.",
        {"messages": [{"role": "user", "content": "Tell me two things."},
                      {"role": "assistant", "content": "First."},
                      {"role": "assistant", "content": "Second."}],
         "options": GEN})
    add("thought_channel_in_content", "A thought channel in assistant content is stripped.",
        {"messages": [{"role": "user", "content": "Hi"},
                      {"role": "assistant",
                       "content": "<|channel>thought\nhidden<channel|>Hello there."},
                      {"role": "user", "content": "Bye"}],
         "options": GEN})
    add("system_only", "Only a system message, with tools.",
        {"messages": [SYS], "tools": [PING], "options": GEN})
    add("no_messages", "No messages: the template fails on messages[0].",
        {"messages": [], "options": GEN})
    return F
