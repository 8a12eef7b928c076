"""A game in progress: the current position, its record, its history.

History is kept as whole positions (16 bytes a ply) in one bytearray that grows
by doubling, so a move costs no allocation, takeback is a copy, and the
repetition rules (ranok: third occurrence ends the game; oware: any repetition
ends it) can compare exact positions instead of trusting a hash.
"""

# The room for a session's long-lived buffers (docs/BOARD.md, "Memory"), taken
# at the first import of the firmware, while the heap is still whole: loading the
# other modules leaves the heap in small holes (on an ESP32 no free block of 4 KB
# remains once they are all in).  App releases it just before it allocates the
# game history and the engine, which then find one free stretch.  The esp32 build's
# buffers (history 4.4 KB, engine table 12 KB, zobrist 4.5 KB) and the small objects
# allocated between them: at 22 KB the keys no longer fitted in the unix port, fell
# into the holes, and the esp32 session failed at its boot under its cap.  A Pico's
# (rp2) table is twice as big (2**12 entries: 24 KB, 33 KB with the rest): its room is
# 36 KB; at 26 KB its table fell into the holes, and with the PIO chain's code loaded
# first no hole took it (issue 42: the board started with a table of 2**11).
import sys  # noqa: E402 - after the comment, before the room

ROOM_BYTES = (36 if sys.platform == "rp2" else 26) * 1024
_room = bytearray(ROOM_BYTES)


def release_room():
    """Free the room (once): the next big allocations land in it."""
    global _room
    _room = None
    try:
        import gc

        gc.collect()
    except ImportError:  # pragma: no cover
        pass


from mancala.compat import const  # noqa: E402 - after the room
from mancala.rules import MASK, N_STORE, OVER, POS_LEN, S_STORE, SIDE, SWEPT, collect_rows  # noqa: E402

END_NONE = const(0)
END_RULES = const(1)  # a rule of the variant ended it (no moves, store limit, empty row)
END_REPETITION = const(2)
END_AGREEMENT = const(3)

SIDE_NAMES = ("South", "North")
SIDE_LETTERS = "SN"


class IllegalMove(ValueError):
    """A move that may not be played; the message says why, in one line."""


class Game:
    def __init__(self, rules, start=None, capacity=256):
        self.pos = bytearray(POS_LEN)
        self._moves = bytearray(capacity)
        self._history = bytearray(POS_LEN * (capacity + 1))
        self.reset(rules, start)

    def reset(self, rules, start=None):
        """A new game in this object: its buffers are reused (no allocation), so a
        session of many games never needs a second history beside the first."""
        self.rules = rules
        self.pos[:] = start if start is not None else rules.start()
        self.ply = 0
        self.end = END_RULES if self.pos[MASK] == 0 else END_NONE
        self._history[0:POS_LEN] = self.pos

    def assign(self, other):
        """Become a copy of game `other` in this object's buffers (grown if short):
        a loaded game takes the place of the session's game, not a second history."""
        while len(self._moves) < len(other._moves):
            self._grow()
        self.rules = other.rules
        self.pos[:] = other.pos
        self.ply = n = other.ply
        self.end = other.end
        self._moves[0:n] = memoryview(other._moves)[0:n]
        k = POS_LEN * (n + 1)
        self._history[0:k] = memoryview(other._history)[0:k]

    # -- queries ---------------------------------------------------------------

    @property
    def over(self):
        return self.end != END_NONE

    @property
    def side(self):
        return self.pos[SIDE]

    def legal_mask(self):
        return 0 if self.end else self.pos[MASK]

    def moves(self):
        """The pits played so far (0..5 each, from the mover's seat)."""
        return bytes(self._moves[: self.ply])

    def position_at(self, ply):
        o = ply * POS_LEN
        return bytes(self._history[o:o + POS_LEN])

    def start_position(self):
        return self.position_at(0)

    def winner(self):
        """None while running; 0 South, 1 North, -1 draw."""
        if not self.end:
            return None
        s, n = self.pos[S_STORE], self.pos[N_STORE]
        return 0 if s > n else 1 if n > s else -1

    def why_illegal(self, pit):
        """None if `pit` (0..5) may be played, else a one-line reason."""
        if self.end:
            return "the game is over"
        if not 0 <= pit < 6:
            return "pit %d does not exist (pits are 1..6)" % (pit + 1)
        side = self.pos[SIDE]
        if self.pos[MASK] >> pit & 1:
            return None
        name = "%s%d" % (SIDE_LETTERS[side], pit + 1)
        if self.pos[side * 7 + pit] == 0:
            return "pit %s is empty" % name
        other = SIDE_NAMES[side ^ 1]
        if self.rules.name == "oware":
            return "%s has no stones: the move from %s must give them some" % (other, name)
        return "the move from %s would leave %s no stones" % (name, other)

    # -- changes ---------------------------------------------------------------

    def play(self, pit):
        """Play pit 0..5 of the side to move; returns the rules' move flags."""
        why = self.why_illegal(pit)
        if why is not None:
            raise IllegalMove(why)
        if self.ply == len(self._moves):
            self._grow()
        flags = self.rules.move(self.pos, pit)
        self._moves[self.ply] = pit
        self.ply += 1
        o = self.ply * POS_LEN
        self._history[o:o + POS_LEN] = self.pos
        if flags & OVER:
            self.end = END_RULES
        elif self._repetition_ends():
            self.end = END_REPETITION
            if self.rules.name == "oware":  # each player takes the stones of their own row
                collect_rows(self.pos)
                flags |= SWEPT
            self.pos[MASK] = 0
            self._history[o:o + POS_LEN] = self.pos
            flags |= OVER
        return flags

    def undo(self):
        """Take back the last move; False if there is none."""
        if self.ply == 0:
            return False
        self.ply -= 1
        o = self.ply * POS_LEN
        self.pos[:] = self._history[o:o + POS_LEN]
        self.end = END_NONE
        return True

    def agree(self):
        """End the game by agreement of both players (ranok's rule)."""
        if self.end:
            raise IllegalMove("the game is over")
        if self.rules.name != "ranok":
            raise IllegalMove("only ranok ends by agreement")
        self.end = END_AGREEMENT
        self.pos[MASK] = 0

    def _grow(self):
        n = len(self._moves)
        moves = bytearray(2 * n)
        moves[:n] = self._moves
        hist = bytearray(POS_LEN * (2 * n + 1))
        hist[: len(self._history)] = self._history
        self._moves, self._history = moves, hist

    def _repetition_ends(self):
        """Ranok: the third occurrence of a position; oware: the second.

        Stores never decrease, so only plies with the same store counts (the
        stretch since the last capture or stone sown into a store) can repeat.
        """
        name = self.rules.name
        if name == "oware":
            needed = 1
        elif name == "ranok":
            needed = 2
        else:
            return False
        pos = self.pos
        hist = self._history
        s, n = pos[S_STORE], pos[N_STORE]
        seen = 0
        ply = self.ply - 1
        while ply >= 0:
            o = ply * POS_LEN
            if hist[o + S_STORE] != s or hist[o + N_STORE] != n:
                break
            i = 0
            while i < 15 and hist[o + i] == pos[i]:
                i += 1
            if i == 15:
                seen += 1
                if seen >= needed:
                    return True
            ply -= 1
        return False
