"""The board drawn in the terminal, as seen from South's seat."""

from mancala.rules import MASK, N_STORE, S_STORE, SIDE

SIDE_NAMES = ("South", "North")


def draw(rules, pos, end_note=None):
    """Lines of text: North's row on top (N6..N1 left to right), stores at the ends."""
    mask = pos[MASK]
    side = pos[SIDE]

    def cell(i, pit):
        mark = "*" if mask and pos[SIDE] == (0 if i < 7 else 1) and mask >> pit & 1 else " "
        return "%s%2d " % (mark, pos[i])

    north = [12 - k for k in range(6)]  # N6 .. N1
    south = list(range(6))  # S1 .. S6
    lines = [
        "        " + "  ".join(" N%d" % (i - 6) for i in north),
        "       " + "|".join(cell(i, i - 7) for i in north) + "|",
        "  %3d" % pos[N_STORE] + " " * 36 + "%3d" % pos[S_STORE],
        "       " + "|".join(cell(i, i) for i in south) + "|",
        "        " + "  ".join(" S%d" % (i + 1) for i in south),
    ]
    if mask:
        lines.append("%s to move (%s); * marks a legal pit" % (SIDE_NAMES[side], rules.id))
    else:
        s, n = pos[S_STORE], pos[N_STORE]
        result = "South wins" if s > n else "North wins" if n > s else "a draw"
        lines.append("game over%s: %d-%d, %s" % (
            " (" + end_note + ")" if end_note else "", s, n, result))
    return lines
