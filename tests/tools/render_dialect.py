#!/usr/bin/env python3
"""Render a model dialect's official chat template the way Hugging Face
transformers does, and write byte-exact fixtures for the dialect's prompt
encoder and reader (<dialect>-prompt).

Usage:
  render_dialect.py DIALECT [--out DIR]      write tests/data/prompts/DIALECT/NN_name.json
  render_dialect.py DIALECT --render REQ     print the rendering of one neutral request
                                             (or of a fixture's "request")
  render_dialect.py DIALECT --check          re-render every fixture and compare
  render_dialect.py --list                   the dialects (tests/tools/dialects/*.py)

A dialect is a module tests/tools/dialects/<stem>.py holding:
  DIALECT       (optional) the dialect's name, the prompt encoder's without
                "-prompt" ("deepseek-v3.1"); default the file stem with '_' read
                as '-'. The dialect may be named by it or by the file stem.
  TEMPLATE      the template's file stem in ../shared/templates (never copied)
  PLAIN_SANDBOX True when the template needs jinja2's SandboxedEnvironment
                (it calls list.append); default the ImmutableSandboxedEnvironment
  fixtures()    [(name, description, neutral request)], >= 20
  template_vars(request) (optional) the render() keyword arguments; default:
                messages and tools as an OpenAI-compatible server passes them
                (render_qwen3.map_message / map_tool), add_generation_prompt,
                and every other key of request["options"] passed as is
                (enable_thinking, thinking, reasoning_effort, ...).

The environment is render_qwen3.py's (trim_blocks, lstrip_blocks,
loopcontrols, transformers' tojson keeping non-ASCII, raise_exception) plus
strftime_now (a fixed date, 26 Jul 2024, so renderings are stable). A fixture
whose rendering raises (a TemplateError, or the TypeError of a template that
adds None to a string) holds "error", the message, in place of "expected". Exit 77 when jinja2 or the template is missing.
"""
import argparse
import datetime
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

try:
    import jinja2
    import jinja2.ext
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment
except ImportError:
    print("render_dialect: jinja2 is not installed; skipped", file=sys.stderr)
    sys.exit(77)

import render_qwen3 as rq  # noqa: E402  (the shared rendering pieces)

FIXED_NOW = datetime.datetime(2024, 7, 26, 12, 0, 0)


def _modules():
    """{dialect: path} of tests/tools/dialects/*.py: a module's DIALECT, or its
    file stem with '_' read as '-'."""
    d = os.path.join(HERE, "dialects")
    out = {}
    for n in sorted(os.listdir(d)):
        if not n.endswith(".py") or n.startswith("_"):
            continue
        path = os.path.join(d, n)
        name = n[:-3].replace("_", "-")
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("DIALECT"):
                    name = line.split("=", 1)[1].strip().strip("\"'")
                    break
        out[name] = path
    return out


def dialect_names():
    return sorted(_modules())


def load_dialect(name):
    """The module of a dialect, by its name or by its file stem."""
    mods = _modules()
    path = mods.get(name)
    if not path:
        stem = os.path.join(HERE, "dialects", name.replace("-", "_") + ".py")
        path = stem if os.path.exists(stem) else None
    if not path:
        sys.exit("render_dialect: no dialect %s (known: %s)" % (name, ", ".join(sorted(mods))))
    spec = importlib.util.spec_from_file_location("dialect_" + os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.DIALECT = getattr(mod, "DIALECT", os.path.basename(path)[:-3].replace("_", "-"))
    return mod


def compile_template(path, plain):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    cls = SandboxedEnvironment if plain else ImmutableSandboxedEnvironment
    env = cls(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = rq._tojson
    env.globals["raise_exception"] = rq._raise_exception
    env.globals["strftime_now"] = lambda fmt: FIXED_NOW.strftime(fmt)
    return env.from_string(source)


def default_vars(request):
    options = dict(request.get("options") or {})
    kw = {
        "messages": [rq.map_message(m) for m in request["messages"]],
        "tools": [rq.map_tool(t) for t in request["tools"]] if request.get("tools") else None,
        "add_generation_prompt": bool(options.pop("add_generation_prompt", False)),
    }
    kw.update(options)
    return kw


def render(mod, template, request):
    tv = getattr(mod, "template_vars", None) or default_vars
    return template.render(**tv(request))


def render_or_error(mod, template, request):
    try:
        return {"expected": render(mod, template, request)}
    except (TemplateError, TypeError) as e:  # a TypeError: the template adds None to a str
        return {"error": str(e)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dialect", nargs="?")
    ap.add_argument("--out")
    ap.add_argument("--render", metavar="REQUEST_JSON")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(dialect_names()))
        return 0
    if not args.dialect:
        ap.error("a dialect is needed (--list names them)")
    mod = load_dialect(args.dialect)
    path = rq.template_path(mod.TEMPLATE)
    if not os.path.exists(path):
        print("template not found: %s (skipping)" % path, file=sys.stderr)
        return 77
    template = compile_template(path, getattr(mod, "PLAIN_SANDBOX", False))
    out_dir = args.out or os.path.join(REPO, "tests", "data", "prompts", mod.DIALECT)

    if args.render:
        with open(args.render, encoding="utf-8") as f:
            data = json.load(f)
        if "request" in data and "messages" not in data:
            data = data["request"]
        sys.stdout.write(render(mod, template, data))
        return 0

    if args.check:
        bad = 0
        names = sorted(n for n in os.listdir(out_dir) if n.endswith(".json"))
        for n in names:
            with open(os.path.join(out_dir, n), encoding="utf-8") as f:
                fx = json.load(f)
            want = {k: fx[k] for k in ("expected", "error") if k in fx}
            if render_or_error(mod, template, fx["request"]) != want:
                print("MISMATCH %s" % n)
                bad += 1
        print("%s: %d fixtures, %d mismatches" % (mod.DIALECT, len(names), bad))
        if len(names) < 20:
            print("%s: fewer than 20 fixtures" % mod.DIALECT)
            return 1
        return 1 if bad else 0

    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        if old.endswith(".json"):
            os.remove(os.path.join(out_dir, old))
    for i, (fname, description, request) in enumerate(mod.fixtures(), 1):
        request_from_file = json.loads(rq.to_text(request))
        expected = render_or_error(mod, template, request_from_file)
        fpath = os.path.join(out_dir, "%02d_%s.json" % (i, fname))
        with open(fpath, "w", encoding="utf-8", newline="\n") as f:
            f.write(rq.dump_fixture(description, request, expected))
        print(fpath)
    return 0


if __name__ == "__main__":
    sys.exit(main())
