"""The board in a real headless Chromium: the page runs the firmware in the MicroPython
WebAssembly VM; a whole game is played by mouse clicks, the counts the page drew are
checked against the rules core after every move, a reload resumes the game."""

import time

import pytest
from web_helpers import (  # noqa: F401
    click_pit,
    drawn,
    load,
    settle,
    site,
    skip_module_without_browser,
    wait_for,
)

from mancala.rules import MASK, SIDE, get_rules

skip_module_without_browser()  # where Chromium is missing: one line for the module

WAITING = ("boot", "think", "anim", "grade")


def wait_mode(browser, layout, modes, timeout=60):
    return wait_for(lambda: (lambda d: d if d[0] in modes else None)(drawn(browser, layout)),
                    timeout=timeout, every=0.03, what="mode %s" % (modes,))


def lit(browser, layout, want, tries=20):
    """The pit whose drawn state satisfies `want(counts, bgs, i)`; blinks are waited out."""
    for _ in range(tries):
        mode, counts, bgs = drawn(browser, layout)
        for i in range(14):
            if want(counts, bgs, i):
                return mode, i
        time.sleep(0.06)
    raise AssertionError("no such pit drawn: %r" % (drawn(browser, layout),))


def sow(browser, layout):
    """Click the white guide pit, stone by stone, as a person follows the board."""
    n = 0
    while True:
        mode, counts, bgs = drawn(browser, layout)
        if mode != "sow":
            return n
        mode, t = lit(browser, layout, lambda c, b, i: b[i] == "white")
        click_pit(browser, t)
        n += 1


def assert_counts(browser, layout, ref, mode_expected=None):
    mode, counts, bgs = drawn(browser, layout)
    if mode_expected:
        assert mode == mode_expected
    if mode == "over":  # the pits are lit in the winner's colour; the stores keep counts
        assert (counts[6], counts[13]) == (ref[6], ref[13]), (counts, list(ref[:14]))
    else:
        assert counts == list(ref[:14]), (mode, counts, list(ref[:14]))


@pytest.mark.long  # 38 s of clicks on the browser's real clock: make test-long; make
# test keeps the browser's other tests (a build's keys and counts, touch, a battery)
def test_a_whole_game_by_clicks_counts_checked_and_a_reload_resumes(site):  # noqa: F811
    url, browser = site
    layout = load(browser, url + "?fresh&variant=kalah3&level=beginner&coaching=off")
    assert len(layout["leds"]) == 14 and layout["led_count"] == 180
    wait_mode(browser, layout, ("menu",))
    click_pit(browser, 13)  # the North store starts the game
    rules = get_rules("kalah3")
    ref = rules.start(0)
    wait_mode(browser, layout, ("select",))
    assert_counts(browser, layout, ref, "select")
    assert ref[6] == 0 and sum(ref[:14]) == 36

    seed = [7]
    moves = []
    reloaded = took_back = False
    while True:
        mode, counts, bgs = wait_mode(browser, layout, ("select", "show", "over", "blunder"))
        if mode == "over":
            break
        side = ref[SIDE]
        if mode == "select":
            assert side == 0, "the person plays South"
            assert counts == list(ref[:14])
            # the legal pits are drawn on the mover's background
            legal = [k for k in range(6) if ref[MASK] >> k & 1]
            assert [k for k in range(6) if bgs[k] == "south"] == legal
            if len(moves) >= 4 and not reloaded:
                # a reload is a power cut: the board boots the saved game
                reloaded = True
                layout = load(browser, url)
                wait_mode(browser, layout, ("select",))
                assert_counts(browser, layout, ref, "select")
                continue
            if len(moves) >= 6 and reloaded and not took_back:
                # a chord by mouse: Shift-click S1 keeps it pressed, clicking S6 completes
                # the take-back (S1 + S6); the board goes back to South's last choice
                took_back = True
                from selenium.webdriver.common.action_chains import ActionChains
                from selenium.webdriver.common.keys import Keys

                s1 = browser.find_element("css selector", '#hits [data-pit="0"]')
                ActionChains(browser.driver).key_down(Keys.SHIFT).click(s1).key_up(Keys.SHIFT) \
                    .perform()
                click_pit(browser, 5)
                while True:  # undo to South's last move, as the firmware does
                    moves.pop()
                    ref = rules.start(0)
                    for mv in moves:
                        rules.move(ref, mv)
                    if ref[SIDE] == 0:
                        break
                wait_mode(browser, layout, ("select",))
                # the changed pits blink white for 1.5 s: wait it out on the page
                wait_for(lambda lay=layout, want=list(ref[:14]): drawn(browser, lay)[1] == want,
                         timeout=10, what="the take-back's blink to end")
                assert_counts(browser, layout, ref, "select")
                continue
            seed[0] = (seed[0] * 1103515245 + 12345) & 0x3FFFFFFF
            pit = legal[(seed[0] >> 8) % len(legal)]
            click_pit(browser, pit)
        elif mode == "blunder":  # coaching is off: never here
            raise AssertionError("blunder pause with coaching off")
        else:  # show: the computer's pit blinks in its colour; take its stones
            assert side == 1
            _, pit = lit(browser, layout, lambda c, b, i: 7 <= i < 13 and c[i] is None
                         and b[i] == "north")
            pit -= 7
            assert ref[MASK] >> pit & 1
            click_pit(browser, 7 + pit)
        sown = sow(browser, layout)
        assert sown == ref[side * 7 + pit]  # one click per stone, as guided
        rules.move(ref, pit)
        moves.append(pit)
        mode, counts, _ = wait_mode(browser, layout, ("select", "show", "over"))
        if mode != "show":
            assert_counts(browser, layout, ref)
        assert len(moves) < 120
    assert reloaded and took_back
    assert ref[MASK] == 0  # the rules core agrees the game is over
    assert_counts(browser, layout, ref, "over")
    st = browser.js("return JSON.parse(window.mancala.wb.status())")
    assert st["over"] and st["record"] == "kalah3 " + " ".join(str(m + 1) for m in moves)
    errors = [m for m in browser.console() if "SEVERE" in m or "rror" in m]
    assert not errors, errors
    # offline: everything the page loaded came from the local server
    loaded = browser.js("return performance.getEntriesByType('resource').map(e => e.name)")
    assert loaded and all(u.startswith(url) for u in loaded), loaded


