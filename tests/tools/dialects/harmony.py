"""The Harmony prompt of OpenAI gpt-oss (../shared/templates/gpt-oss.jinja),
rendered for the harmony-prompt encoder and reader (docs/formats/harmony.md,
"The prompt"). The template reads an assistant message's reasoning from
"thinking" (not reasoning_content), and its options reasoning_effort,
builtin_tools and model_identity as keyword arguments; current_date is the
encoder's stand-in for strftime_now, which render_dialect.py fixes to
2024-07-26."""

DIALECT = "harmony"
TEMPLATE = "gpt-oss"

DATE = "2024-07-26"

WEATHER = {
    "name": "get_weather",
    "description": "Weather for a city",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string", "description": "City name"},
                                  "unit": {"type": "string", "enum": ["c", "f"], "default": "c"}},
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
    "description": "Vuelos entre dos ciudades — précis, 日本語も可",
    "parameters": {
        "type": "object",
        "properties": {
            "route": {"type": "object", "description": "Origen → destino",
                      "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
                      "required": ["from", "to"]},
            "passengers": {"type": "array", "items": {"type": "string"}},
            "ages": {"type": "array", "items": {"type": "integer"}},
            "max_price": {"type": "number", "default": 1000.5},
            "flexible": {"type": "boolean", "default": False},
            "note": {"type": "string", "nullable": True},
        },
        "required": ["route"],
    },
}
MIXED = {
    "name": "record",
    "description": "Store a record",
    "parameters": {
        "type": "object",
        "properties": {
            "id": {"type": ["string", "integer"]},
            "tags": {"type": "array", "items": {"type": "boolean"}},
            "scores": {"type": "array", "items": {"type": "number"}},
            "meta": {"type": "object"},
            "anything": {},
            "list": {"type": "array"},
            "count": {"type": "integer", "default": 3},
        },
        "required": ["id", "count"],
    },
}
SHAPES = {
    "name": "shapes",
    "description": "Every branch of the template's type writer",
    "parameters": {
        "type": "object",
        "properties": {
            "a": {"oneOf": [{"type": "string", "description": "s"}, {"type": "number", "default": 3}]},
            "b": {"oneOf": [{"type": "object"}, {"type": "string"}]},
            "c": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "integer"}},
                                             "required": ["x"]}},
            "d": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}, "nullable": True},
            "e": {"type": "string", "enum": ["p", "q"], "default": "q", "description": "an enum"},
            "f": {"type": "array", "items": {"type": "object", "properties": {"long_property_name_one": {"type": "string"},
                                                                              "long_property_name_two": {"type": "string"}}}},
            "g": {"oneOf": [{"type": "string"}], "default": "z"},
            "h": {"type": "array", "items": {"type": "string", "enum": ["u", "v"]}},
        },
        "required": ["a"],
    },
}
PING = {"name": "ping", "description": "Liveness check", "parameters": {"type": "object", "properties": {}}}
NOW = {"name": "now", "description": "Current UTC time"}

GEN = {"add_generation_prompt": True, "current_date": DATE}


def opts(**kw):
    o = dict(GEN)
    o.update(kw)
    return o


def user(text):
    return {"role": "user", "content": text}


def call(cid, name, args):
    return {"id": cid, "name": name, "arguments": args}


