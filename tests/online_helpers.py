"""Fixtures of the online tests (docs/ONLINE.md "Tests"): a Mosquitto broker on
127.0.0.1 (host_tools/online/broker.py), the firmware laid out for the unix-port board
processes (host_tools/online/boards.py).  Without mosquitto or the unix port a test
is skipped with one line (under CI, CI set, it fails instead)."""

import os

import pytest

from host_tools.online import broker as broker_mod
from host_tools.online.boards import BoardLib
from host_tools.runners import mpunix


def _need(ok, why):
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the online tests: " + why)
    pytest.skip(why)


@pytest.fixture
def mqtt_broker():
    """A fresh Mosquitto (TCP and WebSocket listeners on free ports), stopped after."""
    _need(broker_mod.available(), "mosquitto not installed: make online-deps (apt-get install mosquitto)")
    b = broker_mod.Broker().start()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="session")
def board_lib():
    """The firmware laid out once per test process for the unix-port board processes,
    what they import compiled with mpy-cross as deploy sends it (each module compiled
    once and kept under build/online-mpy by its source's hash: boards.compile_cached)."""
    _need(mpunix.available(), "MicroPython unix port not installed: run `make setup`")
    lib = BoardLib(mpy=True)
    try:
        yield lib
    finally:
        lib.close()