def test_one_led_build_keys_and_counts_by_colour(site):  # noqa: F811
    url, browser = site
    layout = load(browser, url + "?profile=pico_cheap&fresh&variant=kalah3&two")
    assert layout["led_count"] == 14 and all(n == 1 for _, n in layout["leds"])
    assert len(browser.find_elements("css selector", "#leds .led")) == 14
    wait_mode(browser, layout, ("menu",))
    body = browser.find_element("css selector", "body")
    body.send_keys("`")  # the North store's key starts the game
    settle(browser)
    wait_mode(browser, layout, ("select",))
    rules = get_rules("kalah3")
    ref = rules.start(0)
    # legal pits blink their side's colour on one LED: every pit reads its count
    # (3 = the third lap colour, blue) in one of the two phases
    seen = [None] * 14
    for _ in range(30):
        _, counts, _ = drawn(browser, layout)
        for i in range(14):
            if counts[i] is not None:
                seen[i] = counts[i]
        if None not in seen:
            break
        time.sleep(0.05)
    assert seen == list(ref[:14])
    body.send_keys("f")  # S4: 3 stones into S5, S6 and the store: an extra turn
    settle(browser)
    wait_mode(browser, layout, ("sow",))
    for target in (4, 5, 6):
        mode, t = lit(browser, layout, lambda c, b, i: b[i] == "white")
        assert t == target
        body.send_keys("asdfghj"[t])
        settle(browser)
    rules.move(ref, 3)
    mode, counts, _ = wait_mode(browser, layout, ("select",))
    assert ref[SIDE] == 0 and ref[6] == 1
    # a held pit blinks its count on the one LED (HOLD): the labels read it back
    stats = browser.js("return window.mancala.stats")
    assert stats["loadMs"] > 0 and stats["clicks"], stats


def _touch(browser, kind, pits):
    points = []
    for k, pit in enumerate(pits):
        r = browser.find_element("css selector", '#hits [data-pit="%d"]' % pit).rect
        points.append({"x": r["x"] + r["width"] / 2, "y": r["y"] + r["height"] / 2, "id": k})
    browser.driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                                   {"type": kind, "touchPoints": points if kind != "touchEnd" else []})


def test_touch_a_pit_and_two_fingers_take_back(site):  # noqa: F811
    url, browser = site
    layout = load(browser, url + "?fresh&variant=kalah3&two")
    wait_mode(browser, layout, ("menu",))
    click_pit(browser, 13)
    wait_mode(browser, layout, ("select",))
    _touch(browser, "touchStart", [2])  # one finger on S3, lifted
    time.sleep(0.15)
    _touch(browser, "touchEnd", [])
    settle(browser)
    mode, counts, bgs = wait_mode(browser, layout, ("sow",))
    assert counts[2] == 0  # S3's stones in the hand
    # S4 is guided: drawn white (waiting out a blink's dark phase)
    assert lit(browser, layout, lambda c, b, i: i == 3 and b[3] == "white")[1] == 3
    _touch(browser, "touchStart", [0, 5])  # two fingers: S1 + S6 = take back
    time.sleep(0.25)
    _touch(browser, "touchEnd", [])
    settle(browser)
    wait_mode(browser, layout, ("select",))
    # the changed pit blinks white for 1.5 s: wait it out on the page
    want = ("select", [3] * 6 + [0] + [3] * 6 + [0])
    wait_for(lambda: drawn(browser, layout)[:2] == want, timeout=10, what="the take-back's blink to end")
    mode, counts, _ = drawn(browser, layout)
    assert (mode, counts) == want