def template_vars(request):
    options = dict(request.get("options") or {})
    options.pop("current_date", None)
    msgs = []
    for m in request["messages"]:
        role = m["role"]
        content = m.get("content", "")
        if content is None:
            content = ""
        out = {"role": role, "content": content}
        if role == "assistant":
            if m.get("thinking"):
                out["thinking"] = m["thinking"]
            if m.get("tool_calls"):
                out["tool_calls"] = [{"id": c.get("id", ""), "type": "function",
                                      "function": {"name": c["name"], "arguments": c.get("arguments", {})}}
                                     for c in m["tool_calls"]]
        msgs.append(out)
    tools = None
    if request.get("tools"):
        tools = []
        for t in request["tools"]:
            if t.get("type") == "function" and isinstance(t.get("function"), dict):
                t = t["function"]
            tools.append({"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters") if k in t}})
    kw = {"messages": msgs, "tools": tools,
          "add_generation_prompt": bool(options.pop("add_generation_prompt", False))}
    kw.update(options)
    return kw


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("no_tools_single_user", "No tools, one user turn: the system message with the defaults (identity, medium reasoning), no developer message.",
        {"messages": [user("Hello! What can you do?")], "options": opts()})
    add("system_becomes_developer", "A system message is the developer message's # Instructions.",
        {"messages": [{"role": "system", "content": "You are terse."}, user("Say hi.")], "options": opts()})
    add("developer_role", "A developer message first is read like a system message.",
        {"messages": [{"role": "system", "content": "Answer in French.\nBe brief."}, user("Bonjour ?")],
         "options": opts(reasoning_effort="low")})
    add("reasoning_high", "reasoning_effort high in the system message.",
        {"messages": [user("Prove that sqrt(2) is irrational.")], "options": opts(reasoning_effort="high")})
    add("model_identity", "A model identity replaces ChatGPT's.",
        {"messages": [user("Who are you?")], "options": opts(model_identity="You are Harmonia, a careful assistant.")})
    add("one_tool", "One tool: the functions namespace in the developer message, the commentary-channel line in the system message.",
        {"messages": [user("Weather in Paris?")], "tools": [WEATHER], "options": opts()})
    add("tools_and_system", "Instructions and tools in one developer message.",
        {"messages": [{"role": "system", "content": "Use tools when useful."}, user("Weather and time in Oslo?")],
         "tools": [WEATHER, TIME], "options": opts()})
    add("typed_parameters_unicode", "Nested objects, arrays of strings and integers, number and boolean defaults, nullable, non-ASCII descriptions.",
        {"messages": [user("Cherche un vol Paris → Tōkyō pour deux.")], "tools": [SEARCH], "options": opts()})
    add("type_lists_and_any", "A type list, arrays of booleans and numbers, an object without properties, a schema without type, an integer default.",
        {"messages": [user("Store it.")], "tools": [MIXED, PING, NOW], "options": opts()})
    add("schema_shapes", "oneOf (with descriptions and defaults), arrays of objects (short and past 50 characters), nested arrays, nullable, enums.",
        {"messages": [user("Shapes?")], "tools": [SHAPES], "options": opts()})
    add("builtin_browser", "The browser built-in tool in the system message.",
        {"messages": [user("Latest news on gpt-oss?")], "options": opts(builtin_tools=["browser"])})
    add("builtin_both_with_tools", "Browser and python built-in tools, and functions.",
        {"messages": [user("Plot the weather.")], "tools": [WEATHER], "options": opts(builtin_tools=["browser", "python"])})
    add("one_call_one_result", "A call with its result: the call in the role header, the result as a functions.NAME message with its content as a JSON string.",
        {"messages": [user("Weather in Paris?"),
                      {"role": "assistant", "content": "", "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 21, \"sky\": \"clear\"}"}],
         "tools": [WEATHER], "options": opts()})
    add("call_with_thinking_kept", "The reasoning of a call turn is kept (no final answer after it): an analysis message before the call.",
        {"messages": [user("Time in Tokyo?"),
                      {"role": "assistant", "content": "", "thinking": "Need the time in Asia/Tokyo.",
                       "tool_calls": [call("call_1", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "09:30"}],
         "tools": [TIME], "options": opts()})
    add("call_with_content_as_analysis", "The content of a call turn is written as its analysis message.",
        {"messages": [user("Time in Tokyo?"),
                      {"role": "assistant", "content": "Let me check the clock.",
                       "tool_calls": [call("call_1", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "09:30"}],
         "tools": [TIME], "options": opts()})
    add("full_turn_then_user", "A finished turn (call, result, answer) then a new question: the call's reasoning is dropped, the answer is a final message ended by <|end|>.",
        {"messages": [user("Weather in Paris?"),
                      {"role": "assistant", "content": "", "thinking": "Call get_weather.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris", "unit": "c"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "21 degrees"},
                      {"role": "assistant", "content": "It is 21 °C in Paris."},
                      user("And in Zürich?")],
         "tools": [WEATHER], "options": opts()})
    add("numbers_in_arguments", "Number spellings in call arguments as Python's json.dumps writes them.",
        {"messages": [user("Store it."),
                      {"role": "assistant", "content": "",
                       "tool_calls": [call("call_1", "record", {"id": 7, "count": 3, "scores": [1.5, -0.25, 1e-05, 100.0], "tags": [True, False], "meta": {"a": None}})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "ok"}],
         "tools": [MIXED], "options": opts()})
    add("non_ascii_conversation", "Non-ASCII text in every place: user, answer, arguments and the result (tojson keeps it raw).",
        {"messages": [user("Wetter in Köln? 天気は？"),
                      {"role": "assistant", "content": "", "tool_calls": [call("call_1", "get_weather", {"city": "Köln — 東京"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "Sonnig ☀, 22 °C"},
                      {"role": "assistant", "content": "Sonnig ☀ und 22 °C."},
                      user("Danke! 🌸")],
         "tools": [WEATHER], "options": opts()})
    add("multi_turn_no_tools", "Several plain turns: earlier answers as final messages ended by <|end|>.",
        {"messages": [user("Hi"), {"role": "assistant", "content": "Hello! How can I help?"},
                      user("Tell me a joke."), {"role": "assistant", "content": "Why did the chicken cross the road?"},
                      user("Why?")],
         "options": opts()})
    add("training_last_assistant", "No generation prompt, the last message an assistant's: its reasoning and a final message ended by <|return|>.",
        {"messages": [user("2+2?"), {"role": "assistant", "content": "4", "thinking": "Simple sum."}],
         "options": {"add_generation_prompt": False, "current_date": DATE}})
    add("no_generation_prompt", "No generation prompt after a user turn.",
        {"messages": [user("Hello")], "options": {"add_generation_prompt": False, "current_date": DATE}})
    add("two_calls_in_a_row", "Two call turns, each with its result.",
        {"messages": [user("Weather and time in Rome?"),
                      {"role": "assistant", "content": "", "tool_calls": [call("call_1", "get_weather", {"city": "Rome"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
                      {"role": "assistant", "content": "", "tool_calls": [call("call_2", "get_time", {"tz": "Europe/Rome"})]},
                      {"role": "tool", "tool_call_id": "call_2", "content": "14:05"}],
         "tools": [WEATHER, TIME], "options": opts()})
    add("result_with_quotes_and_newlines", "A result holding quotes, backslashes and newlines: written as a JSON string.",
        {"messages": [user("Run it."),
                      {"role": "assistant", "content": "", "tool_calls": [call("call_1", "ping", {})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "line 1\nsaid \"pong\" at C:\\tmp\ttab"}],
         "tools": [PING], "options": opts()})
    add("error_tool_without_call", "A tool message with no call before it: the template refuses.",
        {"messages": [user("Hi"), {"role": "tool", "tool_call_id": "call_9", "content": "orphan"}], "options": opts()})
    add("error_content_and_thinking_with_call", "A call turn with both content and reasoning: the template refuses.",
        {"messages": [user("Time?"),
                      {"role": "assistant", "content": "Checking.", "thinking": "Need time.",
                       "tool_calls": [call("call_1", "get_time", {"tz": "UTC"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "12:00"}],
         "tools": [TIME], "options": opts()})
    add("error_channel_tags_in_content", "Channel tags in an assistant's content: the template refuses.",
        {"messages": [user("Hi"), {"role": "assistant", "content": "<|channel|>final<|message|>Hello"}, user("Again")],
         "options": opts()})
    return F
