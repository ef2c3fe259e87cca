"""Llama 3.3 chat template (../shared/templates/llama-3.3.jinja): the prompt
of llama-3.3-prompt, on the conversations of llama_3_1.py."""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "dialect_llama_3_1_base", os.path.join(os.path.dirname(os.path.abspath(__file__)), "llama_3_1.py"))
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)

DIALECT = "llama-3.3"
TEMPLATE = "llama-3.3"
template_vars = _base.template_vars
fixtures = _base.fixtures
