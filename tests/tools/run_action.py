#!/usr/bin/env python3
"""Run the `run:` steps of a composite GitHub Action (action.yml), or of one job of a workflow,
the way a runner does.

    run_action.py ACTION.yml [--input NAME=VALUE]... [--set EXPR=VALUE]...
    run_action.py --job FILE JOB [--set EXPR=VALUE]...

--job runs the steps of job JOB of a workflow: FILE is a workflow, or a Markdown page whose
```yaml block holding `jobs:` is one (docs/ci-gate.md's matrix example); there a step that
installs or builds toolwire (scripts/deps.sh, scripts/build.sh) is not run: build/toolwire in
the current directory stands for what it builds. --set gives an expression's value
(matrix.shard=1, vars.STAGING_URL=URL, secrets.KEY=VALUE).

Each step's `${{ inputs.x }}`, `${{ github.action_path }}`, `${{ github.workspace }}` and
`${{ steps.ID.outputs.X }}` are substituted; its `env:` is set; its script runs as GitHub runs
`shell: bash` (bash --noprofile --norc -eo pipefail FILE) with GITHUB_ENV, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY (kept from the environment when set) and GITHUB_ACTIONS=true. What a step
writes to GITHUB_ENV reaches the later steps, what it writes to GITHUB_OUTPUT its outputs. A step
runs when its `if:` holds (success() by default; always(), failure(), `&&`, `||`, `!`, `==` and
`!=` of inputs and strings are understood); `uses:` steps are listed, not run. The exit status
is the first failing step's (the action's), 0 when none fails.
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # Debian: python3-yaml
    print("run_action.py: python3 yaml module missing (python3-yaml)")
    sys.exit(77)

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def value_of(ref, ctx):
    if ref in ctx["set"]:
        return ctx["set"][ref]
    parts = ref.split(".")
    if parts[0] == "inputs" and len(parts) == 2:
        return ctx["inputs"].get(parts[1], "")
    if parts[0] == "github" and len(parts) == 2:
        return ctx["github"].get(parts[1], "")
    if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
        return ctx["steps"].get(parts[1], {}).get(parts[3], "")
    raise SystemExit(f"run_action.py: expression not understood: {ref}")


def evaluate(expr, ctx, failed):
    """A GitHub expression of the kinds the action uses, as a Python value."""
    tokens = re.findall(r"'(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|[A-Za-z_][\w.-]*\(\)|[A-Za-z_][\w.-]*", expr)
    py = []
    for t in tokens:
        if t.startswith("'"):
            py.append(repr(t[1:-1].replace("''", "'")))
        elif t == "&&":
            py.append(" and ")
        elif t == "||":
            py.append(" or ")
        elif t == "!":
            py.append(" not ")
        elif t in ("==", "!=", "(", ")"):
            py.append(t)
        elif t == "always()":
            py.append("True")
        elif t == "success()":
            py.append(repr(not failed))
        elif t == "failure()":
            py.append(repr(failed))
        elif t == "cancelled()":
            py.append("False")
        elif t in ("true", "false"):
            py.append(repr(t == "true"))
        else:
            py.append(repr(value_of(t, ctx)))
    return eval("".join(py), {"__builtins__": {}})  # noqa: S307 (tokens above only)


def substitute(text, ctx):
    return EXPR.sub(lambda m: str(value_of(m.group(1), ctx)), str(text))


def read_kv(path):
    """KEY=VALUE lines and KEY<<DELIM … DELIM blocks (GITHUB_ENV, GITHUB_OUTPUT)."""
    out = {}
    if not os.path.exists(path):
        return out
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            i += 1
            out[key] = "\n".join(body)
        elif "=" in line:
            key, val = line.split("=", 1)
            out[key] = val
    return out


def load_job(path, job):
    """The steps of a workflow's job, from a workflow file or a Markdown page's yaml block."""
    text = open(path, encoding="utf-8").read()
    if path.endswith(".md"):
        blocks = [b for b in re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M) if "jobs:" in b]
        if not blocks:
            raise SystemExit(f"run_action.py: no ```yaml block with jobs: in {path}")
        text = blocks[0]
    jobs = yaml.safe_load(text)["jobs"]
    if job not in jobs:
        raise SystemExit(f"run_action.py: {path} has no job {job!r} (jobs: {', '.join(jobs)})")
    steps = []
    for step in jobs[job]["steps"]:
        step = dict(step)
        step.setdefault("shell", "bash")
        if "run" in step and re.search(r"scripts/(deps|build)\.sh", step["run"]):
            step["skip"] = "installs or builds toolwire: build/toolwire is the one built"
        steps.append(step)
    return {"runs": {"using": "composite", "steps": steps}}


def main():
    usage = "usage: run_action.py ACTION.yml | --job FILE JOB [--input NAME=VALUE]... [--set EXPR=VALUE]..."
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "--job":
        action_file, action = os.path.abspath(args[1]), load_job(args[1], args[2])
        args = args[3:]
    elif args and not args[0].startswith("--"):
        action_file = os.path.abspath(args[0])
        with open(action_file, encoding="utf-8") as f:
            action = yaml.safe_load(f)
        args = args[1:]
    else:
        raise SystemExit(usage)
    given, sets = {}, {}
    while args:
        if args[0] not in ("--input", "--set") or len(args) < 2 or "=" not in args[1]:
            raise SystemExit(f"run_action.py: bad argument {args[0]!r} ({usage})")
        k, v = args[1].split("=", 1)
        (given if args[0] == "--input" else sets)[k] = v
        args = args[2:]
    declared = action.get("inputs", {}) or {}
    for k in given:
        if k not in declared:
            raise SystemExit(f"run_action.py: the action has no input {k!r}")
    inputs = {}
    for k, spec in declared.items():
        if k in given:
            inputs[k] = given[k]
        elif spec.get("required") and "default" not in spec:
            raise SystemExit(f"run_action.py: input {k!r} is required")
        else:
            inputs[k] = str(spec.get("default", ""))
    runs = action["runs"]
    if runs.get("using") != "composite":
        raise SystemExit("run_action.py: not a composite action")
    work = tempfile.mkdtemp(prefix="run-action.")
    env = dict(os.environ)
    env["GITHUB_ACTIONS"] = "true"
    env.setdefault("GITHUB_WORKSPACE", os.getcwd())
    env.setdefault("GITHUB_STEP_SUMMARY", os.path.join(work, "summary.md"))
    env["GITHUB_ENV"] = os.path.join(work, "env")
    open(env["GITHUB_ENV"], "w").close()
    ctx = {
        "inputs": inputs,
        "github": {"action_path": os.path.dirname(action_file), "workspace": env["GITHUB_WORKSPACE"]},
        "steps": {},
        "set": sets,
    }
    status = 0
    for n, step in enumerate(runs["steps"]):
        name = step.get("name", f"step {n + 1}")
        cond = step.get("if", "success()")
        cond = EXPR.sub(lambda m: m.group(1), str(cond))
        if not re.search(r"\b(always|success|failure|cancelled)\(\)", cond):
            cond = f"success() && ({cond})"
        if not evaluate(cond, ctx, status != 0):
            print(f"run_action.py: -- {name}: skipped (if: {step.get('if', 'success()')})", flush=True)
            continue
        if "skip" in step:
            print(f"run_action.py: -- {name}: not run ({step['skip']})", flush=True)
            continue
        if "uses" in step:
            print(f"run_action.py: -- {name}: uses {step['uses']} (not run here)", flush=True)
            continue
        if step.get("shell") != "bash":
            raise SystemExit(f"run_action.py: step {name!r}: shell {step.get('shell')!r}, bash expected")
        script = os.path.join(work, f"step{n}.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(substitute(step["run"], ctx))
        senv = dict(env)
        senv.update(read_kv(env["GITHUB_ENV"]))
        for k, v in (step.get("env") or {}).items():
            senv[k] = substitute(v, ctx)
        senv["GITHUB_OUTPUT"] = os.path.join(work, f"output{n}")
        open(senv["GITHUB_OUTPUT"], "w").close()
        print(f"run_action.py: -- {name}", flush=True)
        rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], env=senv)
        if "id" in step:
            ctx["steps"][step["id"]] = read_kv(senv["GITHUB_OUTPUT"])
        print(f"run_action.py: -- {name}: exit {rc}", flush=True)
        if rc != 0 and status == 0:
            status = rc
    sys.exit(status)


if __name__ == "__main__":
    main()
