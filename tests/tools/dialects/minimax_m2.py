"""MiniMax-M2: the prompt encoder and reader minimax-m2-prompt against the
model's chat template (tests/tools/render_dialect.py renders these into
tests/data/prompts/minimax-m2/)."""
from render_qwen3 import Raw, WEATHER, TIME, SEARCH, CALC, NOW, PING, SYS

TEMPLATE = "minimax-m2"

USER_W = {"role": "user", "content": "Weather in Paris?"}
GEN = {"add_generation_prompt": True}


def call(cid, name, args):
    return {"id": cid, "name": name, "arguments": args}


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("single_user",
        "No system message: the template writes its default system text.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}], "options": GEN})
    add("system_user",
        "A system message of its own replaces the default text.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}], "options": GEN})
    add("no_generation_prompt",
        "add_generation_prompt false: the prompt ends with the last turn.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}]})
    add("tools_no_system",
        "Tools without a system message: the default text, then the # Tools block.",
        {"messages": [USER_W], "tools": [WEATHER], "options": GEN})
    add("system_and_tools",
        "System message and tools (one in OpenAI form).",
        {"messages": [SYS, {"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [WEATHER, {"type": "function", "function": TIME}], "options": GEN})
    add("several_tools_nested_unicode",
        "Several tools: nested parameters, enums, numbers, non-ASCII kept raw by tojson.",
        {"messages": [SYS, {"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, CALC, TIME, NOW, PING], "options": GEN})
    add("one_call_one_result",
        "One history call and its result (the template writes no ids).",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"}],
         "tools": [WEATHER], "options": GEN})
    add("two_calls_two_results",
        "Two calls in one turn, two results grouped in one tool turn.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"}),
                                      call("call_2", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "tool", "tool_call_id": "call_2", "content": "21:04"}],
         "tools": [WEATHER, TIME], "options": GEN})
    add("two_rounds",
        "Two rounds of calls, then an answer and a new user turn.",
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
    add("foreign_ids",
        "History ids other than call_<n>: the template writes none (not carried).",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("toolu_01A", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "toolu_01A", "content": "18°C"}],
         "tools": [WEATHER], "options": GEN})
    add("call_with_content",
        "A call turn with text before the section.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "Let me look that up.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 18}"}],
         "tools": [WEATHER], "options": GEN})
    add("final_answer_after_result",
        "The assistant's answer after a result; no generation prompt.",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "assistant", "content": "It is 18°C in Paris."}],
         "tools": [WEATHER]})
    add("call_no_arguments",
        "A call without arguments: no parameter lines.",
        {"messages": [{"role": "user", "content": "What time is it?"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "now", {})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "12:00Z"}],
         "tools": [NOW], "options": GEN})
    add("nested_arguments",
        "Strings written raw (quotes, line breaks, non-ASCII), objects, arrays and booleans as tojson.",
        {"messages": [SYS, {"role": "user", "content": "Vol CDG → HND"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "search_flights",
                                           {"route": {"from": "CDG", "to": "HND"},
                                            "passengers": [{"name": "Zoë \"Z\" O'Neil", "age": 31},
                                                           {"name": "田中", "age": 7}],
                                            "cabin": "première", "flexible": True,
                                            "note": "line1\nline2\ttab \\ slash <b>"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "[]"}],
         "tools": [SEARCH], "options": GEN})
    add("number_spellings",
        "Numbers in arguments as Python's json reads them and tojson writes them.",
        {"messages": [{"role": "user", "content": "Compute."},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "calc",
                                           {"a": Raw("1.50"), "b": Raw("1E5"), "c": Raw("-0"),
                                            "d": Raw("1e-5"), "e": Raw("18446744073709551616"),
                                            "f": Raw("0.1"), "g": Raw("100.0"), "h": Raw("-0.0"),
                                            "i": None})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "ok"}],
         "tools": [CALC], "options": GEN})
    add("non_ascii_turns",
        "Non-ASCII in every kind of turn.",
        {"messages": [{"role": "system", "content": "Tu es un assistant serviable. 你好。"},
                      {"role": "user", "content": "¿Qué tiempo hace en Zürich? 🌦"},
                      {"role": "assistant", "content": "Es soleado — 22 °C."},
                      {"role": "user", "content": "ありがとう"}],
         "options": GEN})
    add("multi_turn_plain",
        "Several plain turns, content with line breaks and spaces kept.",
        {"messages": [SYS, {"role": "user", "content": "Line one\nline two"},
                      {"role": "assistant", "content": "Answer\n\nwith a blank line"},
                      {"role": "user", "content": "  spaced  "},
                      {"role": "assistant", "content": ""},
                      {"role": "user", "content": "Again?"}],
         "options": GEN})
    add("second_system_message",
        "A system message later in the conversation: the template drops it (not carried).",
        {"messages": [SYS, {"role": "user", "content": "Hi"},
                      {"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Explain rain."}],
         "options": GEN})
    add("result_without_call",
        "A tool result no call asked for: the template refuses it.",
        {"messages": [{"role": "user", "content": "Here is a result."},
                      {"role": "tool", "tool_call_id": "call_1", "content": "42"}],
         "options": GEN})
    add("result_after_plain_answer",
        "A tool result after an assistant turn without calls: the template refuses it.",
        {"messages": [USER_W,
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "assistant", "content": "Done."},
                      {"role": "tool", "tool_call_id": "call_1", "content": "again"}],
         "tools": [WEATHER], "options": GEN})
    add("empty_tools_list",
        "An empty tools list: no # Tools block.",
        {"messages": [{"role": "user", "content": "Hi"}], "tools": [], "options": GEN})
    add("three_parallel_calls",
        "Three calls in one turn, three results in one tool turn.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris, Oslo and Lima"},
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"}),
                                      call("call_2", "get_weather", {"city": "Oslo"}),
                                      call("call_3", "get_weather", {"city": "Lima"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18"},
                      {"role": "tool", "tool_call_id": "call_2", "content": "3"},
                      {"role": "tool", "tool_call_id": "call_3", "content": "25"}],
         "tools": [WEATHER], "options": GEN})
    add("reasoning_in_tool_loop",
        "Reasoning after the last user turn is written back (interleaved thinking).",
        {"messages": [SYS, USER_W,
                      {"role": "assistant", "content": "", "thinking": "I should call get_weather.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                      {"role": "assistant", "content": "18°C in Paris.",
                       "thinking": "The tool said 18°C.\nAnswer briefly."}],
         "tools": [WEATHER]})
    add("reasoning_of_old_turns_dropped",
        "Reasoning before the last user turn: the template drops it (not carried).",
        {"messages": [SYS, {"role": "user", "content": "2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                      {"role": "user", "content": "3+3?"}],
         "options": GEN})
    add("think_in_content",
        "Content holding <think>…</think> and no reasoning: the template splits it off.",
        {"messages": [SYS, {"role": "user", "content": "2+2?"},
                      {"role": "assistant", "content": "<think>\nadd them\n</think>\n\n4"}]})
    add("model_identity",
        "The template variable model_identity (request.options) replaces the default system text.",
        {"messages": [{"role": "user", "content": "Who are you?"}],
         "options": {"add_generation_prompt": True, "model_identity": "You are MiniMax-M2, made by MiniMax."}})
    return F
