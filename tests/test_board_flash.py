"""Issue 22: the red "no" flash and the presses during a think, on the simulated board
(its clock charges a Pico's time for each frame and engine node, tests/board_helpers.py).
A pit pressed again while its red flash is lit shows the finger within 40 ms (on the
old firmware the red covered the finger's dot until the blink turned: 115-149 ms on the
RP2040 model); a press during a think costs its frames, not a redraw every
ANIM_FRAME_MS for the whole flash."""

import pytest
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


def _tap_think(pit, prefix=True):
    """A think with a tap of `pit` (press 300 ms in, release 120 ms later): each
    frame's (bytes sent, the last byte that changed + 1), the wire ms charged, nodes."""
    from mancala import profiles

    p = dict(profiles.load("pico_buttons"))
    p["prefix_writes"] = prefix
    b = to_think("kalah", p)
    np = b.np
    frames = []
    before = [bytes(np.shown)]

    def sent(app):
        now = bytes(np.shown)
        changed = [k for k in range(len(now)) if now[k] != before[0][k]]
        frames.append((np.last_sent, changed[-1] + 1 if changed else 0))
        before[0] = now

    b.app.on_frame = sent
    w0 = b.wire_us
    t = b.clock.now()
    b.at(t + 300, index(pit), True)
    b.at(t + 420, index(pit), False)
    one_think(b)
    return b, frames, (b.wire_us - w0) / 1000, b.nodes


def test_a_think_writes_the_chain_only_up_to_the_last_pit_a_frame_changed():
    """Pixels.prefix_writes: a frame of a few pits (a tap's dot, the red flash, the
    think's light) sends the chain up to the end of the last pit it drew, not all 180
    LEDs (5.4 ms of the bitstream's CPU each); the LEDs after keep what they show (the
    fake chain fails any write that leaves one stale).  A tap of S1, the chain's first
    ring, costs its own frames ~0.4 ms of wire each, not 5.4 (those the think's light
    shares go as far as the light's pit)."""
    for pit in ("S1", "S6", "N6"):
        b, frames, wire_ms, nodes = _tap_think(pit)
        spans = b.profile["leds"]
        ends = sorted(3 * (first + n) for first, n in spans)
        partial = [(s, c) for s, c in frames if s < 3 * b.profile["led_count"]]
        assert len(partial) >= 4, (pit, frames)  # the dot, the flash's frames
        for s, c in frames:
            assert s >= c  # (the fake chain checks it too)
            if s < 3 * b.profile["led_count"]:
                assert s in ends and s == min(e for e in ends if e >= c), (pit, s, c)
        end = 3 * sum(spans[index(pit)])
        assert sum(1 for s, _ in frames if s == end) >= 3, (pit, frames)  # the tap's own
        b0, frames0, wire0_ms, nodes0 = _tap_think(pit, prefix=False)
        assert all(s == 3 * b0.profile["led_count"] for s, _ in frames0)
        if pit == "S1":
            assert wire_ms < 0.65 * wire0_ms and nodes > nodes0, (wire_ms, wire0_ms)
        assert b.np.shown == b.np.buf


def _light_steps(b, t_end):
    """(ms into the think, North pit, a red flash's frame) at each step of the
    think's light, read back from the frames (its pit on North's colour), until
    `t_end` or the think's end."""
    from mancala.hw.pixels_read import decode

    steps = []
    t_mode = b.app.t_mode

    def frame(app):
        _, bgs = decode(b.np.shown, b.profile["leds"])
        lit = [i for i in range(7, 13) if bgs[i] == "north"]
        if len(lit) == 1 and (not steps or steps[-1][1] != lit[0]):
            steps.append((b.clock.now() - t_mode, lit[0], app.flash != 0))

    b.app.on_frame = frame
    while b.mode() == "think" and b.clock.now() < t_end:
        b.turn()
    b.app.on_frame = None
    return steps


def test_the_think_light_steps_on_a_taps_frames_and_keeps_its_pace():
    """A step of the think's light due within THINK_SHARE_MS of a frame that goes out
    anyway (a tap's dot, its red flash's blinks) is drawn in that frame: a tap during a
    think adds at most three frames to it, whenever it comes (five when the light
    stepped on frames of its own).  The light still moves one pit a step, never late
    and at most THINK_SHARE_MS early."""
    step, share = A.App.THINK_STEP_MS, A.App.THINK_SHARE_MS
    b = to_think("kalah", "pico_buttons")
    f0 = b.app.frame_no
    one_think(b)
    quiet = b.app.frame_no - f0
    for down, up in ((100, 220), (300, 420), (400, 500), (600, 700)):
        b = to_think("kalah", "pico_buttons")
        f0 = b.app.frame_no
        t = b.clock.now()
        b.at(t + down, index("S3"), True)
        b.at(t + up, index("S3"), False)
        steps = _light_steps(b, t + up + A.App.FLASH_MS + step)
        assert len(steps) >= 3, steps
        k0 = (steps[0][0] + share) // step  # the first step seen: the think's k0-th
        for k, ((_, p0, _), (t1, p1, _)) in enumerate(zip(steps, steps[1:], strict=False), k0 + 1):
            assert p1 == 7 + (p0 - 7 + 1) % 6, steps  # one pit a step
            assert k * step - share <= t1 <= k * step + 25, (down, k, steps)  # (25: a
            # turn's lateness)
        # a step drawn in one of the flash's frames (early, or on time when the flash's
        # blink fell just before the step)
        shared = [t for t, _, flash in steps if flash]
        assert shared or down == 100, (down, steps)
        one_think(b)
        extra = b.app.frame_no - f0 - quiet
        assert extra <= 3, (down, extra)


@pytest.mark.parametrize("quick", [0, 1])
def test_a_think_starts_its_light_on_the_first_pit_and_sends_no_frame_twice(quick):
    """The light starts at its first step whatever the last think left in
    App.think_frame (a step taken early there must not carry over), and the whole
    frame that begins the think counts as its first step: no second frame for it
    (quick: the think begins from the move's animation, whose tick switches to it)."""
    b = board("pico_buttons", variant="kalah", opponent=4, starter=0, quick=quick)
    start(b)
    b.app.think_frame = 1  # as a think that ended just after an early step leaves it
    sent = []
    b.app.on_frame = lambda app: sent.append((b.mode(), bytes(b.np.shown)))
    b.play_move(index("S1"))
    t = b.clock.now()
    while b.mode() != "think" and b.clock.now() < t + 5000:
        b.turn()
    t = b.clock.now()
    while b.mode() == "think" and b.clock.now() < t + 600:
        b.turn()
    b.app.on_frame = None
    think = [f for m, f in sent if m == "think"]
    assert len(think) >= 2, sent
    from mancala.hw.pixels_read import decode

    _, bgs = decode(think[0], b.profile["leds"])
    assert [i for i in range(7, 13) if bgs[i] == "north"] == [7], bgs
    assert all(f != g for f, g in zip(think, think[1:], strict=False)), "a frame twice"
