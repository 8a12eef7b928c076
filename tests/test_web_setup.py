"""Issue 43 items 4 and 5: what `make test` installs on the system and says first, the one
line the browser tests skip with where it cannot, and `make play-web` with the play
packages and the npm VM only (not the developers' 535 MB)."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAKE = shutil.which("make")
needs_make = pytest.mark.skipif(MAKE is None, reason="no make here")


def readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


# -- item 4: web-deps (the system packages `make test` installs) --------------------------


def fake_bin(tmp_path, uid, apt=True):
    """A PATH with no browser: `id -u` says `uid`, apt-get (if any) only says what it was
    asked on stderr, grep is the real one."""
    b = tmp_path / "bin"
    b.mkdir()
    (b / "id").write_text("#!/bin/sh\necho %d\n" % uid)
    if apt:
        (b / "apt-get").write_text('#!/bin/sh\necho "APT-GET $*" >&2\n')
    for name in ("id", "apt-get"):
        if (b / name).exists():
            (b / name).chmod(0o755)
    (b / "grep").symlink_to(shutil.which("grep"))
    return str(b)


def web_deps(tmp_path, uid, apt=True, *args):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CHROMIUM", "CHROMEDRIVER", "WEB_DEPS", "MAKEFLAGS", "MFLAGS")}
    env["PATH"] = fake_bin(tmp_path, uid, apt)
    p = subprocess.run([MAKE, "-s", "--no-print-directory", "web-deps", *args], cwd=ROOT,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=60)
    return p.returncode, p.stdout.splitlines()


@needs_make
def test_as_root_with_apt_it_says_what_it_installs_before_it_does(tmp_path):
    rc, lines = web_deps(tmp_path, 0)
    assert rc == 0, lines
    apt = [i for i, ln in enumerate(lines) if ln.startswith("APT-GET")]
    assert [lines[i].split()[1] for i in apt] == ["update", "install"], lines
    said = "\n".join(lines[:apt[0]])  # everything printed before apt-get first ran
    for word in ("system packages", "apt-get update", "apt-get install", "chromium",
                 "chromium-driver", "fonts-dejavu-core", "WEB_DEPS=no"):
        assert word in said, (word, said)
    installed = lines[apt[1]].split()
    assert {"chromium", "chromium-driver", "fonts-dejavu-core"} <= set(installed)


@needs_make
def test_web_deps_no_installs_nothing_and_says_how(tmp_path):
    rc, lines = web_deps(tmp_path, 0, True, "WEB_DEPS=no")
    assert rc == 0 and not [ln for ln in lines if ln.startswith("APT-GET")], lines
    assert len(lines) == 1, lines
    assert "browser tests" in lines[0] and "skipped" in lines[0]
    assert "make web-deps" in lines[0], lines


@needs_make
def test_not_root_installs_nothing_and_says_how_in_one_line(tmp_path):
    rc, lines = web_deps(tmp_path, 1000)
    assert rc == 0 and not [ln for ln in lines if ln.startswith("APT-GET")], lines
    assert len(lines) == 1, lines
    assert "not root" in lines[0] and "skipped" in lines[0]
    assert "as root" in lines[0] and "make web-deps" in lines[0], lines


@needs_make
def test_root_without_apt_says_so_not_that_it_is_not_root(tmp_path):
    rc, lines = web_deps(tmp_path, 0, False)
    assert rc == 0 and len(lines) == 1, lines
    assert "no apt-get" in lines[0] and "not root" not in lines[0], lines
    assert "skipped" in lines[0] and "CHROMIUM=" in lines[0], lines


@needs_make
def test_make_test_starts_with_the_system_packages():
    """The notice comes first, not after minutes of lint and type check."""
    p = subprocess.run([MAKE, "-n", "-B", "test"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    out = p.stdout
    assert "apt-get" in out
    assert out.index("apt-get") < out.index("pip install"), out[:2000]


def test_readme_says_make_test_installs_system_packages_as_root():
    text = readme()
    i = text.index("`make test`")
    part = text[i:i + 3000]
    for word in ("root", "apt-get", "chromium", "chromium-driver", "fonts-dejavu-core",
                 "WEB_DEPS=no", "make web-deps"):
        assert word in part, word


def test_without_a_browser_the_browser_tests_skip_with_one_line(tmp_path):
    """Where Chromium is missing, the browser tests (tests/test_web_board.py and the
    report's) are skipped with one line that says how to get them."""
    (tmp_path / "nobrowser.py").write_text(textwrap.dedent('''\
        from host_tools.simulators import web_browser
        web_browser._which = lambda names, extra=(): None  # nothing on this machine
    '''))
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "CHROMIUM", "CHROMEDRIVER", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), ROOT, os.path.join(ROOT, "firmware")])
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-ra", "-p", "no:cacheprovider",
                        "-p", "nobrowser", "-p", "no:xdist", "tests/test_web_board.py",
                        "tests/test_report.py::test_report_in_a_browser_graph_and_board_at_a_move"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    skipped = [ln for ln in p.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert len(skipped) == 1, skipped
    assert "browser tests" in skipped[0] and "make web-deps" in skipped[0], skipped


# -- item 5: make play-web --------------------------------------------------------------


@needs_make
def test_make_play_web_sets_up_the_play_packages_and_the_npm_vm_only():
    """`make -n -B`: what make would run from nothing."""
    p = subprocess.run([MAKE, "-n", "-B", "play-web"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "pip install --quiet -e ." in out
    assert "npm ci" in out
    assert "[dev]" not in out, out
    assert "host_tools.simulators.web_serve" in out


def test_readme_says_play_web_needs_node_and_npm():
    sentences = " ".join(readme().split()).split(". ")
    said = [s for s in sentences if "`make play-web`" in s and "`node`" in s and "`npm`" in s]
    assert said, "README: no sentence says `make play-web` needs `node` and `npm`"


SERVE_WITH_PLAY_PACKAGES = r'''
import os, sys, threading, urllib.request
before = set(sys.modules)
root, out = sys.argv[1], sys.argv[2]
from host_tools.simulators import web_serve
if os.path.exists(os.path.join(web_serve.VM_DIR, "micropython.mjs")):
    web_serve.build(out)
else:  # no npm VM here: the server alone
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write("<!doctype html>")
srv = web_serve.make_server(out, 0)
threading.Thread(target=srv.serve_forever, daemon=True).start()
with urllib.request.urlopen("http://127.0.0.1:%d/" % srv.server_address[1], timeout=10) as r:
    assert r.status == 200
srv.shutdown()
srv.server_close()
outside = []
for name in sorted(set(sys.modules) - before):
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top == "__main__":
        continue
    path = getattr(sys.modules[name], "__file__", None) or ""
    if not os.path.abspath(path).startswith(root + os.sep):
        outside.append(name)
print("OUTSIDE", " ".join(outside))
'''


def test_the_page_server_imports_nothing_but_the_standard_library_and_the_project(tmp_path):
    """Item 5: the page's server runs on the play packages alone.  (What it imports
    besides the standard library and this repository: nothing, so none of `.[dev]`.)"""
    p = subprocess.run([sys.executable, "-c", SERVE_WITH_PLAY_PACKAGES, ROOT, str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("OUTSIDE")][-1]
    assert line.split()[1:] == [], line
