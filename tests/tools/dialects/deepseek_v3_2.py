"""DeepSeek V3.2 (deepseek-v3.2-prompt): conversations rendered with the
model's chat template (../shared/templates/deepseek-v3.2.jinja) by
tests/tools/render_dialect.py. The template joins every system message at
the start, followed by the tool list (each tool's function as one JSON line
in <functions>); history calls are DSML invokes with typed parameters
(string="true|false"), results go in one <function_results> block per call
turn; reasoning is written only for the turns after the last user message
and only with thinking on. It writes no call ids. Its own refusal (call
arguments that are not an object) cannot be written here: the neutral
request refuses such arguments first (tests/lib/test_dsml.c builds them)."""
import render_qwen3 as rq
from render_qwen3 import Raw, WEATHER, TIME, SEARCH, CALC, NOW, SYS

DIALECT = "deepseek-v3.2"
TEMPLATE = "deepseek-v3.2"

BOS = "<\uff5cbegin\u2581of\u2581sentence\uff5c>"


def template_vars(request):
    options = dict(request.get("options") or {})
    kw = {
        "messages": [rq.map_message(m) for m in request["messages"]],
        "tools": [rq.map_tool(t) for t in request["tools"]] if request.get("tools") else None,
        "add_generation_prompt": bool(options.pop("add_generation_prompt", False)),
        "bos_token": BOS,
    }
    kw.update(options)
    return kw


def user(text):
    return {"role": "user", "content": text}


def call(cid, name, args):
    return {"id": cid, "name": name, "arguments": args}


def asst(content="", calls=None, thinking=None):
    m = {"role": "assistant", "content": content}
    if calls:
        m["tool_calls"] = calls
    if thinking:
        m["thinking"] = thinking
    return m


