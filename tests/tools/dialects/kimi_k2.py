"""Kimi K2 Instruct: the prompt encoder and reader kimi-k2-prompt against
the model's chat template (tests/tools/render_dialect.py renders these into
tests/data/prompts/kimi-k2/)."""
from render_qwen3 import Raw, WEATHER, TIME, SEARCH, CALC, NOW, PING, SYS

TEMPLATE = "kimi-k2-instruct"
PLAIN_SANDBOX = True  # the template calls list.append

USER_W = {"role": "user", "content": "Weather in Paris?"}


def call(cid, name, args):
    return {"id": cid, "name": name, "arguments": args}


def shared_fixtures():
    """The conversations both Kimi K2 templates are rendered on."""
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("single_user",
        "No system message: the template adds its own before the first turn.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}],
         "options": {"add_generation_prompt": True}})
    add("system_user",
        "A system message of its own: no default one.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}],
         "options": {"add_generation_prompt": True}})
    add("no_generation_prompt",
        "add_generation_prompt false: the prompt ends with the last turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}]})
    add("tools_no_system",
        "Tools without a system message: the tool_declare turn, then the default system turn.",
        {"messages": [USER_W], "tools": [WEATHER],
         "options": {"add_generation_prompt": True}})
    add("system_and_tools",
        "System message and tools (one in OpenAI form).",
        {"messages": [SYS, {"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [WEATHER, {"type": "function", "function": TIME}],
         "options": {"add_generation_prompt": True}})
    add("several_tools_nested_unicode",
        "Several tools: nested parameters, enums, numbers, non-ASCII kept raw by tojson.",
        {"messages": [SYS, {"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, CALC, TIME, NOW, PING],
         "options": {"add_generation_prompt": True}})
    add("one_call_one_result",
        "One history call with the template's own id, its result referring back to it.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18°C, sunny"}],
         "tools": [WEATHER], "options": {"add_generation_prompt": True}})
    add("two_calls_two_results",
        "Two calls in one turn: ids functions.NAME:0 and :1, results in call order.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"}),
                                      call("functions.get_time:1", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18°C"},
                      {"role": "tool", "tool_call_id": "functions.get_time:1", "content": "21:04"}],
         "tools": [WEATHER, TIME], "options": {"add_generation_prompt": True}})
    add("two_rounds_counter",
        "Two rounds of calls: the index counts on across the conversation.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "Checking.",
                       "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "rain"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.get_time:1", "get_time", {"tz": "Europe/Paris"})]},
                      {"role": "tool", "tool_call_id": "functions.get_time:1", "content": "09:00"},
                      {"role": "assistant", "content": "It rains in Paris at 9 a.m."},
                      {"role": "user", "content": "Thanks!"}],
         "tools": [WEATHER, TIME], "options": {"add_generation_prompt": True}})
    add("foreign_ids",
        "History ids that are not the template's (call_1): written as functions.NAME:N, not carried.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"}],
         "tools": [WEATHER], "options": {"add_generation_prompt": True}})
    add("call_with_content",
        "A call turn with text before the section.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "Let me look that up.",
                       "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "{\"temp\": 18}"}],
         "tools": [WEATHER], "options": {"add_generation_prompt": True}})
    add("final_answer_after_result",
        "The assistant's answer after a result; no generation prompt.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18°C"},
                      {"role": "assistant", "content": "It is 18°C in Paris."}],
         "tools": [WEATHER]})
    add("call_no_arguments",
        "A call without arguments: {}.",
        {"messages": [{"role": "user", "content": "What time is it?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.now:0", "now", {})]},
                      {"role": "tool", "tool_call_id": "functions.now:0", "content": "12:00Z"}],
         "tools": [NOW], "options": {"add_generation_prompt": True}})
    add("nested_arguments",
        "Nested arguments with quotes, backslashes, line breaks and non-ASCII, as json.dumps writes them.",
        {"messages": [SYS, {"role": "user", "content": "Vol CDG → HND"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.search_flights:0", "search_flights",
                                           {"route": {"from": "CDG", "to": "HND"},
                                            "passengers": [{"name": "Zoë \"Z\" O'Neil", "age": 31},
                                                           {"name": "田中", "age": 7}],
                                            "cabin": "première", "flexible": True,
                                            "note": "line1\nline2\ttab \\ slash"})]},
                      {"role": "tool", "tool_call_id": "functions.search_flights:0", "content": "[]"}],
         "tools": [SEARCH], "options": {"add_generation_prompt": True}})
    add("number_spellings",
        "Numbers in arguments as Python's json reads and writes them.",
        {"messages": [{"role": "user", "content": "Compute."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.calc:0", "calc",
                                           {"a": Raw("1.50"), "b": Raw("1E5"), "c": Raw("-0"),
                                            "d": Raw("1e-5"), "e": Raw("18446744073709551616"),
                                            "f": Raw("0.1"), "g": Raw("100.0"), "h": Raw("-0.0")})]},
                      {"role": "tool", "tool_call_id": "functions.calc:0", "content": "ok"}],
         "tools": [CALC], "options": {"add_generation_prompt": True}})
    add("non_ascii_turns",
        "Non-ASCII in every kind of turn.",
        {"messages": [{"role": "system", "content": "Tu es un assistant serviable. 你好。"},
                      {"role": "user", "content": "¿Qué tiempo hace en Zürich? 🌦"},
                      {"role": "assistant", "content": "Es soleado — 22 °C."},
                      {"role": "user", "content": "ありがとう"}],
         "options": {"add_generation_prompt": True}})
    add("multi_turn_plain",
        "Several plain turns, content with line breaks.",
        {"messages": [SYS, {"role": "user", "content": "Line one\nline two"},
                      {"role": "assistant", "content": "Answer\n\nwith a blank line"},
                      {"role": "user", "content": "  spaced  "},
                      {"role": "assistant", "content": ""},
                      {"role": "user", "content": "Again?"}],
         "options": {"add_generation_prompt": True}})
    add("second_system_message",
        "A system message later in the conversation is a system turn where it stands.",
        {"messages": [SYS, {"role": "user", "content": "Hi"},
                      {"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Explain rain."}],
         "options": {"add_generation_prompt": True}})
    add("result_without_call",
        "A tool result no call asked for: the template names it functions.unknown:N.",
        {"messages": [{"role": "user", "content": "Here is a result."},
                      {"role": "tool", "tool_call_id": "functions.unknown:0", "content": "42"}],
         "options": {"add_generation_prompt": True}})
    add("empty_tools_list",
        "An empty tools list: no tool_declare turn.",
        {"messages": [{"role": "user", "content": "Hi"}], "tools": [],
         "options": {"add_generation_prompt": True}})
    add("three_parallel_calls",
        "Three calls in one turn, three results.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris, Oslo and Lima"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"}),
                                      call("functions.get_weather:1", "get_weather", {"city": "Oslo"}),
                                      call("functions.get_weather:2", "get_weather", {"city": "Lima"})]},
                      {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18"},
                      {"role": "tool", "tool_call_id": "functions.get_weather:1", "content": "3"},
                      {"role": "tool", "tool_call_id": "functions.get_weather:2", "content": "25"}],
         "tools": [WEATHER], "options": {"add_generation_prompt": True}})
    return F


def fixtures():
    F = shared_fixtures()
    F.append(("thinking_dropped",
              "Reasoning on a history turn: the Instruct template drops it (not carried).",
              {"messages": [SYS, {"role": "user", "content": "2+2?"},
                            {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                            {"role": "user", "content": "3+3?"}],
               "options": {"add_generation_prompt": True}}))
    return F
