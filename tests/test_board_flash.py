"""Issue 22: the red "no" flash and the presses during a think, on the simulated board
(its clock charges a Pico's time for each frame and engine node, tests/board_helpers.py).
A pit pressed again while its red flash is lit shows the finger within 40 ms (on the
old firmware the red covered the finger's dot until the blink turned: 115-149 ms on the
RP2040 model); a press during a think costs its frames, not a redraw every
ANIM_FRAME_MS for the whole flash."""

from board_helpers import board, start
from test_board_think import one_think, to_think

from host_tools.fakes.board import index
from mancala import app as A


def _frame(b, pit=None):
    if pit is None:
        return bytes(b.np.buf)
    first, n = b.profile["leds"][pit]
    return bytes(b.np.buf[3 * first:3 * (first + n)])


def _redpress_latency(b, pit):
    """Tap `pit` (a red flash), press it again in the flash's second red blink: the
    ms from that press to the first frame in which that pit differs from before."""
    i = index(pit)
    b.tap(i)
    assert b.app.flash >> i & 1
    t_flash = b.app.t_flash
    while b.clock.now() < t_flash + 2 * getattr(A.App, "FLASH_BLINK_MS", 125) + 10:
        b.turn()
    while b.decoded()[1][i] != "red":  # its second red blink, drawn
        assert b.clock.now() < t_flash + 360, b.decoded()
        b.turn()
    before = _frame(b, i)
    t = b.clock.now() + 3
    b.at(t, i, True)
    changed = []
    b.app.on_frame = lambda app: changed.append(b.clock.now()) if _frame(b, i) != before else None
    while b.clock.now() < t + 60:
        b.turn()
    b.app.on_frame = None
    assert b.app.flash >> i & 1  # still inside the first flash's time
    assert changed, "no frame showed the press"
    return changed[0] - t


def test_a_pit_pressed_again_while_it_flashes_red_changes_within_40_ms():
    b = to_think("kalah", "pico_buttons")  # while the computer thinks
    assert _redpress_latency(b, "S2") <= 40
    b = board("pico_buttons", variant="kalah", opponent=0)  # the person's turn: North's pit
    start(b)
    assert b.mode() == "select"
    assert _redpress_latency(b, "N3") <= 40


def test_a_tap_during_a_think_costs_its_frames_only():
    """The frames a tap adds to a think: its press (the finger's dot), its release (the
    dot goes; the tap, once debounced: the flash), the flash's three blink turns and its
    end; the think's nodes stay within 5% of the same think untouched (the old firmware
    redrew every ANIM_FRAME_MS through the flash)."""
    b = to_think("kalah", "pico_buttons")
    f0 = b.app.frame_no
    _, _, _, _ = one_think(b)
    quiet_frames, quiet_nodes = b.app.frame_no - f0, b.nodes

    b = to_think("kalah", "pico_buttons")
    f0 = b.app.frame_no
    b.at(b.clock.now() + 400, index("S3"), True)
    b.at(b.clock.now() + 500, index("S3"), False)
    _, _, _, _ = one_think(b)
    assert b.app.flash == 0 or b.mode() != "think"
    extra = b.app.frame_no - f0 - quiet_frames
    assert extra <= 7, extra
    assert b.nodes >= 0.95 * quiet_nodes, (b.nodes, quiet_nodes)



def test_a_tap_during_a_think_sends_no_frame_twice():
    """Every frame a tap adds to a think changes the LEDs: the debounced press does
    not redraw the dot its raw edge lit, and the flash's end draws nothing after its
    last (dark) blink, which already shows the pit as it is after.  (On the chain's
    bitstream a frame is ~8 ms of the CPU the search does not get.)"""
    for pit in ("S3", "S5", "N2"):
        b = to_think("kalah", "pico_buttons")
        sent = []
        b.app.on_frame = lambda app, b=b, sent=sent: sent.append((b.clock.now(), bytes(b.np.buf)))
        t = b.clock.now()
        b.at(t + 300, index(pit), True)
        b.at(t + 420, index(pit), False)
        while b.mode() == "think" and b.clock.now() < t + 1100:
            b.turn()
        assert b.mode() == "think"
        assert len(sent) >= 6, sent  # the dot, its end with the flash, three blinks
        same = [ts for (ts, f), (_, g) in zip(sent[1:], sent[:-1], strict=True) if f == g]
        assert not same, (pit, same)


def test_a_think_draws_only_the_pits_its_light_leaves_and_reaches():
    """Issue 22: a think's frame drew all fourteen pits (~9 ms of Python on the RP2040
    model) for a light that moved one pit; now the two pits alone, as the whole frame
    would draw them (the buffer is the same as a whole frame's)."""
    b = to_think("kalah", "pico_buttons")
    px = b.app.px
    drawn = []
    count = px.count

    def counting(i, c, bg=None):
        drawn.append(i)
        count(i, c, bg)

    px.count = counting
    per_frame = []
    b.app.on_frame = lambda app: (per_frame.append(sorted(set(drawn))), drawn.clear())
    t = b.clock.now()
    while b.mode() == "think" and b.clock.now() < t + 6 * A.App.THINK_STEP_MS:
        b.turn()
    px.count = count
    b.app.on_frame = None
    steps = [f for f in per_frame if len(f) <= 2]
    assert len(steps) >= 4, per_frame
    assert all(len(f) <= 2 for f in per_frame[1:]), per_frame
    # the buffer the pits-alone frames left is the whole frame's (at one moment: a
    # think's slice ends when its next frame is due, App.LONG_SLICE_MS, so that
    # frame is drawn first, as the next turn would)
    b.app.update()
    b.app.render()
    alone = bytes(b.np.buf)
    b.app.dirty = True
    b.app.render()
    assert bytes(b.np.buf) == alone