def tool(cid, content):
    return {"role": "tool", "tool_call_id": cid, "content": content}


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    gen = {"add_generation_prompt": True}
    think = {"add_generation_prompt": True, "thinking": True}
    USER_W = user("Weather in Paris?")

    add("single_user", "One user turn, generation prompt, thinking off: <think></think>.",
        {"messages": [user("Hello! What can you do?")], "options": gen})
    add("single_user_thinking", "Thinking on (thinking=true): the prompt ends <think>.",
        {"messages": [user("Prove that 2 is prime.")], "options": think})
    add("enable_thinking", "enable_thinking=true is read as thinking when thinking is unset.",
        {"messages": [SYS, user("Why is the sky blue?")],
         "options": {"add_generation_prompt": True, "enable_thinking": True}})
    add("system_user", "A system prompt, written right after the BOS with no marker.",
        {"messages": [SYS, user("Say hi.")], "options": gen})
    add("two_systems", "Two system messages joined with a blank line at the start.",
        {"messages": [SYS, {"role": "system", "content": "Answer in French."}, user("Bonjour ?")],
         "options": gen})
    add("no_generation_prompt", "No generation prompt: the prompt ends after the user turn.",
        {"messages": [SYS, user("Hi")]})
    add("tools_no_system", "Tools without a system message: the ## Tools section alone.",
        {"messages": [USER_W], "tools": [WEATHER], "options": gen})
    add("system_and_tools",
        "A system message and several tools (nested schemas, non-ASCII kept raw by tojson): "
        "the tools section after a blank line.",
        {"messages": [SYS, user("Cherche un vol Paris → Tōkyō pour deux.")],
         "tools": [WEATHER, TIME, SEARCH, CALC, NOW], "options": think})
    add("one_call_one_result",
        "One history call and its result; the generation prompt after the results block.",
        {"messages": [SYS, USER_W,
                      asst("", [call("call_1", "get_weather", {"city": "Paris"})]),
                      tool("call_1", "18C sunny")],
         "tools": [WEATHER], "options": gen})
    add("call_with_content", "Content before the function_calls block in the same turn; the answer after the results.",
        {"messages": [USER_W,
                      asst("Let me check.", [call("call_1", "get_weather", {"city": "Paris"})]),
                      tool("call_1", "18C sunny"),
                      asst("It is 18C and sunny in Paris.")],
         "tools": [WEATHER]})
    add("parallel_calls", "Two calls in one block, both results in one <function_results>, then the answer and a new user turn.",
        {"messages": [user("Weather in Paris and the time in Tokyo?"),
                      asst("", [call("call_1", "get_weather", {"city": "Paris"}),
                                call("call_2", "get_time", {"tz": "Asia/Tokyo"})]),
                      tool("call_1", "18C"), tool("call_2", "21:04"),
                      asst("18C in Paris; 21:04 in Tokyo."), user("Thanks!")],
         "tools": [WEATHER, TIME], "options": gen})
    add("agent_loop_thinking",
        "Thinking on: the turns after the last user message keep their reasoning "
        "(<think>R</think>, after results too); the generation prompt after results opens <think>.",
        {"messages": [SYS, user("Is it warmer in Paris or Rome?"),
                      asst("", [call("call_1", "get_weather", {"city": "Paris"})],
                           thinking="I need both temperatures. Paris first."),
                      tool("call_1", "18C"),
                      asst("", [call("call_2", "get_weather", {"city": "Rome"})],
                           thinking="Now Rome."),
                      tool("call_2", "24C")],
         "tools": [WEATHER], "options": think})
    add("agent_loop_thinking_answer",
        "Thinking on and an answer after the results with its reasoning; no generation prompt.",
        {"messages": [user("Weather in Oslo?"),
                      asst("", [call("call_1", "get_weather", {"city": "Oslo"})],
                           thinking="Look it up."),
                      tool("call_1", "-3C snow"),
                      asst("It is -3C with snow in Oslo.", thinking="Cold and snowy.")],
         "tools": [WEATHER], "options": {"thinking": True}})
    add("reasoning_before_last_user",
        "Multi-turn with thinking on: the reasoning of a turn before the last user message is "
        "dropped (not carried), </think> alone is written.",
        {"messages": [user("2+2?"), asst("4", thinking="Simple sum."), user("3+3?")],
         "options": think})
    add("thinking_off_reasoning_dropped",
        "Thinking off: the reasoning of a turn after the last user message is dropped too.",
        {"messages": [USER_W,
                      asst("", [call("call_1", "get_weather", {"city": "Paris"})],
                           thinking="Weather tool."),
                      tool("call_1", "18C")],
         "tools": [WEATHER], "options": gen})
    add("history_plain_turns", "Plain user/assistant history: </think> before each past answer.",
        {"messages": [user("1+1?"), asst("2"), user("2+2?"), asst("4"), user("3+3?")],
         "options": gen})
    add("typed_parameters",
        "Typed parameters: strings with string=\"true\" as they are (even when they read as "
        "numbers or JSON), other values with string=\"false\" as tojson writes them.",
        {"messages": [user("Vol CDG → HND"),
                      asst("", [call("call_1", "search_flights",
                                     {"route": {"from": "CDG", "to": "HND"},
                                      "passengers": [{"name": "Zoë \"Z\" O'Neil", "age": 31},
                                                     {"name": "田中", "age": 7}],
                                      "cabin": "première", "flexible": True,
                                      "max_price": Raw("450.50"), "note": None,
                                      "seats": [], "code": "42", "raw": "{\"a\": 1}",
                                      "text": "line1\nline2\ttab \\ slash"})]),
                      tool("call_1", "[]")],
         "tools": [SEARCH], "options": gen})
    add("number_spellings", "Numbers in arguments as Python's json reads and writes them.",
        {"messages": [user("Compute."),
                      asst("", [call("call_1", "calc",
                                     {"a": Raw("1.50"), "b": Raw("1E5"), "c": Raw("-0"),
                                      "d": Raw("1e-5"), "e": Raw("18446744073709551616"),
                                      "f": Raw("0.1"), "g": Raw("100.0"), "h": Raw("-0.0"),
                                      "i": False, "j": 42})]),
                      tool("call_1", "ok")],
         "tools": [CALC]})
    add("empty_arguments", "A call with no arguments: an invoke without parameters.",
        {"messages": [user("Time?"), asst("", [call("call_1", "now", {})]),
                      tool("call_1", "12:00Z")],
         "tools": [NOW], "options": gen})
    add("non_ascii", "Non-ASCII text everywhere, kept raw.",
        {"messages": [{"role": "system", "content": "Réponds en français — 日本語も可"},
                      user("Météo à Tōkyō ? 東京の天気 🌦"),
                      asst("Je vérifie…", [call("call_1", "get_weather",
                                                {"city": "東京", "note": "ça va ☀"})]),
                      tool("call_1", "晴れ 18°C"),
                      asst("Il fait 18 °C et beau à Tōkyō.")],
         "tools": [WEATHER], "options": gen})
    add("escapes_and_markup_text",
        "Quotes, backslashes, line breaks, tabs and markup lookalikes in text (plain text in the prompt).",
        {"messages": [user("Write \"a\\b\"\n\ttab; what do <think> and <function_results> mean?"),
                      asst("", [call("call_1", "write_file",
                                     {"path": "C:\\tmp\\a.txt",
                                      "text": "line 1\nline \"2\"\t</think>"})]),
                      tool("call_1", "written\n2 lines")]})
    add("answer_after_results_then_user",
        "A direct answer after results (\\n\\n</think>, no <｜Assistant｜> marker), then user turns, thinking off.",
        {"messages": [user("Weather?"), asst("", [call("call_1", "get_weather", {"city": "Oslo"})]),
                      tool("call_1", "-3C snow"), asst("It is -3C with snow in Oslo."),
                      user("Thanks"), asst("You're welcome."), user("Bye")],
         "tools": [WEATHER], "options": gen})
    add("three_parallel_calls_then_call",
        "Three calls, three results, then a second call turn right after the results.",
        {"messages": [user("Weather in Paris, Oslo and Lima, then the time in Lima"),
                      asst("", [call("call_1", "get_weather", {"city": "Paris"}),
                                call("call_2", "get_weather", {"city": "Oslo"}),
                                call("call_3", "get_weather", {"city": "Lima"})]),
                      tool("call_1", "18"), tool("call_2", "3"), tool("call_3", "25"),
                      asst("Now the time.", [call("call_4", "get_time", {"tz": "America/Lima"})]),
                      tool("call_4", "09:00")],
         "tools": [WEATHER, TIME], "options": gen})
    add("foreign_ids", "Ids the template does not write (toolu_…): not carried, results answer the calls in order.",
        {"messages": [USER_W,
                      asst("", [call("toolu_01A", "get_weather", {"city": "Paris"})]),
                      tool("toolu_01A", "18C")],
         "tools": [WEATHER], "options": gen})
    add("no_tools_empty_answer", "No tools, an empty assistant answer and spaces at text ends.",
        {"messages": [user("  spaced  "), asst(""), user("Line one\nline two\n")],
         "options": gen})
    add("thinking_without_generation_prompt",
        "thinking=true, no generation prompt and no turn after the last user message: nothing "
        "written shows it (not carried).",
        {"messages": [user("Hi"), asst("Hello"), user("Bye")], "options": {"thinking": True}})
    add("system_after_user",
        "A system message after the first turns: the template moves it to the start (its place "
        "is not carried).",
        {"messages": [SYS, user("Hi"), asst("Hello"),
                      {"role": "system", "content": "Be brief."}, user("Explain rain.")],
         "options": gen})
    return F
