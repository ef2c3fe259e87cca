#!/usr/bin/env python3
"""Sort the differences compare.py found (OUT.json) into the deliberate ones, by rule, and
write them as expected differences (docs/parsers.md format); print the rest, the findings.

  classify.py COMPARE.json EXPECTED.json

Each rule below is one reason llama.cpp reads differently on purpose; a difference no rule
explains stays a finding (reports/parsers/README.md says which are defects). The rules read
the fixture and the difference, never a list of fixture names, so a new fixture is sorted the
same way when the file is written again."""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EOG = {"hermes": ["<|im_end|>", "<|endoftext|>"], "qwen3-coder": ["<|im_end|>", "<|endoftext|>"],
       "harmony": ["<|return|>", "<|call|>"], "deepseek-v3.1": ["<｜end▁of▁sentence｜>"],
       "dsml": ["<｜end▁of▁sentence｜>"], "kimi-k2": ["<|im_end|>"], "mistral": ["</s>"],
       "llama3": ["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"],
       "glm": ["<|user|>", "<|observation|>", "<|endoftext|>"], "minimax-m2": ["[e~["],
       "gemma4": ["<turn|>", "<eos>"]}
# the errors of a call the model finished but toolwire refuses (no-schema); a call cut short
# (tool_call_unterminated, xml_param_unclosed) read as finished is a finding, not this rule:
# llama.cpp hands over its arguments cut, not JSON (reports/parsers/README.md)
UNCLOSED = {"tool_call_unterminated"}  # whole, but its block not closed: the unclosed rule
REFUSED_CALL = {"args_schema", "arguments_not_object", "unknown_tool", "xml_value_type"}
REASONING_OPEN = {"qwen3-coder": None, "mistral": None}  # templates without a reasoning block

RULES = {
    "no-tools": ("no tools declared: the calls stay in the content",
                 "llama-server builds the tool-call parser from the request's tools; a request "
                 "without tools gets a parser that reads content (and reasoning) only"),
    "white-space": ("white space around the content or the reasoning is kept",
                    "llama.cpp hands the text between the markers as the model wrote it; toolwire "
                    "trims it (docs/text-formats.md)"),
    "no-schema": ("a call toolwire refuses (schema, unknown tool, bad arguments) is read",
                  "llama.cpp checks no argument schema when it parses: the grammar it builds from "
                  "the tools constrains the model while it samples instead"),
    "unclosed": ("a call whose block the text never closes is read, its arguments whole",
                 "llama.cpp's final parse takes the end of the text for the end of a call whose "
                 "arguments are complete; toolwire refuses a block that never closed "
                 "(tool_call_unterminated): a difference of rule (reports/parsers/README.md); a "
                 "call cut inside its arguments stays a finding"),
    "stops-at-eog": ("text after an end-of-generation token is not read",
                     "llama-server stops generating at the first end-of-generation token and "
                     "renders it as nothing, so its parser never sees what follows"),
    "template-reasoning": ("reasoning is where the template's generation prompt puts it",
                           "llama.cpp prepends the template's generation prompt to the text: a "
                           "template that opens the reasoning itself (or has none) decides, not "
                           "the text's own tags"),
}


def has_eog_inside(dialect, text):
    for t in EOG.get(dialect, []):
        i = text.find(t)
        if i >= 0 and text[i + len(t):].strip():
            return True
    return False


def parser_reads_more(exp, what):
    """Whether a PRS-01 difference is the parser reading more calls than the reference."""
    return len(eval(what.split(", parser ", 1)[1])) > len(exp["tool_calls"])


