"""Electronic Mancala board firmware (MicroPython; also runs unchanged in CPython)."""

VERSION = "0.1.0"
