#!/usr/bin/env python3
"""The files and rooms of src/ and harness/ use one another without a circle,
and src/ uses nothing of harness/ or fuzz/.

Three graphs are checked:

- includes between modules. A module is a file name without its ending
  (openai for src/openai.c, src/openai.h and include/toolwire/openai.h).
  Module X depends on module Y when X.c or X.h includes Y.h (by any path) and
  a Y.c exists in src/ or harness/.
- names between the files of harness/ (with a build directory). File X.c
  uses file Y.c when the object of X.c refers to a function or object that
  the object of Y.c defines (nm of the objects CMake built). A header without
  code of its own joins no include cycle, but the names are where one file
  leans on another: no circle of such uses between files.
- rooms. harness/ is in rooms (docs/architecture.md), ordered lowest first in
  ROOMS, with src/ below them all. A room uses another when one of its files
  includes a header of that room or (with a build directory) uses a name one
  of its files defines; a room uses only rooms below it.

Usage: include_graph.py SOURCE_DIR [BUILD_DIR] [--nm NM]
                                 (default: the tree this file is in, no build)
       include_graph.py --self-test [--cc CC] [--nm NM]
                                 (the checker finds a planted circle of each
                                  kind and a planted src/ -> harness/ include)
Exit status 0 when the graphs are clean, 1 with the problems on stderr.
"""
import glob
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
LAYERS = ("src", "harness")
# the layers whose files are checked by names (src/ by its includes only)
NAME_LAYERS = ("harness",)
# The rooms of harness/, lowest first: a room uses only rooms before it here
# (and src/, below them all). docs/architecture.md says what each holds.
ROOMS = ("redact", "common", "fixture", "checks", "backends", "proxy", "report", "run", "record",
         "clients", "parsers", "cli")


def sources(root, layer):
    d = os.path.join(root, layer)
    if not os.path.isdir(d):
        return []
    out = []
    for top, dirs, files in os.walk(d):
        dirs.sort()
        rel = os.path.relpath(top, d)
        out += [f if rel == "." else os.path.join(rel, f) for f in files if f.endswith((".c", ".h"))]
    return sorted(out)


