"""Electronic Mancala board firmware (MicroPython; also runs unchanged in CPython)."""

VERSION = "0.1.0"


def forget(name):
    """On the board, drop the module mancala.NAME once nothing else holds its code (code
    is heap on a board: .mpy modules are not frozen); the PC keeps it (tests import it
    again and again)."""
    import sys

    if sys.implementation.name == "micropython":
        sys.modules.pop("mancala." + name, None)
        g = globals()
        if name in g:
            del g[name]