def test_a_battery_build_shows_its_cell_the_warning_and_idles(site):  # noqa: F811
    url, browser = site
    layout = load(browser, url + "?profile=pico_cheap%2Bbattery&fresh&two")
    wait_mode(browser, layout, ("menu",))
    # the page's flash has the board's opening book (issue 26: "book: no
    # /tables/kalah.book" on every page), written as bytes from the bundle's base64
    log = browser.js("return document.getElementById('console').textContent")
    assert "tables: no /tables/kalah.tb" in log and "book:" not in log, log
    assert not browser.js("return document.getElementById('cell').hidden")
    browser.js("const b = document.getElementById('battery'); b.value = 3550;"
               "b.dispatchEvent(new Event('input'))")
    wait_for(lambda: "LOW" in browser.js("return document.getElementById('batteryText')"
                                         ".textContent"), what="the low-battery text")
    browser.js("document.getElementById('idleNow').click()")
    wait_for(lambda: browser.js("return document.getElementById('idle').dataset.idle") == "dim",
             what="the dim state")
    wait_for(lambda: browser.js(
        "return [...document.querySelectorAll('#leds .led')].filter("
        "e => (e.dataset.rgb || '0,0,0') !== '0,0,0').length") == 1, what="one LED lit")


def _text(browser, css):
    return browser.js("return [...document.querySelectorAll(arguments[0])].map("
                      "e => e.textContent).join('\\n')", css)


def _saved(browser, url, record, human, level, **settings):
    from host_tools.benches.web_measure import _saved_game

    browser.js("localStorage.setItem('mancala-web:v1:pico_buttons', arguments[0])",
               _saved_game(record, human, level, settings))
    return load(browser, url + "?profile=pico_buttons")


def test_the_page_says_the_menu_the_computers_move_and_the_result(site):  # noqa: F811
    """Issue 26 item 9: the words on the page after given moves (tests/test_web_words.py
    has them from the glue in CPython and the VM)."""
    url, browser = site
    layout = load(browser, url + "?fresh&variant=kalah3&level=beginner")
    wait_mode(browser, layout, ("menu",))
    wait_for(lambda: "MENU" in _text(browser, "#words div"), what="the menu's words")
    words = _text(browser, "#words div")
    assert "S1 variant: kalah 3 seeds" in words and "S2 opponent: beginner" in words, words
    # the pits are labelled with the items and values, not menu lights read as stones
    assert _text(browser, "#labelsLayer .count").strip() == ""
    assert browser.js("return document.querySelector('.menuword[data-pit=\"0\"]')"
                      ".dataset.word") == "variant: kalah 3 seeds"
    assert browser.js("return document.querySelector('.menuword[data-pit=\"11\"]')"
                      ".dataset.word") == "kalah 3 seeds"
    # the computer's move names the pit that blinks
    layout = _saved(browser, url, "kalah3 3", 1, 1, coaching=0)
    mode, pit = lit(browser, layout, lambda c, b, i: 7 <= i < 13 and c[i] is None
                    and b[i] == "north", tries=400)
    assert mode == "show"
    wait_for(lambda: "the computer plays" in _text(browser, "#words div"), what="the move's words")
    assert "the computer plays N%d: take the blinking pit's stones and click it" % (pit - 6) in \
        _text(browser, "#words div")
    assert "the computer (North) played N%d" % (pit - 6) in _text(browser, "#events li")
    # game over: who won and the score
    layout = _saved(browser, url, "kalah 0,0,0,0,0,1,30,0,0,0,0,0,1,16 S", 3, 0, quick=1)
    wait_mode(browser, layout, ("select",))
    click_pit(browser, 5)
    wait_mode(browser, layout, ("over",))
    wait_for(lambda: "game over" in _text(browser, "#words div"), what="the result's words")
    assert "game over: South wins, 31-17; any pit for the menu" in _text(browser, "#words div")
    assert "game over: South wins, 31-17" in _text(browser, "#events li")
