"""Kimi K2 Thinking: the prompt encoder and reader kimi-k2-thinking-prompt
against the model's chat template (rendered into
tests/data/prompts/kimi-k2-thinking/ by tests/tools/render_dialect.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kimi_k2 import shared_fixtures, call  # noqa: E402
from render_qwen3 import WEATHER, TIME, SYS  # noqa: E402

TEMPLATE = "kimi-k2-thinking"
PLAIN_SANDBOX = True  # the template calls list.append


def fixtures():
    F = shared_fixtures()
    F.append(("thinking_history_dropped",
              "Reasoning before the last assistant answer without calls: written as <think></think>.",
              {"messages": [SYS, {"role": "user", "content": "2+2?"},
                            {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                            {"role": "user", "content": "3+3?"}],
               "options": {"add_generation_prompt": True}}))
    F.append(("thinking_kept_in_tool_loop",
              "Reasoning of the calls after the last plain answer is kept in <think>.",
              {"messages": [SYS, {"role": "user", "content": "Weather in Paris, then the time?"},
                            {"role": "assistant", "content": "", "thinking": "First the weather.",
                             "tool_calls": [call("functions.get_weather:0", "get_weather", {"city": "Paris"})]},
                            {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18°C"},
                            {"role": "assistant", "content": "Now the time.", "thinking": "Then the time — 東京?",
                             "tool_calls": [call("functions.get_time:1", "get_time", {"tz": "Europe/Paris"})]},
                            {"role": "tool", "tool_call_id": "functions.get_time:1", "content": "09:00"}],
               "tools": [WEATHER, TIME], "options": {"add_generation_prompt": True}}))
    F.append(("thinking_both_sides",
              "A plain answer with reasoning (dropped), then a call turn with reasoning (kept).",
              {"messages": [{"role": "user", "content": "Hi"},
                            {"role": "assistant", "content": "Hello!", "thinking": "Greet back."},
                            {"role": "user", "content": "Time in UTC?"},
                            {"role": "assistant", "content": "", "thinking": "Call get_time.",
                             "tool_calls": [call("functions.get_time:0", "get_time", {"tz": "UTC"})]},
                            {"role": "tool", "tool_call_id": "functions.get_time:0", "content": "12:00"}],
               "tools": [TIME], "options": {"add_generation_prompt": True}}))
    F.append(("last_answer_with_thinking",
              "The last message is an answer with reasoning: it is history, <think></think>.",
              {"messages": [{"role": "user", "content": "Why is the sky blue?"},
                            {"role": "assistant", "content": "Rayleigh scattering.",
                             "thinking": "Short physics answer."}]}))
    return F
