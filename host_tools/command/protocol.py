"""`mancala engine`: a UCI-like line protocol on stdin/stdout (docs/ENGINE.md)."""

import os
import queue
import sys
import threading

from host_tools.command.cli import (
    Parser,
    UsageError,
    bounded,
    printable,
    split_lines,
    stdin_lines,
)
from host_tools.command.match import MAX_MOVETIME_MS, MAX_NODES, board_engine, seed_type
from mancala.engine import GRADES, LEVELS
from mancala.game import Game
from mancala.notation import parse_move, parse_position
from mancala.rules import MASK, SIDE

END_OF_INPUT = object()  # what the stdin reader queues last (None: a non-UTF-8 line)


class Protocol:
    """position VARIANT [C1,...,C14 S|N] [moves M...] | go [level NAME] [nodes N]
    [movetime MS] | stop | grade M [nodes N] | hint [LEVEL] | isready | quit.
    A bad command answers one line `error ...` and the engine goes on; the exit
    status is then 1."""

    def __init__(self, out=None, seed=0, clock=None):
        self.out = out or sys.stdout
        self.seed = seed
        self.clock = clock  # ms clock of movetime (None: the engine's own)
        self.errors = 0
        self.pending = []  # commands that arrived during a search
        self.rules, self.pos = parse_position("kalah")
        self.engine = board_engine(self.rules, seed)

    def say(self, line):
        self.out.write(line + "\n")
        self.out.flush()

    def cmd_position(self, words):
        if "moves" in words:
            i = words.index("moves")
            text, moves = words[:i], words[i + 1:]
        else:
            text, moves = words, []
        if text and text[0] == "startpos":
            text = text[1:] or ["kalah"]
        if not text:
            raise ValueError("position needs a variant (position VARIANT [C1,...,C14 S|N] "
                             "[moves M...])")
        rules, pos = parse_position(" ".join(text))
        game = Game(rules, pos)
        for k, m in enumerate(moves):
            try:
                pit = parse_move(m, game.side)
                game.play(pit)
            except ValueError as e:  # NotationError, IllegalMove
                raise ValueError("move %d: %s" % (k + 1, e)) from None
        if rules is not self.rules:
            self.rules = rules
            self.engine.release()  # (closes the old variant's book)
            self.engine = board_engine(rules, self.seed)
        self.pos = bytearray(game.pos)

    def go(self, words, lines):
        level = nodes = deadline = None
        for i in range(0, len(words), 2):
            key = words[i]
            if key not in ("level", "nodes", "movetime"):
                raise ValueError("unknown go option %r (level NAME, nodes N, movetime MS)"
                                 % key)
            if i + 1 >= len(words):
                raise ValueError("go %s needs a value" % key)
            value = words[i + 1]
            if key == "level":
                if value not in LEVELS:
                    raise ValueError("unknown level %r (%s)" % (value, " ".join(LEVELS)))
                level = value
            elif key == "nodes":
                nodes = _protocol_int("go nodes", value, 1, MAX_NODES)
            else:
                deadline = _protocol_int("go movetime", value, 1, MAX_MOVETIME_MS)
        if not self.pos[MASK]:
            self.say("bestmove none")
            return True
        eng = self.engine
        if deadline is not None and level is None and nodes is None:
            nodes = MAX_NODES  # movetime alone: search until the time is up
        if level is None and nodes is None:
            level = "master"
        eng.start(self.pos, level=level, nodes=nodes, deadline_ms=deadline, clock=self.clock)
        shown = -1
        alive = True
        while True:
            finished = eng.step(256)
            if eng.depth != shown and eng.depth:
                shown = eng.depth
                self.say("info depth %d score %d nodes %d pv %d" % (
                    eng.depth, eng.score, eng.nodes, eng.best_move + 1))
            if finished:
                break
            if lines is not None:
                try:
                    line = lines.get_nowait()
                except queue.Empty:
                    continue
                # Commands are handled in the order they came: during a search only
                # `stop` and `isready` act at once; the rest wait for its end.  A
                # `quit` or the end of input with nothing waiting before it has nothing
                # left to wait for: the search ends now (its best move is said).
                if line is END_OF_INPUT:
                    lines = None
                    if not self.pending:
                        eng.stop()
                        alive = False
                        break
                    self.pending.append(END_OF_INPUT)
                    continue
                w = line.split() if line is not None else None
                if w == ["stop"]:
                    eng.stop()
                    break
                if w == ["isready"]:
                    self.say("readyok")
                elif w == ["quit"] and not self.pending:
                    eng.stop()
                    alive = False
                    break
                elif w is None or w:  # None (not UTF-8): answered in its turn
                    self.pending.append(line)
        if eng.book_hit:  # Master's move from its opening book, as on the board
            self.say("info depth 0 score %d nodes 0 book" % eng.book_score)
        else:
            self.say("info depth %d score %d nodes %d" % (eng.depth, eng.score, eng.nodes))
        self.say("bestmove %d" % (eng.best_move + 1))
        return alive

    def cmd_grade(self, words):
        if not words or len(words) not in (1, 3) or len(words) == 3 and words[1] != "nodes":
            raise ValueError("grade takes a move and optionally nodes N (grade M [nodes N])")
        pit = parse_move(words[0], self.pos[SIDE])
        if not self.pos[MASK] >> pit & 1:
            raise ValueError("%s is not a legal move here" % words[0])
        nodes = _protocol_int("grade nodes", words[2], 1, MAX_NODES) if len(words) == 3 \
            else None
        g, loss, threat = self.engine.grade(self.pos, pit, nodes)
        self.say("grade %s loss %d threat %s" % (
            GRADES[g], loss, "none" if threat < 0 else str(threat + 1)))

    def error(self, message):
        self.errors += 1
        self.say("error %s" % printable(message))

    def handle(self, line, lines=None):
        """One command; False to quit."""
        if line is None:
            self.error("the line is not UTF-8 text")
            return True
        words = line.split()
        if not words:
            return True
        cmd, rest = words[0], words[1:]
        try:
            if cmd in ("quit", "isready", "uci", "mancala", "stop") and rest:
                raise ValueError("%s takes no arguments" % cmd)
            if cmd == "quit":
                return False
            if cmd == "isready":
                self.say("readyok")
            elif cmd in ("uci", "mancala"):
                self.say("id name mancala-engine")
                self.say("ok")
            elif cmd == "position":
                self.cmd_position(rest)
            elif cmd == "go":
                return self.go(rest, lines)
            elif cmd == "stop":
                pass  # nothing is running
            elif cmd == "grade":
                self.cmd_grade(rest)
            elif cmd == "hint":
                if len(rest) > 1 or rest and rest[0] not in LEVELS:
                    raise ValueError("hint takes a level (%s), got %r"
                                     % (" ".join(LEVELS), " ".join(rest)))
                if not self.pos[MASK]:
                    raise ValueError("the game is over: no hint")
                lvl = rest[0] if rest else "master"
                self.say("hint %d" % (self.engine.hint(self.pos, lvl) + 1))
            else:
                self.error("unknown command %r (position go stop grade hint isready quit)"
                           % cmd)
        except (ValueError, IndexError) as e:
            self.error(e)
        return True


