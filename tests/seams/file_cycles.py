#!/usr/bin/env python3
"""file_cycles.py - fail when the source files of one library depend on each other in a cycle.

A file depends on another when its object file uses a symbol the other defines (read with nm
from the static library, so the graph is what the linker sees, not what the includes claim).
Prints each cycle as `a.c -> b.c -> a.c` and exits 1; exits 0 with a one-line summary when the
graph is acyclic. Usage: file_cycles.py LIB.a [LIB.a ...]  (nm from $NM when set)
"""
import os
import subprocess
import sys

NM = os.environ.get("NM") or "nm"


def objects(lib):
    """{object name: (defined symbols, undefined symbols)} of one static library."""
    out = subprocess.run([NM, "-A", "--defined-only", "-g", lib], check=True,
                         capture_output=True, text=True).stdout
    und = subprocess.run([NM, "-A", "--undefined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    objs = {}
    for text, slot in ((out, 0), (und, 1)):
        for line in text.splitlines():
            # "lib.a:file.c.o:0000 T name" or "lib.a:file.c.o:                 U name"
            head, _, rest = line.rpartition(":")
            obj = head.split(":")[-1]
            fields = rest.split()
            if len(fields) < 2:
                continue
            objs.setdefault(obj, (set(), set()))[slot].add(fields[-1])
    return objs


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on, stack, comps, n = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n[0]; n[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
    return comps


def path_in(graph, comp):
    """One cycle through the component, for the message."""
    start, seen, path = comp[0], set(), [comp[0]]
    node = start
    while True:
        nxt = sorted(w for w in graph[node] if w in comp)
        back = [w for w in nxt if w == start]
        if back and len(path) > 1:
            return path + [start]
        nxt = [w for w in nxt if w not in seen and w != start] or back
        if not nxt:
            return path
        node = nxt[0]; seen.add(node); path.append(node)


def main(libs):
    bad = 0
    for lib in libs:
        objs = objects(lib)
        owner = {}
        for obj, (defined, _) in objs.items():
            for sym in defined:
                owner[sym] = obj
        graph = {obj: {owner[s] for s in und if s in owner and owner[s] != obj}
                 for obj, (_, und) in objs.items()}
        comps = cycles(graph)
        name = lib.rsplit("/", 1)[-1]
        for comp in comps:
            bad += 1
            print(f"{name}: file cycle: " + " -> ".join(o.removesuffix(".o") for o in path_in(graph, comp)))
        if not comps:
            edges = sum(len(v) for v in graph.values())
            print(f"{name}: {len(graph)} files, {edges} dependencies, no cycle")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
