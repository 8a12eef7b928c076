import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (ROOT, os.path.join(ROOT, "firmware")):
    if p not in sys.path:
        sys.path.insert(0, p)

from mp_builds import build  # noqa: E402,F401 - the fixture of tests/mp_builds.py
from online_helpers import board_lib, mqtt_broker  # noqa: E402,F401 - the online tests' broker


# `make test` runs a sample of every exhaustive sweep; the sweeps themselves are
# marked `long` and run with --long (`make test-long`, mk/test_long.mk).
def pytest_addoption(parser):
    parser.addoption("--long", action="store_true",
                     help="also run the exhaustive sweeps marked `long` (make test-long)")


def pytest_configure(config):
    config.addinivalue_line("markers", "long: an exhaustive sweep, run by make test-long only")


# The modules whose tests take longest (pytest --durations), first: pytest-xdist
# hands tests out in this order, so the two workers do not end with one of them
# alone on a 30 s test.  A module not listed keeps its place after these.
SLOWEST_FIRST = ("test_chip_boot", "test_web_board", "test_unix_session", "test_deploy_emulated_real",
                 "test_chip_wave", "test_engine_grades", "test_engine",
                 "test_board_play", "test_update_trial", "test_boot_state", "test_deploy",
                 "test_board_games", "test_board_faults", "test_mpvm_board", "test_tablebase",
                 "test_puzzles", "test_board_persist", "test_update_flash", "test_deploy_tables")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--long"):
        kept = [it for it in items if it.get_closest_marker("long") is None]
        if len(kept) != len(items):
            config.hook.pytest_deselected(items=[it for it in items if it.get_closest_marker("long") is not None])
            items[:] = kept
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    order = {id(it): n for n, it in enumerate(items)}
    items.sort(key=lambda it: (rank.get(it.module.__name__ if it.module else "", len(rank)), order[id(it)]))
