"""The page's glue (host_tools/simulators/web/webboard.py) in CPython and in the MicroPython VM:
fingers become taps, holds and chords the firmware reads as such; the frame text the
page draws from; the saved /data a reload boots from; the page's build is all local."""

import json
import os

import pytest

from host_tools.runners import mpvm
from host_tools.simulators import web_serve
from host_tools.simulators.web.webboard import GAP_MS, MIN_PRESS_MS, WebBoard
from mancala.hw.pixels_read import decode
from mancala.rules import get_rules


def run_until(wb, mode, limit=20000):
    t = 0
    while wb.board.mode() != mode:
        assert t < limit, "never reached %s (in %s)" % (mode, wb.board.mode())
        wb.step(20)
        t += 20


def tap(wb, pit, ms=0):
    wb.down(pit)
    wb.step(ms)
    wb.up(pit)
    for _ in range(50):
        if wb.quiet():
            return
        wb.step(20)
    raise AssertionError("never settled")


def new_game(variant="kalah3", two=True, profile="pico_buttons"):
    s = {"variant": variant, "opponent": 0 if two else 1, "coaching": 0}
    wb = WebBoard(profile, "", 1, json.dumps(s))
    run_until(wb, "menu")
    tap(wb, "NS")
    run_until(wb, "select")
    return wb


@pytest.mark.parametrize("profile", ["pico_buttons", "pico_hall", "esp32", "pico_cheap"])
def test_a_click_shorter_than_a_loop_turn_is_still_a_tap(profile):
    wb = new_game(profile=profile)  # (the menu's North store was tapped too)
    tap(wb, 2, ms=0)  # down and up in the same moment: S3
    assert wb.board.mode() == "sow"  # the firmware took it as a tap on S3
    assert wb.pressed_at[2] + MIN_PRESS_MS <= wb.clock.now()


def test_two_quick_clicks_are_two_taps_never_a_chord():
    wb = new_game()
    tap(wb, 3, ms=0)  # S4: 3 stones to S5, S6, store
    assert wb.board.mode() == "sow"
    # the next click comes at once after the release: it waits GAP_MS, so the
    # firmware sees a tap on S5 (the guided pit), not S4+S5 together
    wb.down(4)
    assert wb.pending[-1][0] >= wb.last_release
    wb.up(4)
    for _ in range(30):
        wb.step(20)
    assert wb.board.shown_pit() is None and wb.app.sow_i == 1
    assert wb.last_release - wb.pressed_at[4] >= -GAP_MS


def test_fingers_together_are_a_chord_take_back():
    wb = new_game()
    tap(wb, 3)
    for t in (4, 5, 6):
        tap(wb, t)
    run_until(wb, "select")  # S4 ended in the store: South again
    assert wb.board.counts()[6] == 1
    wb.down(0)  # S1 held (a Shift-click on the page) ...
    wb.step(100)
    wb.down(5)  # ... and S6 pressed with it
    wb.step(100)
    wb.up(5)
    wb.up(0)
    for _ in range(20):
        wb.step(20)
    assert json.loads(wb.status())["record"] == "kalah3"  # taken back
    for _ in range(80):  # the changed pits blink white for 1.5 s
        wb.step(20)
    assert wb.board.counts() == list(get_rules("kalah3").start()[:14])


def test_gesture_holds_both_stores_for_the_menu():
    wb = new_game()
    wb.gesture("[6, 13]", 3000)
    for _ in range(200):
        wb.step(20)
    assert wb.board.mode() == "menu"


def test_frame_text_is_the_pixel_buffer_and_decodes_to_the_counts():
    wb = new_game()
    wb.step(100)
    f = wb.frame().split("|")
    assert f[1] == "select" and int(f[2]) == wb.app.px.levels[wb.app.px.level]
    buf = bytes.fromhex(f[5])
    assert buf == bytes(wb.board.np.buf)
    counts, _ = decode(buf, wb.board.profile["leds"], wb.board.np.ORDER)
    assert counts == [3] * 6 + [0] + [3] * 6 + [0]
    lay = json.loads(wb.layout())
    assert lay["led_count"] == 180 and lay["order"][:3] == [1, 0, 2]
    assert wb.step(0) == ""  # no new frame, no text


