"""Mistral Small 3.2 (mistral-small-3.2.jinja): renderings for the encoder and
reader mistral-small-3.2-prompt (docs/formats/mistral.md). The template takes
bos_token and eos_token from the tokenizer (<s>, </s>) and writes the date of
its default system prompt with strftime_now; the neutral request carries that
date as options.today."""
import render_dialect as rd
from render_qwen3 import CALC, NOW, PING, SEARCH, TIME, WEATHER, Raw

DIALECT = "mistral-small-3.2"
TEMPLATE = "mistral-small-3.2"
TODAY = {"today": "2024-07-26"}


def template_vars(request):
    kw = rd.default_vars(request)
    kw["bos_token"] = "<s>"
    kw["eos_token"] = "</s>"
    return kw


SYS = {"role": "system", "content": "You are a helpful assistant."}


def call(i, name, args):
    return {"id": i, "name": name, "arguments": args}


def fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("default_system_no_tools", "No system message: the template's default system prompt with its date.",
        {"messages": [{"role": "user", "content": "Hello! What can you do?"}], "options": TODAY})
    add("system_no_tools", "A system message replaces the default prompt.",
        {"messages": [SYS, {"role": "user", "content": "Say hi."}]})
    add("system_and_tools", "Tools go before the last user turn as [AVAILABLE_TOOLS].",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"}], "tools": [WEATHER]})
    add("tools_default_system", "Tools in OpenAI form without a system message.",
        {"messages": [{"role": "user", "content": "What time is it in Tokyo?"}],
         "tools": [{"type": "function", "function": TIME}], "options": TODAY})
    add("several_tools_unicode", "Several tools with nested parameters, non-ASCII and escapes kept raw by tojson.",
        {"messages": [SYS, {"role": "user", "content": "Cherche un vol Paris → Tōkyō pour deux."}],
         "tools": [WEATHER, SEARCH, CALC, TIME, NOW, PING]})
    add("one_call_one_result", "A call with its 9-character id and its result.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "", "tool_calls": [call("a1B2c3D4e", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "a1B2c3D4e", "content": "{\"temp\": 21}"}],
         "tools": [WEATHER]})
    add("call_result_answer", "A call, its result and the final answer, then the next user turn (tools before it only).",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "", "tool_calls": [call("a1B2c3D4e", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "a1B2c3D4e", "content": "Sunny, 21 °C"},
                      {"role": "assistant", "content": "It is sunny and 21 °C in Paris."},
                      {"role": "user", "content": "And in Lyon?"}],
         "tools": [WEATHER]})
    add("parallel_calls", "Two calls in one assistant turn, two results.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "", "tool_calls": [
                          call("Abc123xyz", "get_weather", {"city": "Paris"}),
                          call("Zz9Yy8Xx7", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "Abc123xyz", "content": "Rain"},
                      {"role": "tool", "tool_call_id": "Zz9Yy8Xx7", "content": "09:00"}],
         "tools": [WEATHER, TIME]})
    add("multi_turn_no_tools", "Several plain turns: each assistant turn ends with </s>.",
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
                      {"role": "user", "content": "How are you?"}, {"role": "assistant", "content": "Fine, thanks."},
                      {"role": "user", "content": "Bye"}], "options": TODAY})
    add("numbers_spelled", "Number spellings in call arguments as Python's json reads and writes them.",
        {"messages": [SYS, {"role": "user", "content": "Compute."},
                      {"role": "assistant", "content": "", "tool_calls": [call("n1n2n3n4n", "calc", {
                          "E5": Raw("1E5"), "e_minus5": Raw("1e-5"), "one": Raw("1.0"), "hundred": Raw("100.0"),
                          "trailing": Raw("2.50"), "neg_zero": Raw("-0.0"), "neg_int_zero": Raw("-0"),
                          "big": Raw("12345678901234567890"), "p53_plus1": Raw("9007199254740993"),
                          "max_double": Raw("1.7976931348623157e308"), "list": [Raw("1"), Raw("2.0"), Raw("3e2")]})]},
                      {"role": "tool", "tool_call_id": "n1n2n3n4n", "content": "ok"}],
         "tools": [CALC]})
    add("non_ascii_everywhere", "Non-ASCII in system, user, arguments and results.",
        {"messages": [{"role": "system", "content": "Tu es un assistant. 日本語も話せます。"},
                      {"role": "user", "content": "Météo à Zürich ? 🌤"},
                      {"role": "assistant", "content": "", "tool_calls": [call("Zurich001", "get_weather", {"city": "Zürich", "note": "ß → ẞ"})]},
                      {"role": "tool", "tool_call_id": "Zurich001", "content": "Ensoleillé ☀"},
                      {"role": "assistant", "content": "Il fait beau à Zürich ☀."}],
         "tools": [WEATHER]})
    add("empty_arguments", "A call with no arguments ({}).",
        {"messages": [SYS, {"role": "user", "content": "Ping."},
                      {"role": "assistant", "content": "", "tool_calls": [call("p1p2p3p4p", "ping", {})]},
                      {"role": "tool", "tool_call_id": "p1p2p3p4p", "content": "pong"}],
         "tools": [PING]})
    add("nested_arguments", "Nested objects and arrays in arguments.",
        {"messages": [SYS, {"role": "user", "content": "Book a flight."},
                      {"role": "assistant", "content": "", "tool_calls": [call("fl1ght000", "search_flights", {
                          "route": {"from": "CDG", "to": "HND"},
                          "passengers": [{"name": "Ana", "age": 34}, {"name": "Bo", "age": 7}],
                          "cabin": "première", "flexible": True, "max_price": Raw("999.5")})]},
                      {"role": "tool", "tool_call_id": "fl1ght000", "content": "[]"}],
         "tools": [SEARCH]})
    add("tool_result_json_text", "A tool result holding JSON text and newlines, written as is.",
        {"messages": [SYS, {"role": "user", "content": "Time?"},
                      {"role": "assistant", "content": "", "tool_calls": [call("t1m3t1m3t", "get_time", {"tz": "UTC"})]},
                      {"role": "tool", "tool_call_id": "t1m3t1m3t", "content": "{\n  \"time\": \"12:00\"\n}"}],
         "tools": [TIME]})
    add("second_system_message", "A system message after the first turn is its own [SYSTEM_PROMPT].",
        {"messages": [SYS, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
                      {"role": "user", "content": "Switch to French."}]})
    add("same_user_text_twice", "The template compares each user message with the last one: equal texts both get the tools.",
        {"messages": [SYS, {"role": "user", "content": "Again?"}, {"role": "assistant", "content": "Yes."},
                      {"role": "user", "content": "Again?"}], "tools": [PING]})
    add("markup_in_content", "Special-token lookalikes and brackets in user and assistant text are written as is.",
        {"messages": [SYS, {"role": "user", "content": "What does [INST] or [TOOL_CALLS mean?"},
                      {"role": "assistant", "content": "They are [markers] of the <prompt> format."}]})
    add("empty_user_content", "An empty user message.",
        {"messages": [SYS, {"role": "user", "content": ""}]})
    add("no_messages", "No messages: only the default system prompt.",
        {"messages": [], "options": TODAY})
    add("whitespace_kept", "Leading and trailing white space of every text is kept.",
        {"messages": [{"role": "system", "content": "  sys\n"}, {"role": "user", "content": "\n hi \n"},
                      {"role": "assistant", "content": " ok "}, {"role": "user", "content": "\tnext"}]})
    add("id_nine_not_alphanumeric", "The template checks an id's length only: 9 characters with a dash pass.",
        {"messages": [SYS, {"role": "user", "content": "Weather?"},
                      {"role": "assistant", "content": "", "tool_calls": [call("call-0001", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call-0001", "content": "Sunny"}],
         "tools": [WEATHER]})
    add("refuse_not_alternating", "Two user turns in a row: the template refuses.",
        {"messages": [SYS, {"role": "user", "content": "One"}, {"role": "user", "content": "Two"}]})
    add("refuse_assistant_first", "An assistant turn first: refused.",
        {"messages": [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "Hello"}]})
    return F
