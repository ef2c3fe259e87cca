#!/usr/bin/env python3
"""The module graph of src/ and harness/ has no cycle, and src/ uses nothing
of harness/ or fuzz/.

A module is a file name without its ending (openai for src/openai.c,
src/openai.h and include/toolwire/openai.h). Module X depends on module Y
when X.c or X.h includes Y.h (by any path) and a Y.c exists in src/ or
harness/: headers without code of their own (core types, macros) join no
cycle. A cycle is named with the files whose includes make it.

Usage: include_graph.py [SOURCE_DIR]   (default: the tree this file is in)
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
    return sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")))


def module(name):
    return os.path.splitext(os.path.basename(name))[0]


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    root = os.path.abspath(root)
    problems = []

    # modules with code of their own
    coded = set()
    for layer in LAYERS:
        coded |= {module(f) for f in sources(root, layer) if f.endswith(".c")}
    if not coded:
        print("include_graph: no sources under %s" % root, file=sys.stderr)
        return 1

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

    for p in problems:
        print("include_graph: " + p, file=sys.stderr)
    if problems:
        return 1
    nedges = sum(len(v) for v in edges.values())
    print("include_graph: %d modules, %d dependencies, no cycle" % (len(coded), nedges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
