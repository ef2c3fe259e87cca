#!/usr/bin/env python3
"""A parser driver that misbehaves on purpose (docs/parsers.md, "Tests").

usage: misbehave.py TOOLWIRE MODE (--describe | --parse)

It wraps toolwire's own driver (`TOOLWIRE parser-driver`), whose answers pass every check, and
spoils them in one way, MODE:
  retract   a piece's content gets a byte the next message does not have (PRS-06)
  rename    the first piece that shows a call shows it under another name (PRS-06)
  differ    every message reads the first call's arguments with one more member (PRS-02)
  crash     dies on a signal after its first line (PRS-08)
  hang      never answers (PRS-08, killed at --timeout)
  garbage   prints a line that is not JSON (PRS-08)
  baddialect  --describe names a dialect toolwire has no decoder of (exit 2)
  describegarbage  --describe prints a line that is not JSON (exit 2)
  finalonly   prints only the final line, no piece line (PRS-08)
  stringargs  behaves: every call's arguments given as their JSON text, a string (passes)
"""
import json
import os
import signal
import subprocess
import sys
import time

TOOLWIRE, MODE, ARG = sys.argv[1], sys.argv[2], sys.argv[3]


def own(arg, data=b""):
    r = subprocess.run([TOOLWIRE, "parser-driver", arg], input=data, capture_output=True, check=True)
    return r.stdout.decode("utf-8")


if ARG == "--describe" and MODE == "describegarbage":
    print("usage: parser [--help]\tno \"describe\" here")
    sys.exit(0)
if ARG == "--describe":
    d = json.loads(own("--describe"))
    d["parser"] = "misbehave-" + MODE
    if MODE == "baddialect":
        d["dialects"].append({"dialect": "nonesuch"})
    print(json.dumps(d))
    sys.exit(0)

request = sys.stdin.buffer.read()
lines = [json.loads(l) for l in own("--parse", request).splitlines() if l.strip()]
if MODE == "hang":
    time.sleep(600)
spoiled = False
if MODE == "finalonly":
    lines = [l for l in lines if l.get("final")]
for i, line in enumerate(lines):
    m = line["message"]
    last_piece = i + 2 >= len(lines)
    if MODE == "retract" and not spoiled and "piece" in line and m["content"] and not last_piece:
        m["content"] += "~"
        spoiled = True
    elif MODE == "rename" and not spoiled and "piece" in line and m["tool_calls"]:
        m["tool_calls"][0]["name"] += "_renamed"
        spoiled = True
    elif MODE == "differ" and m["tool_calls"] and isinstance(m["tool_calls"][0]["arguments"], dict):
        m["tool_calls"][0]["arguments"]["extra"] = 1
    elif MODE == "stringargs":
        for c in m["tool_calls"]:
            c["arguments"] = json.dumps(c["arguments"])
    elif MODE == "garbage" and i == 1:
        print("this is not JSON", flush=True)
    print(json.dumps(line), flush=True)
    if MODE == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
