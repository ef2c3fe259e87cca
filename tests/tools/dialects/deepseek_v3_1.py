"""DeepSeek V3.1 (deepseek-v3.1-prompt): conversations rendered with the
model's chat template (../shared/templates/deepseek-v3.1.jinja) by
tests/tools/render_dialect.py. The template writes no tool list, no call ids
and no reasoning of past turns; it joins every system message at the start
and opens the next assistant turn only after a user message."""
import render_qwen3 as rq
from render_qwen3 import Raw

DIALECT = "deepseek-v3.1"
TEMPLATE = "deepseek-v3.1"

BOS = "<\uff5cbegin\u2581of\u2581sentence\uff5c>"

WEATHER = {
    "name": "get_weather",
    "description": "Weather for a city",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string"}},
                   "required": ["city"]},
}
SYS = {"role": "system", "content": "You are a helpful assistant."}


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
    add("tools_not_written", "Tools declared: the template writes no tool list.",
        {"messages": [user("Weather in Paris?")], "tools": [WEATHER], "options": gen})
    add("one_call_one_result",
        "One history call and its result; the prompt then ends at the tool output (no generation prompt after a result).",
        {"messages": [SYS, user("Weather in Paris?"),
                      asst("", [call("call_1", "get_weather", {"city": "Paris"})]),
                      tool("call_1", "18C sunny")],
         "tools": [WEATHER], "options": gen})
    add("call_with_content", "Content before the calls section in the same turn.",
        {"messages": [user("Weather in Paris?"),
                      asst("Let me check.", [call("call_1", "get_weather", {"city": "Paris"})]),
                      tool("call_1", "18C sunny"),
                      asst("It is 18C and sunny in Paris.")],
         "tools": [WEATHER]})
    add("parallel_calls", "Two calls in one section, two results in a row, then the answer.",
        {"messages": [user("Weather in Paris and Rome?"),
                      asst("", [call("a", "get_weather", {"city": "Paris"}),
                                call("b", "get_weather", {"city": "Rome"})]),
                      tool("a", "18C"), tool("b", "24C"),
                      asst("Rome is warmer."), user("Thanks!")],
         "tools": [WEATHER], "options": gen})
    add("agent_loop", "Call, result, call, result, answer, new user turn, thinking on.",
        {"messages": [SYS, user("Is it warmer in Paris or Rome?"),
                      asst("", [call("c1", "get_weather", {"city": "Paris"})]),
                      tool("c1", "18C"),
                      asst("", [call("c2", "get_weather", {"city": "Rome"})]),
                      tool("c2", "24C"),
                      asst("Rome (24C) is warmer than Paris (18C)."),
                      user("And Berlin?")],
         "options": think})
    add("history_plain_turns", "Plain user/assistant history: <think></think> before each answer.",
        {"messages": [user("1+1?"), asst("2"), user("2+2?"), asst("4"), user("3+3?")],
         "options": gen})
    add("history_thinking_dropped", "Reasoning of a past turn is not written.",
        {"messages": [user("1+1?"), asst("2", thinking="one plus one is two"), user("and 2+2?")],
         "options": think})
    add("content_with_think_close",
        "An assistant content holding </think>: the template keeps what follows the first one.",
        {"messages": [user("Hi"), asst("old reasoning</think>Hello there."), user("Bye")],
         "options": gen})
    add("numbers", "Number spellings in arguments as Python's json.dumps prints them.",
        {"messages": [user("Compute."),
                      asst("", [call("n", "calc", {"int": 42, "neg": -7, "float": Raw("1.50"),
                                                   "exp": Raw("1E5"), "small": Raw("2.5e-3"),
                                                   "big": Raw("123456789012345678901234567890"),
                                                   "negzero": Raw("-0"), "one": Raw("1.0")})]),
                      tool("n", "ok")]})
    add("nested_args", "Nested objects, arrays, booleans and null in arguments.",
        {"messages": [user("Book it."),
                      asst("", [call("x", "book", {"route": {"from": "CDG", "to": "HND"},
                                                   "pax": [{"name": "Ann", "age": 30}, {"name": "Bo"}],
                                                   "flex": True, "meal": None, "seats": []})]),
                      tool("x", "{\"ok\": true}")]})
    add("non_ascii", "Non-ASCII text everywhere: kept raw (tojson with ensure_ascii false).",
        {"messages": [{"role": "system", "content": "Réponds en français — 日本語も可"},
                      user("Météo à Tōkyō ? 東京の天気"),
                      asst("Je vérifie…", [call("u", "get_weather", {"city": "東京", "note": "ça va ☀"})]),
                      tool("u", "晴れ 18°C"),
                      asst("Il fait 18 °C et beau à Tōkyō.")],
         "options": gen})
    add("escapes", "Quotes, backslashes, line breaks and tabs in arguments and text.",
        {"messages": [user("Write \"a\\b\"\n\ttab"),
                      asst("", [call("e", "write_file", {"path": "C:\\tmp\\a.txt",
                                                         "text": "line 1\nline \"2\"\t</think>"})]),
                      tool("e", "written\n2 lines")]})
    add("empty_arguments", "A call with no arguments: {}.",
        {"messages": [user("Time?"), asst("", [call("t", "get_time", {})]), tool("t", "12:00")]})
    add("markup_in_user", "A user message holding markup lookalikes (plain text in the prompt).",
        {"messages": [user("What does <think> or <tool_call> mean?")], "options": gen})
    add("tool_after_user", "A tool result right after a user turn (no assistant call before it).",
        {"messages": [user("Here is a result:"), tool("z", "42")]})
    add("thinking_no_generation", "thinking=true without a generation prompt: nothing written for it.",
        {"messages": [user("Hi"), asst("Hello")], "options": {"thinking": True}})
    add("answer_after_results_then_user",
        "A direct answer after results (no <｜Assistant｜> marker), then a user turn, thinking off.",
        {"messages": [user("Weather?"), asst("", [call("w", "get_weather", {"city": "Oslo"})]),
                      tool("w", "-3C snow"), asst("It is -3C with snow in Oslo."),
                      user("Thanks"), asst("You're welcome."), user("Bye")],
         "options": gen})
    add("call_after_result", "A second call turn right after a result (no marker before it).",
        {"messages": [user("Two cities?"), asst("", [call("p", "get_weather", {"city": "Paris"})]),
                      tool("p", "18C"), asst("Now Rome.", [call("r", "get_weather", {"city": "Rome"})]),
                      tool("r", "24C")]})
    return F
