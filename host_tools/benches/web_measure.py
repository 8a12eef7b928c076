"""The page in headless Chromium: its load time, the time from a click to the lit
frame, and the screenshots in docs/img/.

    make web-measure                    (python -m host_tools.benches.web_measure)
    python -m host_tools.benches.web_measure [--loads 5] [--clicks 30] [--shots docs/img]

Load time: navigation start to the first frame the firmware drew (the VM and the
firmware fetched, compiled and booted): the first load with an empty cache, then
reloads.
Click to light: a real mouse click on a pit (pointer down) to the animation frame
that draws the pit pressed; the firmware itself needs two loop turns (its 30 ms
debounce at a 20 ms loop) before it lights a pressed pit, so that part is given
beside the total.  Numbers are from this machine's headless Chromium (no GPU).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from host_tools.simulators import web_serve
from host_tools.simulators.web_browser import BrowserMissing, open_browser
from mancala.app import App

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _wait(browser, script, timeout=30.0):
    end = time.monotonic() + timeout
    while True:
        v = browser.js(script)
        if v:
            return v
        if time.monotonic() > end:
            raise RuntimeError("timed out: %s" % script)
        time.sleep(0.02)


def _load(browser, url):
    browser.get(url)
    return _wait(browser, "return window.mancala && window.mancala.stats.loadMs"
                          " && window.mancala.stats")


def _settle(browser):
    _wait(browser, "return window.mancala.wb.quiet()")


def _click(browser, pit):
    browser.find_element("css selector", '#hits [data-pit="%d"]' % pit).click()
    _settle(browser)


def _mode(browser):
    return browser.js("return document.getElementById('mode').dataset.mode")


def _wait_mode(browser, modes, timeout=30.0):
    end = time.monotonic() + timeout
    while _mode(browser) not in modes:
        if time.monotonic() > end:
            raise RuntimeError("the page never reached %s" % (modes,))
        time.sleep(0.03)


def measure(browser, url, loads=5, clicks=30):
    out = {}
    stats = []
    for k in range(loads):
        stats.append(_load(browser, url + ("?fresh&variant=kalah" if k == 0 else "")))
    out["load_ms"] = [round(s["loadMs"]) for s in stats]
    out["vm_start_ms"] = [round(s["vmLoadMs"]) for s in stats]
    out["boot_ms"] = [round(s["bootMs"]) for s in stats]
    # clicks in a game: pits that are not the mover's (a red flash, no move), as the
    # VM benchmark (tests/test_mpvm_board.py) presses them
    _wait_mode(browser, ("menu",))
    _click(browser, 13)
    _wait_mode(browser, ("select",))
    browser.js("window.mancala.stats.clicks.length = 0; window.mancala.stats.stepMs = 0;"
               " window.mancala.stats.steps = 0;")
    for k in range(clicks):
        _click(browser, (9, 8, 13)[k % 3])
        time.sleep(0.55)  # past the red flash
    s = browser.js("return window.mancala.stats")
    out["click_to_light_ms"] = [round(v, 1) for v in s["clicks"]]
    out["vm_ms_per_call"] = round(s["stepMs"] / max(1, s["steps"]), 3)
    from mancala.hw.pits import Pits

    # the firmware's share: a press is stable (and lit) at the first loop turn
    # DEBOUNCE_MS after the turn that read it (and the pins are read once a turn)
    turns = -(-Pits.DEBOUNCE_MS // App.FRAME_MS)
    out["firmware_debounce_ms"] = turns * App.FRAME_MS
    return out


def _saved_game(record, human=1, level=4, settings=None):
    """The page's saved /data (as the page keeps it in localStorage) holding `record`."""
    from host_tools.fakes.memfs import MemFs
    from mancala.app import DEFAULTS
    from mancala.hw.storage import Storage

    fs = MemFs()
    st = Storage(fs)
    s = dict(DEFAULTS)
    s.update(settings or {})
    st.save("settings.json", s)
    st.save("game.json", {"record": record, "number": 1, "human": human, "level": level,
                          "hints": 3})
    return json.dumps({p: d.decode() for p, d in fs.files.items()})


def _with_saved(browser, url, profile, files):
    browser.get(url + "?profile=%s" % profile)
    _wait(browser, "return window.mancala && window.mancala.stats.loadMs")
    browser.js("localStorage.setItem(arguments[0], arguments[1])", "mancala-web:v1:" + profile,
               files)
    return _load(browser, url + "?profile=%s" % profile)


