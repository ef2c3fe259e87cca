"""Devstral Small 2507 (devstral-small.jinja): renderings for the encoder and
reader devstral-small-prompt (docs/formats/mistral.md). The conversations of
mistral_small_3_2.py, then what only Devstral's template shows: no call ids,
an assistant's content before its calls, the tools once after the system
prompt, no roles check. bos_token and eos_token as Small 3.2's (<s>, </s>)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mistral_small_3_2 as small  # noqa: E402
from render_qwen3 import CALC, SEARCH, TIME, WEATHER  # noqa: E402

DIALECT = "devstral-small"
TEMPLATE = "devstral-small"
template_vars = small.template_vars
SYS = small.SYS
call = small.call


def devstral_fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("content_beside_calls", "An assistant's text is written before its calls.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "Let me check.",
                       "tool_calls": [call("call_1", "get_weather", {"city": "Paris"})]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
                      {"role": "assistant", "content": "Sunny in Paris."}],
         "tools": [WEATHER]})
    add("ids_of_any_length", "Ids the template does not write: any length passes (Small 3.2 refuses them).",
        {"messages": [SYS, {"role": "user", "content": "Time in Tokyo and Lima?"},
                      {"role": "assistant", "content": "", "tool_calls": [
                          call("toolu_01A", "get_time", {"tz": "Asia/Tokyo"}),
                          call("x", "get_time", {"tz": "America/Lima"})]},
                      {"role": "tool", "tool_call_id": "toolu_01A", "content": "09:00"},
                      {"role": "tool", "tool_call_id": "x", "content": "19:00"}],
         "tools": [TIME]})
    add("tools_then_multi_turn", "The tools once after the system prompt, however many user turns follow.",
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
                      {"role": "user", "content": "Compute 2+2."},
                      {"role": "assistant", "content": "", "tool_calls": [call("c1", "calc", {"expr": "2+2"})]},
                      {"role": "tool", "tool_call_id": "c1", "content": "4"},
                      {"role": "assistant", "content": "4."},
                      {"role": "user", "content": "Thanks!"}],
         "tools": [CALC, SEARCH]})
    add("thinking_dropped", "Thinking of an assistant message has no place in the template.",
        {"messages": [SYS, {"role": "user", "content": "2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                      {"role": "user", "content": "3+3?"}]})
    add("two_call_turns", "Two call turns in a row, each answered; the results follow their calls in order.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Oslo, then the time there."},
                      {"role": "assistant", "content": "", "tool_calls": [call("a", "get_weather", {"city": "Oslo"})]},
                      {"role": "tool", "tool_call_id": "a", "content": "−3 °C, snow ❄"},
                      {"role": "assistant", "content": "Now the time.", "tool_calls": [call("b", "get_time", {"tz": "Europe/Oslo"})]},
                      {"role": "tool", "tool_call_id": "b", "content": "08:15"}],
         "tools": [WEATHER, TIME]})
    add("user_turns_in_a_row", "Devstral's template checks no roles: two user turns in a row are written.",
        {"messages": [{"role": "user", "content": "One"}, {"role": "user", "content": "Two"},
                      {"role": "assistant", "content": "Both read."}]})
    return F


def shared_fixtures():
    """Small 3.2's conversations; the ones Small refuses for their roles are
    written by Devstral, whose template checks none: named for what they show."""
    F = []
    for name, description, request in small.fixtures():
        if name.startswith("refuse_"):
            name = "unchecked_" + name[len("refuse_"):]
            description = description.split(":")[0] + ": written, Devstral checks no roles (Small 3.2 refuses)."
        F.append((name, description, request))
    return F


def fixtures():
    return shared_fixtures() + devstral_fixtures()