def _protocol_int(what, text, low, high):
    try:
        return bounded(what, text, low, high)
    except UsageError as e:
        raise ValueError(str(e)) from None


def fd_lines(fd):
    """The lines of file descriptor `fd` without their line ends (CR, LF or CR LF:
    cli.split_lines; None: a line that is not UTF-8), read with os.read.  The
    protocol's reader thread blocks here while a search runs; blocked in sys.stdin's
    buffered read instead it would hold that buffer's lock, and the interpreter's exit
    (quit, Ctrl-C) aborts on it: "Fatal Python error: _enter_buffered_busy: could not
    acquire lock for <stdin> ... daemon threads", exit status 134."""
    return split_lines(_fd_chunks(fd))


def _fd_chunks(fd):
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # stdin closed under us: as the end of input
            chunk = b""
        if not chunk:
            return
        yield chunk


def engine_main(argv):
    p = Parser(prog="mancala engine", description=Protocol.__doc__)
    p.add_argument("--seed", type=seed_type, default=0)
    a = p.parse_args(argv)
    proto = Protocol(sys.stdout, a.seed)
    lines = queue.Queue()

    try:
        source = fd_lines(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):  # no descriptor (a stdin in memory)
        source = stdin_lines()

    def reader():
        try:
            for line in source:
                lines.put(line)
        finally:  # whatever ends the reading ends the protocol, never a wait forever
            lines.put(END_OF_INPUT)

    threading.Thread(target=reader, daemon=True).start()
    while True:
        line = proto.pending.pop(0) if proto.pending else lines.get()
        if line is END_OF_INPUT or not proto.handle(line, lines):
            break
    return 1 if proto.errors else 0


# ---------------------------------------------------------------------------
# bench
#
# Node rates are taken from CPU time (CPython: time.process_time; the VM: the node
# process's CPU time from getrusage, minus the same script without the work), so
# other load on the machine does not leak into the Pico estimate.
