"""The modes and the app module: no circle (issue 27, part 3).  The modes never import
mancala.app (what they need is handed to them: the App object, the App class to
modes/start.py's build), and the order the modules are first imported in does not
change what they hold (the menu's "play" item)."""

import ast
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
MODES = os.path.join(FIRMWARE, "mancala", "modes")


def _imported_modules(path):
    """Every module a file imports, at its top or inside a function."""
    tree = ast.parse(open(path).read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(node.module + "." + a.name for a in node.names)  # from mancala import app
    return out


def test_no_module_under_modes_imports_the_app_module():
    files = sorted(f for f in os.listdir(MODES) if f.endswith(".py"))
    assert "start.py" in files and "errors.py" in files  # (the two that did)
    offenders = {f: sorted(m for m in _imported_modules(os.path.join(MODES, f))
                           if m == "mancala.app" or m.startswith("mancala.app."))
                 for f in files}
    assert {f: m for f, m in offenders.items() if m} == {}


def test_the_scan_sees_an_import_inside_a_function(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("def f():\n    from mancala import app\n    from mancala.app import App\n")
    assert {"mancala.app"} <= _imported_modules(str(p))


def _menu_items_after(first):
    """The menu's item keys in a fresh interpreter that imports `first` before mancala.app."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import %s\n"
            "import mancala.app as app\n"
            "print(' '.join(i[0] for i in app.ITEMS))\n" % (FIRMWARE, first))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_import_order_does_not_change_the_menu():
    # modes/start.py first used to build the menu before the App registered the
    # activities: the "play" item was missing for the rest of the session
    after_app = _menu_items_after("mancala.app")
    assert "play" in after_app
    for first in ("mancala.modes.start", "mancala.modes.menu", "mancala.modes.errors"):
        assert _menu_items_after(first) == after_app, first


def test_a_mode_that_runs_out_of_memory_while_loading_is_loaded_once_more():
    """modes.load(): an import that raises MemoryError (a heap with the room but cut
    up, partly by what the import itself held) is collected and run once more; a
    second MemoryError is the board's (errors.py's recovery)."""
    code = r'''
import builtins, sys
sys.path.insert(0, %r)
from mancala import modes as M
from mancala.modes import activities as A
real = builtins.__import__
fails = [int(sys.argv[1])]
def flaky(name, *a, **k):
    if name == "mancala.modes.puzzle" and fails[0] > 0:
        fails[0] -= 1
        raise MemoryError("memory allocation failed, allocating 464 bytes")
    return real(name, *a, **k)
builtins.__import__ = flaky
try:
    m = M.load(A.PUZZLE)
    print("loaded", m is not None and m is M.MODES[A.PUZZLE], fails[0])
except MemoryError:
    print("MemoryError", fails[0])
''' % FIRMWARE
    out = [subprocess.run([sys.executable, "-c", code, str(n)], capture_output=True, text=True,
                          check=True).stdout.strip() for n in (0, 1, 2)]
    assert out == ["loaded True 0", "loaded True 0", "MemoryError 0"], out
