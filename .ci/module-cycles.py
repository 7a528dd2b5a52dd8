#!/usr/bin/env python3
"""Fails when two modules of one crate use each other, directly or through others.

A module is a top-level file or folder under a crate's `src/` (`plan/` and everything in it is
one module). An edge is a `crate::<module>` path or a `super::<module>` path outside tests and
comments. Paths inside doc comments count too: a doc link is a dependency a reader follows.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "crates"
found = []
for crate in sorted(os.listdir(root)):
    src = os.path.join(root, crate, "src")
    if not os.path.isdir(src):
        continue
    edges = {}
    for dirpath, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)[:-3].split(os.sep)
            top = rel[0]
            if top in ("lib", "main"):
                continue
            text = open(os.path.join(dirpath, name), encoding="utf-8").read()
            text = text.split("#[cfg(test)]")[0]
            uses = set(re.findall(r"crate::(\w+)", text))
            if len(rel) == 1:
                # In a top-level file `super::` is the crate root; inside a folder it stays
                # within the module.
                uses |= set(re.findall(r"super::(\w+)", text))
            edges.setdefault(top, set()).update(u for u in uses if u != top)
    modules = set(edges)
    graph = {m: {u for u in us if u in modules} for m, us in edges.items()}

    # Tarjan's strongly connected components; any with two or more modules is a cycle.
    index, low, stack, on, counter = {}, {}, [], set(), [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append((crate, sorted(component)))

    for module in sorted(graph):
        if module not in index:
            visit(module)

for crate, component in found:
    print(f"{crate}: these modules use each other: {', '.join(component)}; move what they share into one of them or a lower module")
sys.exit(1 if found else 0)
