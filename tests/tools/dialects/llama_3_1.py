"""Llama 3.1 chat template (../shared/templates/llama-3.1.jinja): the prompt
of llama-3.1-prompt. The Llama 3.3 template is the same text; llama_3_3.py
renders these conversations with it."""
import render_qwen3 as rq

DIALECT = "llama-3.1"
TEMPLATE = "llama-3.1"

WEATHER = {"name": "get_weather", "description": "Get the current weather for a city",
           "parameters": {"type": "object",
                          "properties": {"city": {"type": "string", "description": "City name"},
                                         "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                          "required": ["city"]}}
SEARCH = {"name": "search_flights", "description": "Cherche des vols — Paris → Tōkyō",
          "parameters": {"type": "object",
                         "properties": {"from": {"type": "string"}, "to": {"type": "string"},
                                        "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
                                        "budget": {"type": "number", "default": rq.Raw("1.5E3")},
                                        "flexible": {"type": "boolean"},
                                        "legs": {"type": "array", "items": {"type": "object", "properties": {}}}},
                         "required": ["from", "to"]}}
NOW = {"name": "now", "description": "Current UTC time", "parameters": {}}
PING = {"name": "ping"}
SYS = {"role": "system", "content": "You are a helpful assistant."}
GEN = {"add_generation_prompt": True}


def call(name, args, cid="call_1"):
    return {"role": "assistant", "content": "", "tool_calls": [{"id": cid, "name": name, "arguments": args}]}


def result(content, cid="call_1"):
    return {"role": "tool", "tool_call_id": cid, "content": content}


def template_vars(request):
    options = dict(request.get("options") or {})
    kw = {
        "messages": [rq.map_message(m) for m in request["messages"]],
        "tools": [rq.map_tool(t) for t in request["tools"]] if request.get("tools") else None,
        "add_generation_prompt": bool(options.pop("add_generation_prompt", False)),
        "bos_token": "<|begin_of_text|>",
    }
    kw.update(options)
    return kw


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("user_only", "No tools, no system: the system header with the dates only, one user turn, generation prompt.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}], "options": GEN})
    add("system_user", "A system message (trimmed) after the dates.",
        {"messages": [{"role": "system", "content": "  You are terse.\n"}, {"role": "user", "content": "Hi"}],
         "options": GEN})
    add("no_generation_prompt", "No generation prompt: the prompt ends with the last turn.",
        {"messages": [SYS, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]})
    add("tools_in_user", "One tool, tools in the first user message (the default): Environment line, the JSON instructions and the tool indented by four.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}], "tools": [WEATHER], "options": GEN})
    add("tools_in_system", "tools_in_user_message false: the tools go in the system turn before the system message.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}], "tools": [WEATHER],
         "options": {"add_generation_prompt": True, "tools_in_user_message": False}})
    add("tools_no_system", "Tools without a system message.",
        {"messages": [{"role": "user", "content": "What time is it?"}], "tools": [{"type": "function", "function": NOW}],
         "options": GEN})
    add("several_tools_unicode_numbers", "Several tools, nested schemas, a number spelled 1.5E3 (Python prints 1500.0), non-ASCII kept raw.",
        {"messages": [SYS, {"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, NOW, PING], "options": GEN})
    add("one_call_one_result", "A call in history (JSON with \"parameters\") and its result as an ipython turn (a JSON string).",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}, call("get_weather", {"city": "Paris"}),
                      result("18C sunny")], "tools": [WEATHER], "options": GEN})
    add("call_content_dropped", "An assistant turn with content and a call: the template writes the call alone.",
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "Let me check.",
                       "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]},
                      result("{\"temp\": 18}")], "tools": [WEATHER], "options": GEN})
    add("multi_turn_loop", "Call, result, call, result, answer, then a new user turn.",
        {"messages": [SYS, {"role": "user", "content": "Warmer in Paris or Rome?"},
                      call("get_weather", {"city": "Paris"}, "c1"), result("18C", "c1"),
                      call("get_weather", {"city": "Rome"}, "c2"), result("24C", "c2"),
                      {"role": "assistant", "content": "Rome is warmer."},
                      {"role": "user", "content": "Thanks"}], "tools": [WEATHER], "options": GEN})
    add("call_numbers", "Argument numbers as Python prints them: 1E5 as 100000.0, 2.50 as 2.5, -0 as 0, a big integer as written.",
        {"messages": [{"role": "user", "content": "Book it"},
                      call("search_flights", {"from": "CDG", "to": "HND", "passengers": 2, "budget": rq.Raw("1E5"),
                                              "ratio": rq.Raw("2.50"), "zero": rq.Raw("-0"),
                                              "big": rq.Raw("123456789012345678901234567890")}),
                      result("ok")], "tools": [SEARCH], "options": GEN})
    add("call_nested_unicode", "Nested arguments, non-ASCII and escapes in strings.",
        {"messages": [{"role": "user", "content": "Vol?"},
                      call("search_flights", {"from": "Zürich", "to": "東京", "legs": [{"a": "x\"y"}, {"b": "tab\there"}],
                                              "flexible": True, "note": None}),
                      result("Vols trouvés : 3 — «ok»\nligne 2")], "tools": [SEARCH], "options": GEN})
    add("empty_arguments", "A call with no arguments: {}.",
        {"messages": [{"role": "user", "content": "Time?"}, call("now", {}), result("12:00Z")],
         "tools": [NOW], "options": GEN})
    add("builtin_tools", "builtin_tools: the Tools line (code_interpreter left out), a built-in call as NAME.call(k=\"v\") ending with <|eom_id|>.",
        {"messages": [{"role": "user", "content": "Search the news"},
                      call("brave_search", {"query": "llama 3.1 release"}), result("Released July 2024")],
         "options": {"add_generation_prompt": True, "builtin_tools": ["brave_search", "wolfram_alpha", "code_interpreter"]}})
    add("builtin_and_custom", "Built-in tools and a custom tool; a custom call ends with <|eom_id|> too (ipython mode).",
        {"messages": [SYS, {"role": "user", "content": "Weather and news?"},
                      call("get_weather", {"city": "Oslo"}), result("-3C"),
                      call("wolfram_alpha", {"query": "2+2", "format": "plain"}, "call_2"), result("4", "call_2")],
         "tools": [WEATHER],
         "options": {"add_generation_prompt": True, "builtin_tools": ["brave_search", "wolfram_alpha"]}})
    add("code_interpreter_only", "builtin_tools holding only code_interpreter: an empty Tools line.",
        {"messages": [{"role": "user", "content": "Compute 2**10"}],
         "options": {"add_generation_prompt": True, "builtin_tools": ["code_interpreter"]}})
    add("date_string", "date_string given: the Today Date line.",
        {"messages": [{"role": "user", "content": "What day is it?"}],
         "options": {"add_generation_prompt": True, "date_string": "29 Nov 2026"}})
    add("user_content_trimmed", "User and assistant contents are trimmed (| trim), tool results are not.",
        {"messages": [{"role": "user", "content": "\n\n  spaced out  \n"}, {"role": "assistant", "content": "  ok \n"},
                      {"role": "user", "content": "\u3000ideographic space\u3000"}], "options": GEN})
    add("tool_result_escapes", "A tool result with quotes, backslashes, control bytes and non-ASCII: json.dumps keeps non-ASCII.",
        {"messages": [{"role": "user", "content": "Read"}, call("get_weather", {"city": "Köln"}),
                      result("line \"1\"\\path\n\ttab \u0001 ünï — ok")], "tools": [WEATHER], "options": GEN})
    add("second_system", "A system message after the first: its own system turn.",
        {"messages": [SYS, {"role": "user", "content": "Hi"}, {"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Again"}], "options": GEN})
    add("thinking_dropped", "Thinking of a history turn: the template has no place for it.",
        {"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4", "thinking": "simple"},
                      {"role": "user", "content": "3+3?"}], "options": GEN})
    add("tools_empty_list", "tools: [] renders as no tools.",
        {"messages": [SYS, {"role": "user", "content": "Hello"}], "tools": [], "options": GEN})
    add("error_two_calls", "Two calls in one assistant turn: the template refuses.",
        {"messages": [{"role": "user", "content": "Both"},
                      {"role": "assistant", "content": "", "tool_calls": [
                          {"id": "a", "name": "get_weather", "arguments": {"city": "A"}},
                          {"id": "b", "name": "get_weather", "arguments": {"city": "B"}}]},
                      result("1", "a"), result("2", "b")], "tools": [WEATHER], "options": GEN})
    add("error_tools_no_user", "Tools in the user message but only a system message: the template refuses.",
        {"messages": [SYS], "tools": [WEATHER], "options": GEN})
    return F
