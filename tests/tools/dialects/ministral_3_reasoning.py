"""Ministral 3 reasoning (ministral-3-reasoning.jinja): renderings for the
encoder and reader ministral-3-reasoning-prompt (docs/formats/mistral.md). The
conversations of mistral_small_3_2.py and devstral_small.py, then its
reasoning and refusals. The template reads an assistant's reasoning from a
thinking chunk of its content: a message with reasoning is passed as the
chunks [thinking, text] (text left out when empty), as Mistral's own chat
completions do; bos_token and eos_token as Small 3.2's."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devstral_small as devstral  # noqa: E402
import mistral_small_3_2 as small  # noqa: E402
from render_qwen3 import CALC, TIME, WEATHER  # noqa: E402

DIALECT = "ministral-3-reasoning"
TEMPLATE = "ministral-3-reasoning"
SYS = small.SYS
call = small.call


def template_vars(request):
    kw = small.template_vars(request)
    for m in kw["messages"]:
        thinking = m.pop("reasoning_content", None)
        if thinking is not None and m["role"] == "assistant":
            blocks = [{"type": "thinking", "thinking": thinking}]
            if m["content"]:
                blocks.append({"type": "text", "text": m["content"]})
            m["content"] = blocks
    return kw


def reasoning_fixtures():
    F = []

    def add(name, description, request):
        F.append((name, description, request))

    add("thinking_then_answer", "An answer's reasoning as [THINK]…[/THINK] before its text.",
        {"messages": [SYS, {"role": "user", "content": "2+2?"},
                      {"role": "assistant", "content": "4", "thinking": "Simple sum: 2 and 2."},
                      {"role": "user", "content": "3+3?"}]})
    add("thinking_with_calls", "Reasoning, text and calls in one assistant turn.",
        {"messages": [SYS, {"role": "user", "content": "Weather in Paris and the time in Tokyo?"},
                      {"role": "assistant", "content": "Checking both.", "thinking": "Two tools, one turn.",
                       "tool_calls": [call("c1", "get_weather", {"city": "Paris"}),
                                      call("c2", "get_time", {"tz": "Asia/Tokyo"})]},
                      {"role": "tool", "tool_call_id": "c1", "content": "Rain"},
                      {"role": "tool", "tool_call_id": "c2", "content": "09:00"},
                      {"role": "assistant", "content": "Rain in Paris; 09:00 in Tokyo.",
                       "thinking": "Both answered — 東京 09:00."}],
         "tools": [WEATHER, TIME]})
    add("thinking_only_calls", "Reasoning and calls without text.",
        {"messages": [{"role": "user", "content": "Compute 6*7."},
                      {"role": "assistant", "content": "", "thinking": "Use calc.",
                       "tool_calls": [call("k", "calc", {"expr": "6*7"})]},
                      {"role": "tool", "tool_call_id": "k", "content": "42"}],
         "tools": [CALC]})
    add("thinking_only_answer", "An answer of reasoning alone (no text): the thinking chunk is its content.",
        {"messages": [SYS, {"role": "user", "content": "Think about it."},
                      {"role": "assistant", "content": "", "thinking": "  Hmm…\nstill thinking  "}]})
    add("refuse_later_system", "A system message after the first: the template supports user, assistant and tool roles only.",
        {"messages": [SYS, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
                      {"role": "system", "content": "Now answer in French."},
                      {"role": "user", "content": "Bonjour"}]})
    add("refuse_empty_assistant", "An assistant message with neither text nor calls.",
        {"messages": [SYS, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": ""},
                      {"role": "user", "content": "Still there?"}]})
    return F


def fixtures():
    return small.fixtures() + devstral.devstral_fixtures() + reasoning_fixtures()
