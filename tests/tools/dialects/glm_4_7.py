"""GLM-4.7: the prompt encoder and reader glm-4.7-prompt against the model's
chat template (rendered into tests/data/prompts/glm-4.7/ by
tests/tools/render_dialect.py); the conversations of glm_4_6.py and the
template's own option, clear_thinking."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from glm_4_6 import shared_fixtures, call, USER_W  # noqa: E402
from render_qwen3 import WEATHER  # noqa: E402

DIALECT = "glm-4.7"
TEMPLATE = "glm-4.7"


def fixtures():
    F = shared_fixtures()
    F.append(("clear_thinking_off", "clear_thinking false: the reasoning of every turn is kept.",
              {"messages": [{"role": "user", "content": "2+2?"},
                            {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                            {"role": "user", "content": "3+3?"}],
               "options": {"add_generation_prompt": True, "clear_thinking": False}}))
    F.append(("clear_thinking_on", "clear_thinking true: as the default.",
              {"messages": [{"role": "user", "content": "2+2?"},
                            {"role": "assistant", "content": "4", "thinking": "Simple sum."},
                            {"role": "user", "content": "3+3?"}],
               "options": {"add_generation_prompt": True, "clear_thinking": True}}))
    return F