def test_saved_files_boot_the_game_where_it_was():
    wb = new_game(two=False)
    tap(wb, 3)
    for t in (4, 5, 6):
        tap(wb, t)
    run_until(wb, "select")
    tap(wb, 0)
    while wb.board.mode() == "sow":
        tap(wb, wb.board.target())
    files = wb.files_json()
    assert wb.saved == wb.fs.version
    saved = json.loads(files)
    assert "/data/game.json" in saved and not any(p.endswith(".tmp") for p in saved)
    again = WebBoard("pico_buttons", files, 2)
    st = json.loads(again.status())
    assert st["record"] == "kalah3 4 1" and st["side"] == "N"
    assert st["players"] == ["person", "computer (beginner)"]
    run_until(again, "think")  # the computer's turn resumes


DAMAGED_BLOBS = [
    '{"/data/game.json": "{\\"record\\": \\"kal',  # truncated
    "not json at all",
    "null",
    '["/data/game.json"]',
    '{"/data/game.json": null}',
    '{"/data/settings.json": 3}',
    "[" * 100000 + "]" * 100000,  # nested past the parser
]


@pytest.mark.parametrize("blob", DAMAGED_BLOBS, ids=range(len(DAMAGED_BLOBS)))
def test_a_damaged_save_in_the_browser_starts_clean_and_says_so(blob):
    """Issue 23, 3: a damaged localStorage blob made WebBoard raise, so the page said
    "The firmware could not start" at every reload."""
    wb = WebBoard("pico_buttons", blob, 1)
    assert wb.damaged and "damaged" in wb.logs()
    run_until(wb, "menu")  # the board runs, from a clean /data
    assert json.loads(wb.status())["mode"] == "menu"
    saved = json.loads(wb.files_json())  # what the page stores over the damaged blob
    again = WebBoard("pico_buttons", json.dumps(saved), 2)
    assert again.damaged is None


def test_the_built_page_loads_nothing_from_outside(tmp_path):
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed: run `make setup` (npm ci)")
    out = web_serve.build(str(tmp_path))
    for name in ("index.html", "board.js", "board.css", "vm/micropython.mjs",
                 "vm/micropython.wasm", "py/bundle.json"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    for name in ("index.html", "board.js", "board.css"):
        text = open(os.path.join(out, name)).read()
        assert "@BUNDLE_VERSION@" not in text
        for bad in ("https://", "http://cdn", "//unpkg", "//cdn"):
            assert bad not in text, (name, bad)
    bundle = json.load(open(os.path.join(out, "py", "bundle.json")))
    firmware = os.path.join(web_serve.ROOT, "firmware", "mancala", "app.py")
    assert bundle["/lib/mancala/app.py"] == open(firmware).read()  # the firmware, unchanged
    assert {"/lib/machine.py", "/lib/neopixel.py", "/lib/webboard.py"} <= set(bundle)


def test_glue_runs_in_micropython(tmp_path):
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed: run `make setup` (npm ci)")
    root = web_serve.ROOT
    code = r'''
import json, sys
assert sys.implementation.name == "micropython"
from webboard import WebBoard
wb = WebBoard("pico_cheap", "", 1, json.dumps({"variant": "kalah3", "opponent": 0}))
for _ in range(10):
    wb.step(20)
wb.down(13); wb.up(13)
for _ in range(20):
    wb.step(20)
f = wb.frame().split("|")
print(json.dumps([f[1], len(f[5]), json.loads(wb.decoded())[0]]))
'''
    out = mpvm.run(code, mounts=[(os.path.join(root, "host_tools", "fakes"), "/lib"),
                                 (os.path.join(root, "host_tools", "simulators", "web", "webboard.py"),
                                  "/lib/webboard.py")])
    mode, hexlen, counts = json.loads(out.strip().splitlines()[-1])
    assert mode == "select" and hexlen == 14 * 6
    assert [c for c in counts if c is not None] and all(c in (3, 0) for c in counts if c is not None)


def test_the_server_serves_the_page_and_the_vm_on_loopback(tmp_path):
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed: run `make setup` (npm ci)")
    import urllib.request

    out = web_serve.build(str(tmp_path))
    srv, url = web_serve.serve_in_thread(out)
    try:
        assert url.startswith("http://127.0.0.1:")
        for path, kind in (("", "text/html"), ("vm/micropython.wasm", "application/wasm"),
                           ("vm/micropython.mjs", "text/javascript"),
                           ("py/bundle.json", "application/json")):
            with urllib.request.urlopen(url + path, timeout=10) as r:
                assert r.status == 200
                assert r.headers["Content-Type"].startswith(kind), (path, r.headers["Content-Type"])
    finally:
        srv.shutdown()
        srv.server_close()
