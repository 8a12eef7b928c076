"""No circle of imports in firmware/ and host_tools/ (issue 43, item 17).

The graph is read from the source (every `import` and `from ... import`, at a module's
top or inside a function: a lazy import is still a dependency), no module is run.  The
circles item 17 broke must not come back: mancala/asleep.py and idle.py (the states
live in idle.py, asleep.py reads them from the Idle it is given), command/report.py and
link/board_games.py (the analysis and its budget live in command/game_analysis.py,
the report draws what it is given), and the generators and the command (the argument
kit is host_tools/argkit.py, below both).  host_tools/command/ is the face on top:
nothing under host_tools imports it but the benches, which time and draw its work.
"""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Circles older than issue 43's item 17 and outside it, each its own work: the
# tables plan asks the flash image what the firmware costs, which asks the tables;
# the chip bench and the chip board share the model's set-up.  A new one fails.
KNOWN = {
    frozenset({"host_tools.generators.tablebase", "host_tools.link.deploy_plan",
               "host_tools.link.flash_image"}),
    frozenset({"host_tools.benches.chip_bench", "host_tools.benches.chip_board"}),
}


def module_name(path):
    rel = os.path.relpath(path, ROOT)
    if rel.startswith("firmware" + os.sep):
        rel = rel[len("firmware") + 1:]
    rel = rel[:-3].replace(os.sep, ".")
    return rel[:-9] if rel.endswith(".__init__") else rel


def modules():
    out = {}
    for top in (os.path.join("firmware", "mancala"), "host_tools"):
        for folder, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "node_modules")]
            for n in names:
                if n.endswith(".py"):
                    path = os.path.join(folder, n)
                    out[module_name(path)] = path
    return out


def imports_graph(mods):
    """{module: {modules of `mods` it imports}} (a name resolved to the longest
    module it names: `from a.b import c` is a.b.c if that is a module, else a.b)."""
    def resolve(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(resolve(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                for a in node.names:
                    full = base + "." + a.name
                    found.add(full if full in mods else resolve(base))
        found.discard(None)
        found.discard(name)
        graph[name] = found
    return graph


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


GRAPH = imports_graph(modules())


def test_the_cycle_finder_finds_circles():
    """(So the tests below can fail.)"""
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert cycles(g) == [frozenset({"a", "b", "c"})]
    g["e2"] = {"e"}
    assert sorted(map(sorted, cycles(g))) == [["a", "b", "c"], ["e", "e2"]]


def test_the_graph_sees_lazy_and_relative_imports():
    assert "mancala.asleep" in GRAPH["mancala.idle"]  # imported inside Idle.asleep()
    assert "host_tools.command.report" in GRAPH["host_tools.command.game_analysis"]
    assert "host_tools.argkit" in GRAPH["host_tools.generators.tablebase"]


def test_no_new_circle_of_imports():
    found = set(cycles(GRAPH))
    assert found - KNOWN == set(), "new import circles: %s" % sorted(map(sorted, found - KNOWN))


def test_item_17s_circles_stay_broken():
    in_cycles = set().union(*cycles(GRAPH))
    for name in ("mancala.asleep", "mancala.idle", "host_tools.command.report",
                 "host_tools.link.board_games", "host_tools.command.game_analysis",
                 "host_tools.argkit", "host_tools.command.cli"):
        assert name not in in_cycles, name
    assert "mancala.idle" not in GRAPH["mancala.asleep"]
    assert not {m for m in GRAPH["host_tools.command.report"] if m.startswith("host_tools.link")}


def test_the_command_is_the_face_on_top():
    """Nothing below the command imports it (the benches, which time and draw the
    commands' work, excepted); the argument kit imports no tool."""
    importers = sorted(m for m, deps in GRAPH.items()
                       if not m.startswith(("host_tools.command", "host_tools.benches"))
                       and any(d.startswith("host_tools.command") for d in deps))
    assert importers == []
    assert not [d for d in GRAPH["host_tools.argkit"] if d.startswith("host_tools.")]
    assert not [d for d in GRAPH["host_tools.board_text"] if d.startswith("host_tools.")]
