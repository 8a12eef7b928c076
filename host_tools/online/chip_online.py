"""The online core on the RP2040 model (../shared/picobox): the heap the client and the
session take, and the chip time of the heavy step of a loop turn, a move arriving (its
signature checked, the move judged and played; in the next turn the game saved on
littlefs, the state signed and queued), on MicroPython's rp2 port at 125 MHz.

The Pico W itself is not modelled (no radio): the client is built and fed messages as
its socket would hand them over, but never connects.  The firmware is the deployed one
(host_tools/benches/chip_bench.booted_board: the flash as `make deploy` lays it).

  python -m host_tools.online.chip_online [--model DIR]
"""

import argparse
import json
import sys

SCRIPT = r"""
import gc, json, time
from mancala.game import Game, release_room
from mancala.rules import get_rules
release_room()
game = Game(get_rules("kalah"))
from mancala.hw.storage import OsFs, Storage
from mancala.hw.clock import Clock
from mancala.online import protocol as p
from mancala.online.mqtt import Client
from mancala.online.session import Session
gc.collect()
free0 = gc.mem_free()
clock = Clock()
storage = Storage(OsFs(), "/data")
client = Client("chip", "10.0.0.1", 1883, clock=clock)
gc.collect()
free1 = gc.mem_free()
s = Session(client, storage, game, clock, archive=False)
s.create("kalah", "b")  # b moves first: the other side's move arrives first
gc.collect()
free2 = gc.mem_free()
# paired by hand (the model has no network): b's join as it would arrive
s._on_message(p.game_topic(s.game_id, "join"), p.join_text(s.key, s.game_id, "0a0b0c0d").encode(), False)
ref = Game(get_rules("kalah"))
times = []
plies = 0
while not game.over and plies < 40:
    mask = game.legal_mask()
    legal = [k for k in range(6) if mask >> k & 1]
    pit = legal[(game.ply * 5 + 3) % len(legal)]
    if s.my_turn():
        t0 = time.ticks_us()
        s.play(pit)
        times.append(["own", time.ticks_diff(time.ticks_us(), t0)])
    else:
        ref.assign(game)
        ref.play(pit)
        rec = p.record_of("kalah", ref.moves())
        text = p.move_text(s.key, s.game_id, "b", ref.ply, pit + 1, p.record_sum(rec)).encode()
        topic = p.game_topic(s.game_id, "m", "b")
        t0 = time.ticks_us()
        s._on_message(topic, text, False)
        times.append(["peer", time.ticks_diff(time.ticks_us(), t0)])
        t0 = time.ticks_us()
        s.poll()  # the next turn: the move saved on flash, the state signed and queued
        times.append(["save", time.ticks_diff(time.ticks_us(), t0)])
    plies += 1
    client._slot_pid = [0] * len(client._slot_pid)  # (acknowledged, as a broker would)
    s.events()
t0 = time.ticks_us()
for _ in range(100):
    client.poll()
idle = time.ticks_diff(time.ticks_us(), t0) // 100
gc.collect()
free3 = gc.mem_free()
print("R", json.dumps({"client": free0 - free1, "session": free1 - free2, "after": free0 - free3,
                       "free_after": free3, "ply": game.ply, "times": times, "idle_poll_us": idle}))
"""


def measure(model):
    from host_tools.benches.chip_bench import _parse, booted_board

    board, version, start = booted_board(model)
    try:
        res = _parse(board.exec(SCRIPT, soft_reset=True))
    finally:
        board.close()
    res["version"] = version
    return res


def report(res, out=sys.stdout):
    peer = [t for k, t in res["times"] if k == "peer"]
    own = [t for k, t in res["times"] if k == "own"]
    out.write("RP2040 model (%s), 125 MHz:\n" % res["version"])
    out.write("  heap: the client %d B, the session %d B; %d B held after %d plies (%d B free)\n"
              % (res["client"], res["session"], res["after"], res["ply"], res["free_after"]))
    save = [t for k, t in res["times"] if k == "save"]
    out.write("  a move arriving, its turn (signature checked, the move judged and played): "
              "median %.1f ms, worst %.1f ms\n" % (sorted(peer)[len(peer) // 2] / 1000, max(peer) / 1000))
    out.write("  the next turn (the game saved on flash, the state signed and queued): "
              "median %.1f ms, worst %.1f ms\n" % (sorted(save)[len(save) // 2] / 1000, max(save) / 1000))
    out.write("  a move played here (save, sign, queue): median %.1f ms, worst %.1f ms\n"
              % (sorted(own)[len(own) // 2] / 1000, max(own) / 1000))
    out.write("  an idle poll (no network): %d us\n" % res["idle_poll_us"])


def main(argv=None):
    from host_tools.benches.chip_board import model_folder

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=model_folder())
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = measure(a.model)
    if a.json:
        print(json.dumps(res))
    else:
        report(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