def text_placed(exp, differences):
    """Whether the parser's one-piece reading only placed the text elsewhere (content read as
    reasoning or the other way round): every text of the reference's content and reasoning is
    in the parser's content or reasoning, and no call of the reference was lost. A text that
    went nowhere, or a call lost into the reasoning, is no deliberate placement but a finding
    (reports/parsers/README.md: a stray channel close dropping the answer, a call written
    before the reasoning's end kept as reasoning)."""
    got = {"PRS-03": exp["content"], "PRS-04": exp["thinking"]}
    for mode, check, what, _declared in differences:
        if mode != "whole":
            continue
        if check == "PRS-01":
            try:
                ref, par = what[len("reference "):].split(", parser ", 1)
                if len(eval(par)) < len(eval(ref)):
                    return False  # a call of the reference was not read
            except Exception:
                return False
        if check in got:
            try:
                got[check] = eval(what.split(", parser ", 1)[1])
            except Exception:
                return False  # cannot tell: a finding
    texts = got["PRS-03"] + "\n" + got["PRS-04"]
    for ref in (exp["content"], exp["thinking"]):
        ref = ref.strip()[:50]  # the values compare.py printed are cut at 100 characters
        if ref and ref not in texts:
            return False
    return True


def main():
    res = json.load(open(sys.argv[1]))
    entries, findings = {}, []
    for r in res["results"]:
        if not r.get("differences"):
            continue
        dialect, name = r["fixture"].split("/")
        fx = json.load(open(os.path.join(ROOT, "tests/data/decode", r["fixture"] + ".json")))
        opts = fx.get("options") or {}
        exp = fx["expect"]
        if "\\u0000" in fx["input"]:
            continue  # U+0000 in what the reference reads: toolwire parsers skips the fixture
        placed = text_placed(exp, r["differences"])
        for mode, check, what, _declared in r["differences"]:
            rule = None
            if dialect == "minimax-m2" and not opts.get("forced_open") and check != "PRS-05":
                rule = "template-reasoning"  # the template opens <think> itself: all is reasoning
            elif "tools" not in opts and check in ("PRS-01", "PRS-02", "PRS-03", "PRS-04", "PRS-06"):
                rule = "no-tools"
            elif has_eog_inside(dialect, fx["input"]) and check in ("PRS-01", "PRS-02", "PRS-03", "PRS-04"):
                rule = "stops-at-eog"
            elif check in ("PRS-03", "PRS-04"):
                key = "content" if check == "PRS-03" else "thinking"
                got = what.split(", parser ", 1)[1] if ", parser " in what else None
                ref = exp[key]
                try:
                    got = eval(got)  # the repr compare.py printed, cut at 100 characters
                except Exception:
                    got = None
                if got is not None and got.strip() == ref.strip() and len(got) < 100:
                    rule = "white-space"
                elif placed and dialect in ("minimax-m2", "gemma4", "qwen3-coder", "mistral") and (
                        "think" in fx["input"].lower() or "THINK" in fx["input"] or "channel" in fx["input"]
                        or dialect == "minimax-m2"):
                    rule = "template-reasoning"
            elif check == "PRS-01" and exp["errors"] and parser_reads_more(exp, what):
                codes = {e.get("code") if isinstance(e, dict) else e for e in exp["errors"]}
                if codes <= UNCLOSED and r.get("arguments_json"):
                    rule = "unclosed"
                elif codes <= REFUSED_CALL:
                    rule = "no-schema"
            if rule is None:
                findings.append((r["fixture"], mode, check, what))
                continue
            e = entries.setdefault((dialect, name, rule), set())
            e.add((mode, check))
    out = {"parser": "llama.cpp", "differences": []}
    for (dialect, name, rule), checks in sorted(entries.items()):
        modes = {m for m, _ in checks}
        d = {"dialect": dialect, "fixture": name}
        if len(modes) == 1:
            d["mode"] = modes.pop()
        d["checks"] = sorted({c for _, c in checks})
        d["what"], d["reason"] = RULES[rule]
        out["differences"].append(d)
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%d expected differences (%s); %d findings:" % (
        len(out["differences"]), ", ".join("%s %d" % (k, sum(1 for e in entries if e[2] == k)) for k in RULES),
        len(findings)))
    for f in findings:
        print("  %s [%s] %s: %s" % (f[0], f[1], f[2], f[3][:220].replace("\n", "\\n")))


if __name__ == "__main__":
    main()
