import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (ROOT, os.path.join(ROOT, "firmware")):
    if p not in sys.path:
        sys.path.insert(0, p)

from mp_builds import build  # noqa: E402,F401 - the fixture of tests/mp_builds.py


# `make test` runs a sample of every exhaustive sweep; the sweeps themselves are
# marked `long` and run with --long (`make test-long`, docs/DEVELOPING.md).
def pytest_addoption(parser):
    parser.addoption("--long", action="store_true",
                     help="also run the exhaustive sweeps marked `long` (make test-long)")


def pytest_configure(config):
    config.addinivalue_line("markers", "long: an exhaustive sweep, run by make test-long only")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--long"):
        return
    kept = [it for it in items if it.get_closest_marker("long") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[it for it in items if it.get_closest_marker("long") is not None])
        items[:] = kept
