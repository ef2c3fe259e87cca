"""Writing and checking generated decode fixtures: one routine for every generator.

`run(cases, out, formats, sanity, render)` writes each case to OUT/FORMAT/NAME.json, or with
`--check` compares the files with what would be written and reports stale, missing and
unexpected files (a file in a generated directory that no case writes, unless it was written
by hand: its input is given as bytes, `input_hex`). Returns the process exit status.
"""

import json
import os
import sys


def hand_made(path):
    """A fixture written by hand beside the generated ones: those whose input
    is given as bytes (`input_hex`, for inputs a JSON string cannot hold)."""
    try:
        with open(path, encoding="utf-8") as f:
            return "input_hex" in json.load(f)
    except (OSError, ValueError):
        return False


def run(cases, out, formats, sanity, render, argv=None):
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    wanted = {}
    for fmt, name, obj in cases:
        path = os.path.join(out, fmt, name + ".json")
        assert path not in wanted, "duplicate case " + path
        sanity(fmt, name, obj)
        wanted[path] = render(obj)
    bad = 0
    for path, text in sorted(wanted.items()):
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        print("stale: " + path)
                        bad += 1
            except FileNotFoundError:
                print("missing: " + path)
                bad += 1
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
    for fmt in formats:
        d = os.path.join(out, fmt)
        if os.path.isdir(d):
            for fn in sorted(os.listdir(d)):
                p = os.path.join(d, fn)
                if fn.endswith(".json") and p not in wanted and not hand_made(p):
                    print("not generated (stale file): " + p)
                    bad += 1 if check else 0
    counts = {}
    for fmt, _, _ in cases:
        counts[fmt] = counts.get(fmt, 0) + 1
    print(("checked" if check else "wrote") + " %d fixtures: %s" % (
        len(cases), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 1 if bad else 0