def module(name):
    return os.path.splitext(os.path.basename(name))[0]


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def components(nodes, edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        work = [(v, iter(sorted(edges.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(set(comp))

    for v in sorted(set(edges) | set(nodes)):
        if v not in index:
            strong(v)
    return comps


def shortest_cycle(comp, edges):
    """A shortest way from the least node of comp back to it, inside comp."""
    start = min(comp)
    prev, frontier, path = {start: None}, [start], None
    while frontier and path is None:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, {})):
                if w not in comp:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path.reverse()
                    break
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
            if path:
                break
        frontier = nxt
    return path + [start]


def cycles(kind, nodes, edges):
    """One problem per circle of edges (node -> {node: why}), each named by a shortest cycle."""
    problems = []
    for comp in components(nodes, edges):
        cyc = shortest_cycle(comp, edges)
        steps = ["%s (%s)" % (cyc[i], edges[cyc[i]][cyc[i + 1]]) for i in range(len(cyc) - 1)]
        problems.append("%s cycle: %s -> %s   [in it: %s]"
                        % (kind, " -> ".join(steps), cyc[0], ", ".join(sorted(comp))))
    return problems


def room_of(path):
    """The room of a file given as layer/…: src for src/, the folder under harness/."""
    parts = path.split("/")
    if parts[0] == "src":
        return "src"
    return parts[1] if len(parts) > 2 else ""


def nm_names(nm, obj):
    """The external names an object defines and the ones it uses."""
    out = subprocess.run([nm, "-P", obj], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or f[0].endswith(":"):
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            uses.add(name)
        elif kind in "TDBRCGSVWI":
            defs.add(name)
    return defs, uses


def objects(root, build, nm):
    """{layer/file.c: (defines, uses)} from the objects CMake built of each source."""
    names, missing = {}, []
    for layer in NAME_LAYERS:
        for f in sources(root, layer):
            if not f.endswith(".c") or f.startswith("template/"):
                continue  # src/template/ is the skeleton a format copies, not built into the library
            rel = "%s/%s" % (layer, f)
            found = sorted(glob.glob(os.path.join(build, "CMakeFiles", "*.dir", rel + ".o")))
            if not found:
                missing.append(rel)
                continue
            names[rel] = nm_names(nm, found[0])
    return names, missing


def check(root, build=None, nm="nm", rooms=ROOMS):
    """The problems of the tree at root (empty when clean) and a summary line."""
    problems = []

    # modules with code of their own
    coded = set()
    for layer in LAYERS:
        coded |= {module(f) for f in sources(root, layer) if f.endswith(".c")}
    if not coded:
        return ["no sources under %s" % root], ""

    # src/ may include its own files and the installed headers, nothing of harness/ or fuzz/
    for f in sources(root, "src"):
        for inc in includes(os.path.join(root, "src", f)):
            here = os.path.normpath(os.path.join(root, "src", inc))
            in_lib = os.path.exists(here) or os.path.exists(os.path.join(root, "include", inc))
            parts = os.path.normpath(inc).split(os.sep)
            if "harness" in parts or "fuzz" in parts or not in_lib:
                problems.append("src/%s includes \"%s\", which is not of the library" % (f, inc))

    # include edges between modules X -> Y, with the file whose include makes each;
    # room edges by includes, with the file and the header
    edges, room_edges = {}, {}
    header_room = {os.path.basename(f): room_of("harness/" + f)
                   for f in sources(root, "harness") if f.endswith(".h")}
    for layer in LAYERS:
        for f in sources(root, layer):
            x = module(f)
            here = "%s/%s" % (layer, f)
            for inc in includes(os.path.join(root, layer, f)):
                if not inc.endswith(".h"):
                    continue
                if layer == "harness" and os.path.basename(inc) in header_room:
                    r = header_room[os.path.basename(inc)]
                    room_edges.setdefault(room_of(here), {}).setdefault(r, '%s includes "%s"' % (here, inc))
                y = module(inc)
                if y == x or y not in coded:
                    continue
                edges.setdefault(x, {}).setdefault(y, here)
    problems += cycles("include", coded, edges)
    summary = "%d modules, %d include dependencies" % (len(coded), sum(len(v) for v in edges.values()))

    # name edges between files: X.c uses a function or object that Y.c defines
    if build:
        names, missing = objects(root, build, nm)
        problems += ["no object of %s under %s (build first)" % (m, build) for m in missing]
        owner = {}
        for f in sorted(names):
            for d in names[f][0]:
                owner.setdefault(d, f)
        used = {}
        for f in sorted(names):
            for u in names[f][1]:
                g = owner.get(u)
                if g and g != f:
                    used.setdefault(f, {}).setdefault(g, set()).add(u)
        file_edges = {}
        for f, targets in used.items():
            for g, syms in targets.items():
                s = sorted(syms)
                why = ", ".join(s[:3]) + (", …" if len(s) > 3 else "")
                file_edges.setdefault(f, {})[g] = why
                if room_of(f) != room_of(g):
                    room_edges.setdefault(room_of(f), {}).setdefault(room_of(g), "%s uses %s of %s"
                                                                     % (f, why, g))
        problems += cycles("name", names, file_edges)
        summary += ", %d files, %d name dependencies" % (len(names),
                                                         sum(len(v) for v in file_edges.values()))

    # rooms: each file of harness/ in a room of the order, a room uses only rooms below it
    order = {r: i for i, r in enumerate(rooms)}
    order["src"] = -1
    for f in sources(root, "harness"):
        r = room_of("harness/" + f)
        if r not in order:
            problems.append("harness/%s is in no room of the order (%s)" % (f, ", ".join(rooms)))
    for a in sorted(room_edges):
        for b, why in sorted(room_edges[a].items()):
            if a != b and a in order and b in order and order[b] > order[a]:
                problems.append("room %s uses room %s, which is above it: %s" % (a, b, why))
    summary += ", %d rooms in order" % len(rooms)
    return problems, summary + ", no cycle"


def self_test(cc, nm):
    import shutil
    import tempfile

    def tree(files):
        d = tempfile.mkdtemp(prefix="include_graph.")
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        # the objects, where CMake puts them
        dirs = sorted({os.path.dirname(os.path.join(d, n)) for n in files
                       if n.endswith(".h") and not n.startswith("include/")})
        flags = ["-I" + x for x in dirs] + ["-I" + os.path.join(d, "include")]
        for name in files:
            if name.endswith(".c"):
                obj = os.path.join(d, "build", "CMakeFiles", "t.dir", name + ".o")
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                subprocess.run([cc, "-std=c11", "-w", "-c", os.path.join(d, name), "-o", obj] + flags,
                               check=True)
        return d

    clean = {"src/a.c": '#include "a.h"\n#include "b.h"\nint a_fn(void) { return b_fn(); }\n',
             "src/a.h": '#include "toolwire/core.h"\nint a_fn(void);\n',
             "src/b.c": '#include "b.h"\n#include "macros.h"\nint b_fn(void) { return 1; }\n',
             "src/b.h": "int b_fn(void);\n",
             "src/macros.h": '#include "a.h"\n', "include/toolwire/core.h": "",
             "harness/low/h.c": '#include "a.h"\n#include "h.h"\nint h_fn(void) { return a_fn(); }\n',
             "harness/low/h.h": "int h_fn(void);\n",
             "harness/low/i.c": '#include "h.h"\nint i_fn(void) { return h_fn(); }\n',
             "harness/high/k.c": '#include "h.h"\n#include "k.h"\nint k_fn(void) { return h_fn(); }\n',
             "harness/high/k.h": "int k_fn(void);\n"}
    cycle = dict(clean)
    cycle["src/b.c"] = '#include "b.h"\n#include "toolwire/a.h"\n'
    cycle["include/toolwire/a.h"] = ""
    upward = dict(clean)
    upward["src/b.c"] = '#include "b.h"\n#include "h.h"\n'
    # two files that call each other through a header without code of its own
    names = dict(clean)
    names["harness/low/shared_int.h"] = "int h_fn(void);\nint i_fn(void);\n"
    names["harness/low/h.c"] = '#include "shared_int.h"\nint h_fn(void) { return 0; }\n' \
                               'int h_two(void) { return i_fn(); }\n'
    names["harness/low/i.c"] = '#include "shared_int.h"\nint i_fn(void) { return h_fn(); }\n'
    # a lower room that calls into a higher one (declared by hand: no include)
    room_name = dict(clean)
    room_name["harness/low/i.c"] = 'int k_fn(void);\nint i_fn(void) { return k_fn(); }\n'
    # a lower room that includes a header of a higher one
    room_inc = dict(clean)
    room_inc["harness/low/i.c"] = '#include "k.h"\nint i_fn(void) { return 2; }\n'
    # a file outside every room
    roomless = dict(clean)
    roomless["harness/loose.c"] = "int loose_fn(void) { return 3; }\n"
    failed = 0
    for name, files, want in (("clean", clean, None),
                              ("include cycle", cycle, "include cycle: a (src/a.c) -> b"),
                              ("src uses harness", upward, 'src/b.c includes "h.h"'),
                              ("name cycle", names, "name cycle: harness/low/h.c (i_fn) -> "
                                                    "harness/low/i.c (h_fn) -> harness/low/h.c"),
                              ("room by name", room_name, "room low uses room high, which is above it: "
                                                          "harness/low/i.c uses k_fn of harness/high/k.c"),
                              ("room by include", room_inc, "room low uses room high, which is above it: "
                                                            'harness/low/i.c includes "k.h"'),
                              ("no room", roomless, "harness/loose.c is in no room")):
        d = tree(files)
        problems, _ = check(d, os.path.join(d, "build"), nm, rooms=("low", "high"))
        shutil.rmtree(d)
        ok = not problems if want is None else any(want in p for p in problems)
        if not ok:
            failed += 1
            print("include_graph self-test %s: got %r" % (name, problems), file=sys.stderr)
        else:
            print("include_graph self-test %s: %s" % (name, problems[0] if problems else "clean"))
    return 1 if failed else 0


def main():
    args = sys.argv[1:]
    tools = {"--cc": os.environ.get("CC", "cc"), "--nm": "nm"}
    for flag in tools:
        if flag in args:
            i = args.index(flag)
            tools[flag] = args[i + 1]
            del args[i:i + 2]
    if args == ["--self-test"]:
        return self_test(tools["--cc"], tools["--nm"])
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    build = os.path.abspath(args[1]) if len(args) > 1 else None
    problems, summary = check(os.path.abspath(root), build, tools["--nm"])
    for p in problems:
        print("include_graph: " + p, file=sys.stderr)
    if problems:
        return 1
    print("include_graph: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
