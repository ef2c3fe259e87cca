"""GLM-4.6: the prompt encoder and reader glm-4.6-prompt against the model's
chat template (tests/tools/render_dialect.py renders these into
tests/data/prompts/glm-4.6/). The conversations are shared with GLM-4.7
(glm_4_7.py)."""
from render_qwen3 import Raw, WEATHER, TIME, SEARCH, CALC, NOW, PING, SYS

DIALECT = "glm-4.6"
TEMPLATE = "glm-4.6"

USER_W = {"role": "user", "content": "Weather in Paris?"}
GEN = {"add_generation_prompt": True}


def call(cid, name, args):
    return {"id": cid, "name": name, "arguments": args}


def shared_fixtures():
    """The conversations both GLM templates are rendered on."""
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("single_user", "One user turn, generation prompt.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}], "options": GEN})
    add("system_user", "A system turn, then a user turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}], "options": GEN})
    add("no_generation_prompt", "add_generation_prompt false: the prompt ends with the last turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}]})
    add("thinking_off", "enable_thinking false: the generation prompt closes the reasoning.",
        {"messages": [{"role": "user", "content": "Quick: 2+2?"}],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})
    add("thinking_on_explicit", "enable_thinking true: as the default.",
        {"messages": [{"role": "user", "content": "Think about 2+2."}],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})
    add("tools_no_system", "Tools without a system message: the # Tools system turn.",
        {"messages": [USER_W], "tools": [WEATHER], "options": GEN})
    add("system_and_tools", "Tools and a system message of its own (a second system turn).",
        {"messages": [SYS, {"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [WEATHER, {"type": "function", "function": TIME}], "options": GEN})
    add("several_tools_nested_unicode",
        "Several tools: nested parameters, enums, numbers, non-ASCII kept raw by tojson.",
        {"messages": [{"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, CALC, TIME, NOW, PING], "options": GEN})
    add("one_call_one_result", "One history call (string argument), its result.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"}],
         "tools": [WEATHER], "options": GEN})
    add("two_calls_two_results", "Two calls in one turn; the two results under one <|observation|>.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"}),
                                      call("call_2", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "tool", "tool_call_id": "call_2", "content": "21:04"}],
         "tools": [WEATHER, TIME], "options": GEN})
    add("two_rounds", "Two rounds of calls, then an answer and a new question.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "Checking.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "rain"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_2", "get_time", {"tz": "Europe/Paris"})]},
                      {"role": "tool", "tool_call_id": "call_2", "content": "09:00"},
                      {"role": "assistant", "content": "It rains in Paris at 9 a.m."},
                      {"role": "user", "content": "Thanks!"}],
         "tools": [WEATHER, TIME], "options": GEN})
    add("foreign_ids", "Ids the template does not write (toolu_…): not carried.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("toolu_01A", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "toolu_01A", "content": "18°C"}],
         "tools": [WEATHER], "options": GEN})
    add("final_answer_after_result", "The assistant's answer after a result; no generation prompt.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "assistant", "content": "It is 18°C in Paris."}],
         "tools": [WEATHER]})
    add("call_no_arguments", "A call without arguments.",
        {"messages": [{"role": "user", "content": "What time is it?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "now", {})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "12:00Z"}],
         "tools": [NOW], "options": GEN})
    add("nested_arguments",
        "Non-string values as tojson writes them; strings with quotes, line breaks and non-ASCII as they are.",
        {"messages": [{"role": "user", "content": "Vol CDG → HND"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "search_flights",
                                           {"route": {"from": "CDG", "to": "HND"},
                                            "passengers": [{"name": "Zoë \"Z\" O'Neil", "age": 31},
                                                           {"name": "田中", "age": 7}],
                                            "cabin": "première", "flexible": True,
                                            "note": "line1\nline2\ttab \\ slash"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "[]"}],
         "tools": [SEARCH], "options": GEN})
    add("number_spellings", "Numbers in arguments as Python's json reads and writes them.",
        {"messages": [{"role": "user", "content": "Compute."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "calc",
                                           {"a": Raw("1.50"), "b": Raw("1E5"), "c": Raw("-0"),
                                            "d": Raw("1e-5"), "e": Raw("18446744073709551616"),
                                            "f": Raw("0.1"), "g": Raw("100.0"), "h": Raw("-0.0"),
                                            "i": None, "j": False})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "ok"}],
         "tools": [CALC], "options": GEN})
    add("non_ascii_turns", "Non-ASCII in every kind of turn.",
        {"messages": [{"role": "system", "content": "Tu es un assistant serviable. 你好。"},
                      {"role": "user", "content": "¿Qué tiempo hace en Zürich? 🌦"},
                      {"role": "assistant", "content": "Es soleado — 22 °C."},
                      {"role": "user", "content": "ありがとう"}],
         "options": GEN})
    add("multi_turn_plain", "Plain turns; content with line breaks and spaces at its ends.",
        {"messages": [SYS, {"role": "user", "content": "Line one\nline two"},
                      {"role": "assistant", "content": "  Answer\n\nwith a blank line\n"},
                      {"role": "user", "content": "  spaced  "},
                      {"role": "assistant", "content": ""},
                      {"role": "user", "content": "Again?"}],
         "options": GEN})
    add("second_system_message", "A system message later in the conversation.",
        {"messages": [SYS, {"role": "user", "content": "Hi"},
                      {"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Explain rain."}],
         "options": GEN})
    add("result_without_call", "A tool result first: its own <|observation|>.",
        {"messages": [{"role": "user", "content": "Here is a result."},
                      {"role": "tool", "tool_call_id": "x", "content": "42"}],
         "options": GEN})
    add("three_parallel_calls", "Three calls in one turn, three results.",
        {"messages": [{"role": "user", "content": "Weather in Paris, Oslo and Lima"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"}),
                                      call("call_2", "get_weather", {"city": "Oslo"}),
                                      call("call_3", "get_weather", {"city": "Lima"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18"},
                      {"role": "tool", "tool_call_id": "call_2", "content": "3"},
                      {"role": "tool", "tool_call_id": "call_3", "content": "25"}],
         "tools": [WEATHER], "options": GEN})
    add("reasoning_after_last_user", "Reasoning of the turns after the last user turn is kept.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "", "thinking": "I should look it up.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"}],
         "tools": [WEATHER], "options": GEN})
    add("reasoning_before_last_user", "Reasoning of a turn before the last user turn is dropped (not carried).",
        {"messages": [{"role": "user", "content": "2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                      {"role": "user", "content": "3+3?"}],
         "options": GEN})
    add("call_with_content_and_reasoning", "Reasoning, text and a call in the last turn; no generation prompt.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "Let me look that up.", "thinking": "Weather tool.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris", "days": 3})]}],
         "tools": [WEATHER]})
    add("user_ends_with_nothink", "A user turn already ending in /nothink.",
        {"messages": [{"role": "user", "content": "Answer fast /nothink"}],
         "options": {"add_generation_prompt": True, "enable_thinking": False}})
    return F


def fixtures():
    return shared_fixtures()
