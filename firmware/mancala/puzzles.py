"""Puzzles on the board: the data files, checking a move, the player's score.

A variant's puzzles are `mancala/data/puzzles_<variant>.txt` (made on the PC by
host_tools/generators/puzzles.py, docs/PUZZLES.md), read here one line at a time, so only the
puzzle being played is ever in RAM.  A line (`#` lines are comments):

    DIFFICULTY COUNTS LINE MARGIN REFUTATIONS
    2 0,3,1,0,7,2,11,1,0,4,2,0,5,12 425 3 1:63,3:1,6:

* DIFFICULTY 1..4 (1: a 30-node search finds it, 4: not even 3000 nodes do);
* COUNTS the 14 counts in board order; South is to move (the person's seat);
* LINE the solution as pit digits 1..6, each from its mover's seat: the answer,
  the reply, the next move (an extra turn is the same side moving again);
* MARGIN how many stones the answer wins over the second-best move;
* REFUTATIONS for each other legal move `PIT:LINE`, the opponent's best answer
  and what follows it (empty: that move ends the game).

Progress is /data/puzzle.json (atomic save with a checksum, hw/storage.py): per
variant a string of marks, one per puzzle (`.` not tried, `x` tried and missed,
`o` solved), and the puzzle under way with its stage, so a power cut resumes it.
"""

FORMAT = 1
PROGRESS_FILE = "puzzle.json"
UNTRIED = "."
MISSED = "x"
SOLVED = "o"


class Puzzle:
    def __init__(self, variant, number, difficulty, counts, line, margin, refs):
        self.variant = variant
        self.number = number
        self.difficulty = difficulty
        self.counts = counts  # 14 bytes, board order
        self.line = line  # pits 0..5, each from its mover's seat
        self.margin = margin
        self.refs = refs  # {wrong pit: pits of the refutation}

    @property
    def answer(self):
        return self.line[0]

    def position(self, rules):
        return rules.new_position(self.counts, 0)

    def is_right(self, pit):
        return pit == self.line[0]

    def refutation(self, pit):
        """The opponent's answer to wrong move `pit` and what follows (pits)."""
        return self.refs.get(pit, b"")


def _digits(text):
    out = bytearray()
    for c in text:
        d = ord(c) - 49
        if not 0 <= d < 6:
            raise ValueError("a pit must be 1..6, got %r" % c)
        out.append(d)
    return bytes(out)


def parse_line(variant, number, text):
    """A Puzzle from one data line; ValueError if it is not one."""
    f = text.split()
    if len(f) < 4:
        raise ValueError("puzzle %d: %d fields, want 4 or 5" % (number, len(f)))
    counts = bytes(int(x) for x in f[1].split(","))
    if len(counts) != 14:
        raise ValueError("puzzle %d: %d counts, want 14" % (number, len(counts)))
    line = _digits(f[2])
    if not line:
        raise ValueError("puzzle %d: no solution" % number)
    refs = {}
    if len(f) > 4 and f[4] != "-":
        for item in f[4].split(","):
            k, _, rest = item.partition(":")
            refs[_digits(k)[0]] = _digits(rest)
    return Puzzle(variant, number, int(f[0]), counts, line, int(f[3]), refs)


def data_path(variant):
    """Where the data file of `variant` sits next to this module (a slot on the board,
    firmware/ on the PC)."""
    here = __file__.replace("\\", "/")
    cut = here.rfind("/")
    return (here[:cut + 1] if cut >= 0 else "") + "data/puzzles_" + variant + ".txt"


def lines_of(f):
    """The data lines of an open file (comments and blank lines left out)."""
    while True:
        ln = f.readline()
        if not ln:
            return
        if isinstance(ln, bytes):
            ln = ln.decode()
        if ln.strip() and not ln.startswith("#"):
            yield ln


def read_from(f, variant, number):
    """Puzzle `number` (1..) of an open data file, or None past the end."""
    n = 0
    for ln in lines_of(f):
        n += 1
        if n == number:
            return parse_line(variant, number, ln)
    return None


def count_in(f):
    n = 0
    for _ in lines_of(f):
        n += 1
    return n


def read(variant, number, opener=open):
    """Puzzle `number` of `variant`, or None (past the end, no file)."""
    try:
        with opener(data_path(variant)) as f:
            return read_from(f, variant, number)
    except OSError:
        return None


def count(variant, opener=open):
    try:
        with opener(data_path(variant)) as f:
            return count_in(f)
    except OSError:
        return 0


# -- the player's progress ------------------------------------------------------------


def new_progress():
    return {"variant": "", "number": 0, "stage": 0, "confirmed": 0}


def load_progress(store):
    """The progress record (defaults when missing or corrupt: the score starts over)."""
    st, obj = store.load(PROGRESS_FILE)
    prog = new_progress()
    if isinstance(obj, dict):
        for k in obj:
            prog[k] = obj[k]
    return prog


def save_progress(store, prog):
    store.save(PROGRESS_FILE, prog)


def marks(prog, variant, total):
    m = prog.get("marks_" + variant, "")
    if not isinstance(m, str):
        m = ""
    if len(m) < total:
        m += UNTRIED * (total - len(m))
    return m[:total]


def record(prog, variant, number, total, right):
    """Note a try of puzzle `number`: solved stays solved, a miss is remembered."""
    m = marks(prog, variant, total)
    i = number - 1
    if 0 <= i < total and m[i] != SOLVED:
        m = m[:i] + (SOLVED if right else MISSED) + m[i + 1:]
    prog["marks_" + variant] = m


def score(prog, variant, total):
    """(solved, tried) of `variant`."""
    m = marks(prog, variant, total)
    return m.count(SOLVED), total - m.count(UNTRIED)


def next_number(prog, variant, total, after=0):
    """The first unsolved puzzle after `after` (wrapping round), 1 if all are solved."""
    m = marks(prog, variant, total)
    for k in range(total):
        i = (after + k) % total
        if m[i] != SOLVED:
            return i + 1
    return 1 if total else 0