def shots(browser, url, folder, only_board=False):
    """The screenshots of docs/WEB.md: the menu, the board at the start, during the
    computer's move, at game over, the one-LED build; and a report."""
    os.makedirs(folder, exist_ok=True)
    browser.driver.set_window_size(1100, 900)

    def shot(name):
        path = os.path.join(folder, name)
        browser.find_element("css selector", "main").screenshot(path)
        print("wrote %s" % path)

    def saved_shot(name, profile, record, level, mode, settle=0.3):
        _with_saved(browser, url, profile, _saved_game(record, level=level))
        _wait_mode(browser, (mode,))
        time.sleep(settle)
        shot(name)

    rec = "kalah3 5 4 3 3 4 4 2 5 1 4 2 5 4 1 3 6 5 5 6 3 4 6 5 3 4 6 6 2 5 5 6"
    # the menu: each item and its value on the pits, the chosen item's values in words
    _load(browser, url + "?profile=pico_buttons&fresh&variant=kalah&level=master")
    _wait_mode(browser, ("menu",))
    _click(browser, 1)  # the opponent item: its values on the North row
    time.sleep(0.3)
    shot("web-menu.png")
    # the start of a kalah game, South to move
    saved_shot("web-start.png", "pico_buttons", "kalah", 4, "select")
    # the computer (master) thinks, then shows its move: its pit blinks in its colour
    saved_shot("web-computer-thinks.png", "pico_buttons", "kalah 3 6", 4, "think", 0.4)
    _wait_mode(browser, ("show",))
    from mancala.hw.pixels_read import decode

    layout = browser.js("return window.mancala.layout")
    for _ in range(80):  # the blink's lit phase: the computer's pit in North's colour
        flat = browser.js("const rgb = []; for (const e of document.querySelectorAll("
                          "'#leds .led')) rgb[Number(e.dataset.i)] = e.dataset.rgb;"
                          "return rgb.join(',')")
        counts, bgs = decode(bytes(int(v) for v in flat.split(",")),
                             [tuple(x) for x in layout["leds"]], (0, 1, 2, 3))
        if any(counts[i] is None and bgs[i] == "north" for i in range(7, 13)):
            break
        time.sleep(0.03)
    shot("web-computer-move.png")
    # game over (a finished kalah3 game): the pits in the winner's colour, the stores' counts
    saved_shot("web-over.png", "pico_buttons", rec, 2, "over")
    # the one-LED build at the start
    saved_shot("web-one-led.png", "pico_cheap", "kalah", 4, "select")
    if only_board:
        return
    # a report of the finished game
    from host_tools.command import game_analysis, report

    rows = game_analysis.analyse_record(rec, 20000)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "report.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(report.html(report.build(rec, rows, 20000)))
        browser.driver.set_window_size(1000, 1300)
        browser.get("file://" + path)
        time.sleep(0.3)
        worst = max(rows, key=lambda r: r["loss"])["ply"]
        browser.find_element("css selector", '#graph circle.mv[data-ply="%d"]' % worst).click()
        time.sleep(0.2)
        out = os.path.join(folder, "report.png")
        browser.driver.save_screenshot(out)
        print("wrote %s" % out)
        with open(os.path.join(folder, "report-graph.png"), "wb") as f:
            f.write(report.png(report.build(rec, rows, 20000), scale=1))
        print("wrote %s" % os.path.join(folder, "report-graph.png"))


def _summary(values):
    return "median %.0f, min %.0f, max %.0f (n=%d)" % (
        statistics.median(values), min(values), max(values), len(values))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.benches.web_measure", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--clicks", type=int, default=30)
    ap.add_argument("--shots", metavar="DIR", help="also write the docs' screenshots into DIR")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        out = web_serve.build(d)
        srv, url = web_serve.serve_in_thread(out)
        try:
            browser = open_browser()
        except BrowserMissing as e:
            print("error: %s" % e, file=sys.stderr)
            return 1
        try:
            m = measure(browser, url, a.loads, a.clicks)
            loads, vm, boot = m["load_ms"], m["vm_start_ms"], m["boot_ms"]
            print("page load (navigation -> first frame), empty cache: %d ms (VM start %d ms, "
                  "firmware boot %d ms)" % (loads[0], vm[0], boot[0]))
            if len(loads) > 1:
                print("page load, reloads: %s ms" % _summary(loads[1:]))
                print("  of which the VM (fetch + instantiate micropython.wasm): %s ms"
                      % _summary(vm[1:]))
                print("  of which the firmware compiled, imported and booted in the VM: %s ms"
                      % _summary(boot[1:]))
            c = m["click_to_light_ms"]
            print("click -> lit frame: %s ms" % _summary(c))
            d = m["firmware_debounce_ms"]
            print("  the firmware's own share: %d ms (its debounce, in loop turns) + up to %d ms "
                  "until the next loop turn reads the pins; ratio click-to-light / %d ms = %.2f"
                  % (d, App.FRAME_MS, d, statistics.median(c) / d))
            print("VM time per page loop call (one or more firmware loop turns): %.3f ms"
                  % m["vm_ms_per_call"])
            if a.shots:
                shots(browser, url, a.shots)
        finally:
            browser.quit()
            srv.shutdown()
            srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
