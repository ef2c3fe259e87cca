#!/usr/bin/env python3
"""Every decode fixture of the dialects a parser driver reads, through the driver
(docs/parsers.md, protocol 1), against the fixture's expected result (toolwire's
reference reading): one piece, then pieces of 1..8 bytes (seeded, so cuts land
inside special tokens). Writes OUT.md and OUT.json: per fixture what differs
(calls, names, arguments JSON-equal, content, reasoning, a throw, a retraction
while streaming), each difference matched against the declared differences
(--differences) or shown as a finding.

The stand-in for `toolwire parsers` on branches without it (scripts/parser-llama.sh
runs it); it reads the fixtures, not toolwire's decoders.

  compare.py --driver "CMD ARGS" [--out PATH] [--differences FILE] [--dialect NAME]...
             [--timeout SECONDS] [--seed N]
"""
import argparse
import glob
import json
import os
import random
import shlex
import subprocess
import sys

import fnmatch

CARRIED = ("tools", "forced_open")  # the options the protocol carries (docs/parsers.md)


def run(driver, req, timeout):
    try:
        p = subprocess.run(shlex.split(driver) + ["--parse"], input=json.dumps(req).encode(),
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "hang (over %s s)" % timeout
    if p.returncode != 0:
        return None, "driver exit %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-300:])
    lines = []
    for ln in p.stdout.decode().splitlines():
        try:
            lines.append(json.loads(ln))
        except ValueError:
            return None, "a line that is not JSON: %r" % ln[:200]
    if not lines or not lines[-1].get("final"):
        return None, "no final line"
    return lines, None


def openai_tools(fx, declare_called):
    tools = (fx.get("options") or {}).get("tools")
    if tools is None and not declare_called:
        return None  # none declared: absent, as toolwire parsers sends it
    if tools is None:  # --declare-called: the calls the reference reads, any arguments
        names = []
        for c in fx["expect"]["tool_calls"]:
            if c.get("name") and c["name"] not in names:
                names.append(c["name"])
        tools = [{"name": n, "description": "", "parameters": {"type": "object"}} for n in names]
    tools = [t["function"] if "function" in t else t for t in tools]  # either form
    return [{"type": "function", "function": {"name": t["name"],
                                              "description": t.get("description", ""),
                                              "parameters": t.get("parameters", {"type": "object"})}}
            for t in tools]


def cut(text, rng):
    b = text.encode()
    pieces, i = [], 0
    while i < len(b):
        n = rng.randint(1, 8)
        j = min(len(b), i + n)
        while j < len(b) and (b[j] & 0xC0) == 0x80:  # a JSON string holds whole characters
            j += 1
        pieces.append(b[i:j].decode())
        i = j
    return pieces or [""]


def args_of(a):
    if isinstance(a, str):
        try:
            return json.loads(a) if a else {}
        except ValueError:
            return a
    return a


def differences(fx, msg):
    """What differs between the driver's final message and the reference."""
    exp = fx["expect"]
    out = []
    if msg.get("error") and not exp["errors"]:
        out.append(("PRS-05", "throws: " + msg["error"].get("message", "")[:160]))
    en = [c["name"] for c in exp["tool_calls"]]
    gn = [c["name"] for c in msg["tool_calls"]]
    if en != gn:
        out.append(("PRS-01", "reference %s, parser %s" % (en, gn)))
    else:
        for i, (e, g) in enumerate(zip(exp["tool_calls"], msg["tool_calls"])):
            if args_of(e.get("arguments", {})) != args_of(g.get("arguments")):
                out.append(("PRS-02", "call %d: reference %s, parser %s" % (
                    i, json.dumps(e.get("arguments"))[:120], json.dumps(g.get("arguments"))[:120])))
    if exp["content"] != msg["content"]:
        out.append(("PRS-03", "reference %r, parser %r" % (exp["content"][:100], msg["content"][:100])))
    if exp["thinking"] != msg["reasoning"]:
        out.append(("PRS-04", "reference %r, parser %r" % (exp["thinking"][:100], msg["reasoning"][:100])))
    return out


def retractions(lines):
    """A shown message that takes back what an earlier one showed."""
    prev = None
    for ln in lines:
        m = ln["message"]
        if m.get("error"):
            continue
        if prev is not None:
            for k in ("content", "reasoning"):
                if not m[k].startswith(prev[k]):
                    return "piece %s: %s %r after %r" % (ln.get("piece", "final"), k, m[k][-40:], prev[k][-40:])
            if len(m["tool_calls"]) < len(prev["tool_calls"]):
                return "piece %s: %d calls after %d" % (ln.get("piece", "final"), len(m["tool_calls"]), len(prev["tool_calls"]))
            for a, b in zip(prev["tool_calls"], m["tool_calls"]):
                if a["name"] != b["name"]:
                    return "piece %s: call %r renamed %r" % (ln.get("piece", "final"), a["name"], b["name"])
        prev = m
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--out", default="build-llama/compare")
    ap.add_argument("--differences")
    ap.add_argument("--dialect", action="append")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--declare-called", action="store_true",
                    help="a fixture that declares no tools gets the tools its reference calls name")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    desc = json.loads(subprocess.run(shlex.split(a.driver) + ["--describe"], capture_output=True,
                                     check=True).stdout)
    declared = []
    if a.differences and os.path.exists(a.differences):
        declared = json.load(open(a.differences))["differences"]

    def expected(dialect, fx_name, rule, mode, check):
        for d in declared:
            if (fnmatch.fnmatchcase(dialect, d.get("dialect", "*")) and
                    fnmatch.fnmatchcase(fx_name, d.get("fixture", "*")) and
                    fnmatch.fnmatchcase(rule, d.get("rule", "*")) and
                    d.get("mode", mode) == mode and check in d["checks"]):
                return d["what"]
        return None
    results = []
    for entry in desc["dialects"]:
        dialect = entry["dialect"]
        if a.dialect and dialect not in a.dialect:
            continue
        for path in sorted(glob.glob(os.path.join(root, "tests/data/decode", dialect, "*.json"))):
            fx = json.load(open(path))
            name = dialect + "/" + os.path.basename(path)[:-5]
            opts = fx.get("options") or {}
            r = {"fixture": name, "description": fx.get("description", ""), "clean": not fx["expect"]["errors"]}
            if any(k not in CARRIED for k in opts) or "input" not in fx or "\0" in fx["input"]:
                r["skipped"] = "options the protocol does not carry" if "input" in fx else "bytes that are not UTF-8"
                results.append(r)
                continue
            req = {"protocol": 1, "dialect": dialect,
                   "options": {"reasoning": True, "forced_open": bool(opts.get("forced_open"))}}
            tools = openai_tools(fx, a.declare_called)
            if tools is not None:
                req["tools"] = tools
            rng = random.Random("%d %s" % (a.seed, name))
            req["pieces"] = [fx["input"]]
            batch, err = run(a.driver, req, a.timeout)
            if err:
                r["failure"] = err
                results.append(r)
                continue
            r["differences"] = [("whole",) + d for d in differences(fx, batch[-1]["message"])]
            # whether every call of the one-piece reading has arguments that are JSON (a call
            # cut short and handed over as finished has not: classify.py tells the two apart)
            r["arguments_json"] = all(not isinstance(args_of(c.get("arguments")), str)
                                      for c in batch[-1]["message"]["tool_calls"])
            req["pieces"] = cut(fx["input"], rng)
            stream, err = run(a.driver, req, a.timeout)
            if err:
                r["differences"].append(("stream", "PRS-08", err))
            else:
                r["differences"] += [("stream",) + d for d in differences(fx, stream[-1]["message"])]
                if stream[-1]["message"] != batch[-1]["message"]:
                    r["differences"].append(("stream", "PRS-07", "the streamed final differs from the batch one"))
                ret = retractions(stream)
                if ret:
                    r["differences"].append(("stream", "PRS-06", ret))
                r["stream_partial_errors"] = sum(1 for ln in stream[:-1] if ln["message"].get("error"))
            base = os.path.basename(path)[:-5]
            r["differences"] = [list(d) + [expected(dialect, base, fx.get("rule", ""), d[0], d[1])]
                                for d in r["differences"]]
            results.append(r)
    with open(a.out + ".json", "w") as f:
        json.dump({"parser": desc, "results": results}, f, indent=1)
    md = ["# %s %s against the decode fixtures\n" % (desc["parser"], desc["version"]), "",
          "| fixture | clean | what differs | declared |", "| --- | --- | --- | --- |"]
    counts = {"same": 0, "declared": 0, "finding": 0, "skipped": 0, "failure": 0}
    for r in results:
        if "skipped" in r:
            counts["skipped"] += 1
            continue
        if "failure" in r:
            counts["failure"] += 1
            md.append("| %s | %s | **%s** | |" % (r["fixture"], r["clean"], r["failure"].replace("|", "\\|")))
            continue
        if not r["differences"]:
            counts["same"] += 1
            continue
        found = [d for d in r["differences"] if not d[3]]
        counts["finding" if found else "declared"] += 1
        what = "; ".join("%s %s: %s" % tuple(d[:3]) for d in (found or r["differences"]))
        what = what.replace("|", "\\|").replace("\n", "\\n")
        md.append("| %s | %s | %s | %s |" % (r["fixture"], "yes" if r["clean"] else "no", what,
                                            "" if found else "; ".join(sorted(set(d[3] for d in r["differences"])))))
    md.insert(2, "Fixtures: %s\n" % ", ".join("%s %d" % kv for kv in counts.items()))
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    print(", ".join("%s %d" % kv for kv in counts.items()))


if __name__ == "__main__":
    sys.exit(main())
