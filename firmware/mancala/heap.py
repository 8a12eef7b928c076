"""The heap as the board sees it: the bytes free and the largest block it can still
hand out (docs/BOARD.md, "Memory through the boot path").

MicroPython says how much is free (gc.mem_free) but not in how many pieces: a buffer
of 16 KB fails on a heap with 60 KB free in scattered holes.  largest_block() finds
the biggest bytearray the heap gives now by trying (each try is garbage before the
next; a refused one costs a collection).  It runs at the start and where a
measurement asks, never in a game's loop.  The PC's CPython has no such heap: None.
"""

import gc
import sys


def free():
    """gc.mem_free() after a collection, or None (CPython)."""
    mem_free = getattr(gc, "mem_free", None)
    if mem_free is None:
        return None
    gc.collect()
    return mem_free()


# No board has more heap than this; above it (the PC's MicroPython builds: the
# WebAssembly VM's heap grows to 130 MB) the answer is "at least this much".
LARGEST_MAX = 512 * 1024


def largest_block():
    """The largest single allocation the heap grants now (to 16 bytes, at most
    LARGEST_MAX), or None (CPython; the WebAssembly VM)."""
    top = free()
    if top is None:
        return None
    if sys.platform == "webassembly":  # (its heap grows and its GC frees nothing
        return None  # measurable: no largest block to find, and each try costs)
    lo, hi = 0, min(top, LARGEST_MAX)
    while hi - lo > 16:
        mid = (lo + hi) // 2
        try:
            b = bytearray(mid)
            b = None  # noqa: F841  (garbage: an allocation that needs its room collects)
            lo = mid
        except MemoryError:  # (the allocator collected before it gave up)
            hi = mid
    return lo


def line():
    """'heap 120 KB free, largest block 61 KB' (empty on the PC)."""
    f = free()
    if f is None:
        return ""
    big = largest_block()
    if big is None:
        return "heap %d KB free" % (f // 1024)
    return "heap %d KB free, largest block %d KB" % (f // 1024, big // 1024)
