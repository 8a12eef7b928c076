"""The player guide in English and Russian stays in step: the same gestures, the
same menu items and values (each row carries an id comment), the same tables with
the same numbers; and the menu is the firmware's."""

import os
import re

import pytest

from mancala import app as A

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
GUIDES = ("PLAYER_GUIDE.md", "PLAYER_GUIDE.ru.md")
ID = re.compile(r"<!--\s*(gesture|menu):\s*([\w-]+)\s*-->")


def tables(name):
    """[[row, ...], ...]: the data rows of every table, in order."""
    with open(os.path.join(DOCS, name), encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, cur = [], None
    for line in lines:
        if line.startswith("|"):
            if cur is None:
                cur = []
                out.append(cur)
            cur.append(line)
        else:
            cur = None
    return [t[2:] for t in out]  # without the header and the |---| line


def ids(name, kind):
    return [m.group(2) for t in tables(name) for row in t for m in ID.finditer(row)
            if m.group(1) == kind]


def cells(row):
    return [c.strip() for c in ID.sub("", row).strip().strip("|").split("|")]


def numbers(row):
    return re.findall(r"\d+(?:\.\d+)?", ID.sub("", row))


@pytest.mark.parametrize("kind", ["gesture", "menu"])
def test_both_guides_have_the_same_gestures_and_menu_items(kind):
    en, ru = (ids(g, kind) for g in GUIDES)
    assert en and en == ru, "only in English: %s; only in Russian: %s" % (
        sorted(set(en) - set(ru)), sorted(set(ru) - set(en)))


def test_every_row_of_the_gesture_and_menu_tables_has_an_id():
    for g in GUIDES:
        for t in tables(g):
            tagged = [bool(ID.search(row)) for row in t]
            if any(tagged):
                assert all(tagged), (g, [row for row, x in zip(t, tagged, strict=True) if not x])


def test_the_tables_match_row_by_row():
    en, ru = (tables(g) for g in GUIDES)
    assert len(en) == len(ru)
    for te, tr in zip(en, ru, strict=True):
        assert len(te) == len(tr), (te[0], tr[0])
        for re_, rr in zip(te, tr, strict=True):
            assert numbers(re_) == numbers(rr), (re_, rr)  # 2.5 s, pit 1 + pit 6, ...
            assert len(cells(re_)) == len(cells(rr)), (re_, rr)
            assert [bool(c) for c in cells(re_)] == [bool(c) for c in cells(rr)], (re_, rr)


def test_the_menu_in_the_guides_is_the_firmwares():
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import SimBoard

    app = SimBoard("pico_buttons", machine, neopixel).app
    keys = [k for k, _, _ in A.ITEMS]
    for g in GUIDES:
        assert ids(g, "menu") == keys, g
        rows = [row for t in tables(g) for row in t if "<!-- menu:" in row]
        for key, row in zip(keys, rows, strict=True):
            values = [c for c in cells(row)[1:] if c]
            assert len(values) == app.choices(key), (g, key, values)
