#!/usr/bin/env python3
"""The module graph of src/ and harness/ has no cycle, and src/ uses nothing
of harness/ or fuzz/.

A module is a file name without its ending (openai for src/openai.c,
src/openai.h and include/toolwire/openai.h). Module X depends on module Y
when X.c or X.h includes Y.h (by any path) and a Y.c exists in src/ or
harness/: headers without code of their own (core types, macros) join no
cycle. A cycle is named with the files whose includes make it.

Usage: include_graph.py [SOURCE_DIR]   (default: the tree this file is in)
       include_graph.py --self-test     (the checker finds a planted cycle and
                                         a planted src/ -> harness/ include)
Exit status 0 when the graph is clean, 1 with the problems on stderr.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
LAYERS = ("src", "harness")


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


def check(root):
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

    # edges: X -> Y, with the file whose include makes each
    edges = {}
    for layer in LAYERS:
        for f in sources(root, layer):
            x = module(f)
            for inc in includes(os.path.join(root, layer, f)):
                if not inc.endswith(".h"):
                    continue
                y = module(inc)
                if y == x or y not in coded:
                    continue
                edges.setdefault(x, {}).setdefault(y, "%s/%s" % (layer, f))

    # cycles: strongly connected components (Tarjan), each named by one cycle in it
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

    for v in sorted(set(edges) | coded):
        if v not in index:
            strong(v)

    for comp in comps:
        start = min(comp)
        # a shortest way back to start inside the component
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
        cyc = path + [start]
        steps = ["%s (%s)" % (cyc[i], edges[cyc[i]][cyc[i + 1]]) for i in range(len(cyc) - 1)]
        problems.append("include cycle: %s -> %s   [modules in it: %s]"
                        % (" -> ".join(steps), start, ", ".join(sorted(comp))))

    nedges = sum(len(v) for v in edges.values())
    return problems, "%d modules, %d dependencies, no cycle" % (len(coded), nedges)


def self_test():
    import shutil
    import tempfile

    def tree(files):
        d = tempfile.mkdtemp(prefix="include_graph.")
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        return d

    clean = {"src/a.c": '#include "a.h"\n#include "b.h"\n', "src/a.h": '#include "toolwire/core.h"\n',
             "src/b.c": '#include "b.h"\n#include "macros.h"\n', "src/b.h": "",
             "src/macros.h": '#include "a.h"\n', "include/toolwire/core.h": "",
             "harness/h.c": '#include "a.h"\n'}
    cycle = dict(clean)
    cycle["src/b.c"] = '#include "b.h"\n#include "toolwire/a.h"\n'
    cycle["include/toolwire/a.h"] = ""
    upward = dict(clean)
    upward["src/b.c"] = '#include "b.h"\n#include "h.h"\n'
    upward["harness/h.h"] = ""
    failed = 0
    for name, files, want in (("clean", clean, None), ("cycle", cycle, "include cycle: a (src/a.c) -> b"),
                              ("src uses harness", upward, 'src/b.c includes "h.h"')):
        d = tree(files)
        problems, _ = check(d)
        shutil.rmtree(d)
        ok = not problems if want is None else any(want in p for p in problems)
        if not ok:
            failed += 1
            print("include_graph self-test %s: got %r" % (name, problems), file=sys.stderr)
        else:
            print("include_graph self-test %s: %s" % (name, problems[0] if problems else "clean"))
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    problems, summary = check(os.path.abspath(root))
    for p in problems:
        print("include_graph: " + p, file=sys.stderr)
    if problems:
        return 1
    print("include_graph: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
