#!/usr/bin/env python3
"""Regenerate the tables of fixtures/README.md from the fixture files.

The text before the first folder heading and each folder's intro paragraph
are kept; the counts and the tables are rewritten. --check exits 1 when the
file on disk differs from what would be written.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIX = os.path.join(ROOT, "fixtures")
README = os.path.join(FIX, "README.md")


def rows(folder):
    out = []
    for name in sorted(os.listdir(os.path.join(FIX, folder))):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(FIX, folder, name), encoding="utf-8") as f:
            d = json.load(f)
        fails = []
        for x in d.get("exchanges", []):
            for c in x.get("expect", {}).get("failing_checks", []):
                if c["id"] not in fails:
                    fails.append(c["id"])
        desc = d.get("description", "").replace("|", "\\|").replace("\n", " ")
        out.append("| `%s` | %s | %s |" % (name[:-5], desc, ", ".join(fails) if fails else "—"))
    return out


def main():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"(?m)^## ", text)
    head, sections = parts[0], parts[1:]
    total = 0
    new_sections = []
    for sec in sections:
        title, _, body = sec.partition("\n")
        folder = re.sub(r"/ \(\d+\)$", "", title.strip()) if re.search(r"/ \(\d+\)$", title.strip()) else title.split("/")[0].strip()
        intro = body.split("\n| fixture |")[0].rstrip("\n")
        r = rows(folder)
        total += len(r)
        new_sections.append("%s/ (%d)\n%s\n\n| fixture | scenario | expected to fail |\n| --- | --- | --- |\n%s\n\n"
                            % (folder, len(r), intro, "\n".join(r)))
    head = re.sub(r"(?m)^\d+ fixtures\.$", "%d fixtures." % total, head)
    out = head + "".join("## " + s for s in new_sections)
    out = out.rstrip("\n") + "\n"
    if "--check" in sys.argv:
        sys.exit(0 if out == text else 1)
    with open(README, "w", encoding="utf-8") as f:
        f.write(out)


if __name__ == "__main__":
    main()
