"""modes/menu.py alone: items, choices, the start, the activities; and the engine kept
across variants (need_engine gives the old engine's table to the new one)."""

import pytest
from modes_helpers import FakeApp, mode

from mancala import modes as M
from mancala.hw import pits as P
from mancala.modes import menu


@pytest.fixture
def app(monkeypatch):
    a = FakeApp()
    a.mode = M.MENU
    monkeypatch.setattr(menu, "save_settings", lambda app: app.calls.append(("save",)))
    monkeypatch.setattr(menu, "new_game", lambda app: app.calls.append(("new_game",)))
    return a


def test_an_items_pit_selects_it_and_a_choice_is_set_and_saved(app):
    m = mode(M.MENU)
    m.on_event(app, P.TAP, 1)  # the opponent
    assert app.item == 1
    counts, bgs = app.draw()
    assert counts[7:12] == [1, 2, 3, 4, 5] and bgs[7 + app.settings["opponent"]] == "green"
    m.on_event(app, P.TAP, 10)  # strong
    assert app.settings["opponent"] == 3 and ("save",) in app.calls
    m.on_event(app, P.TAP, 12)  # beyond the five choices
    assert app.calls[-1] == ("no", 1 << 12)
    m.on_event(app, P.TAP, 0)
    m.on_event(app, P.TAP, 10)
    assert app.settings["variant"] == "oware"


def test_the_north_store_starts_a_new_game_or_the_chosen_activity(app, monkeypatch):
    m = mode(M.MENU)
    m.on_event(app, P.TAP, 13)
    assert app.calls[-1] == ("new_game",)
    monkeypatch.setattr(M, "ACTIVITIES", [])
    monkeypatch.setattr(menu, "ACTIVITIES", M.ACTIVITIES)
    M.add_activity(M.LED_TEST)  # (any mode number stands for an activity here)
    app.settings["play"] = 1
    m.on_event(app, P.TAP, 13)
    assert app.modes_asked() == [M.LED_TEST]
    assert menu.choices(app, "play") == 2


def test_items_sharing_a_pit_are_chosen_by_tapping_it_again(app, monkeypatch):
    items = list(menu.ITEMS)
    if "play" not in [k for k, _, _ in items]:  # (a build with activities has it already)
        items.append(("play", 6, (1, 2, 3)))
    monkeypatch.setattr(menu, "ITEMS", items)
    app.settings["play"] = 0
    m = mode(M.MENU)
    m.on_event(app, P.TAP, 6)
    assert menu.ITEMS[app.item][0] == "quick"
    m.on_event(app, P.TAP, 6)
    assert menu.ITEMS[app.item][0] == "play"
    m.on_event(app, P.TAP, 6)
    assert menu.ITEMS[app.item][0] == "quick"


def test_holding_both_stores_goes_back_to_the_game(app):
    mode(M.MENU).on_event(app, P.LONG, (1 << 6) | (1 << 13))
    assert app.calls == [("toggle_menu",)]


def test_a_new_variant_gets_the_old_engines_table_and_plays_like_a_new_engine():
    from mancala.engine import Engine
    from mancala.rules import get_rules

    app = FakeApp()
    app.engine_cls = Engine
    app.rng = type("R", (), {"next": lambda self: 7})()
    app.engine = None
    menu.need_engine(app, get_rules("kalah"))
    old = app.engine
    table = old.ttd
    old.search(bytes(app.game.pos), level=1)
    menu.need_engine(app, get_rules("oware"))
    assert app.engine is not old and app.engine.ttd is table  # nothing big allocated
    fresh = Engine(get_rules("oware"), tt_bits=app.profile["tt_bits"], seed=7 & 0xFFFF)
    pos = get_rules("oware").start(0)
    assert app.engine.search(pos, level=2) == fresh.search(pos, level=2)
    assert list(app.engine.z) == list(fresh.z)
