"""The PC tools' argument kit: the parser, the errors and the one-line failure every
command reports (`mancala NAME: error: ...`), stdin's lines.

Below every tool that has a command line: host_tools/command/ (the `mancala` command,
on top) and the generators, the link, the simulators and the benches all import it,
and it imports none of them (tests/test_import_graph.py), so no package needs
another's command to parse its own arguments.
"""

import argparse
import sys

from mancala.notation import NotationError


class UsageError(ValueError):
    """A bad command line or input: `mancala NAME: error: MESSAGE`, exit status 2."""


class SetupError(RuntimeError):
    """A part of the set-up is missing (the MicroPython VM, OpenSpiel: `make play` installs
    only what playing needs): `mancala NAME: error: MESSAGE` saying what to run, exit
    status 1, as for any failure outside the command line."""


class Parser(argparse.ArgumentParser):
    """argparse with its errors as one UsageError line (no usage block)."""

    def error(self, message):
        raise UsageError(message)


def printable(text):
    """`text` safe to print on one line: control characters and undecodable bytes
    (surrogate escapes of non-UTF-8 arguments) escaped."""
    return "".join(c if c.isprintable() and not 0xD800 <= ord(c) < 0xE000
                   else repr(c)[1:-1] for c in str(text))


def bounded(what, text, low, high):
    """The whole number `text` in low..high, or a UsageError naming `what`."""
    t = text.strip()
    digits = t[1:] if t[:1] in "+-" else t
    if not digits.isdigit() or not digits.isascii():
        raise UsageError("%s must be a whole number, got %r" % (what, text))
    if len(digits) > 12 or not low <= int(t) <= high:
        raise UsageError("%s must be %d..%d, got %s" % (what, low, high, printable(t)))
    return int(t)


def int_type(what, low, high):
    """An argparse type: a whole number in low..high."""
    def parse(text):
        try:
            return bounded(what, text, low, high)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = what  # argparse names the type in its messages
    return parse


def _decoded(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def split_lines(chunks):
    """The lines of a stream of byte chunks, without their line ends; a line that is
    not UTF-8 is None.  CR, LF and CR LF each end a line (a serial terminal's Enter
    sends a bare CR).  A line ended by a CR is given at once, before the next read (a
    terminal waits for the answer); an LF that then opens the next chunk completes
    that CR LF, it is no empty line."""
    rest = b""
    after_cr = False
    for chunk in chunks:
        if not chunk:
            continue
        if after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        after_cr = chunk[-1:] == b"\r"
        *whole, rest = (rest + chunk).replace(b"\r\n", b"\n").replace(b"\r", b"\n") \
            .split(b"\n")
        for raw in whole:
            yield _decoded(raw)
    if rest:
        yield _decoded(rest)


def stdin_lines():
    """stdin's lines without their line ends (CR, LF or CR LF: split_lines); a line
    that is not UTF-8 is None."""
    buf = sys.stdin.buffer
    read = getattr(buf, "read1", None) or buf.read  # read1: what has come, no waiting
    yield from split_lines(iter(lambda: read(65536), b""))


def run_command(name, fn, argv):
    """Run a command function; every failure is one line on stderr and a non-zero
    exit status: 2 for bad input, 1 for an outside failure (a file, a board)."""

    try:
        return fn(argv) or 0
    except (NotationError, UsageError) as e:
        print("mancala %s: error: %s" % (name, printable(e)), file=sys.stderr)
        return 2
    except SetupError as e:
        print("mancala %s: error: %s" % (name, printable(e)), file=sys.stderr)
        return 1
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            return 0
        where = "%s: " % printable(e.filename) if e.filename else ""
        print("mancala %s: error: %s%s" % (name, where, printable(e.strerror or e)),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mancala %s: interrupted" % name, file=sys.stderr)
        return 130
