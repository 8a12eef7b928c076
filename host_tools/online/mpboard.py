"""A board playing online, as a process of the MicroPython unix port (run by
host_tools/online/boards.py; MicroPython only, like fakes/).

The firmware's online session on its real client, over a FakeLink, with the board's
storage in a folder of the PC (OsFs), the real clock, and a scripted chooser in place of
the person.  One argument: a JSON object (see boards.BoardProcess).  It prints one JSON
line per thing that happens, and reads commands from stdin:

  down / up     take the link down, bring it back (a Wi-Fi drop)
  quit          leave
"""

import gc
import json
import select
import sys
import time

from mancala.game import Game, release_room
from mancala.hw.clock import Clock
from mancala.hw.storage import OsFs, Storage
from mancala.online import session as S
from mancala.online.link import FakeLink
from mancala.online.mqtt import Client
from mancala.rules import get_rules


def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    try:
        sys.stdout.flush()
    except AttributeError:
        pass


def choose(game, seed):
    """The scripted person: a function of the position and the seed alone.  A board
    restarted after a power cut plays on with another seed (seed + 100): a move it lost
    and chose again would then differ, and the tests would see it (tests/
    test_online_games.py `reference_record`)."""
    mask = game.legal_mask()
    legal = [k for k in range(6) if mask >> k & 1]
    if seed < 0:
        return legal[0]
    return legal[(seed * 7 + game.ply * 13 + game.pos[0] * 3) % len(legal)]


def main():
    cfg = json.loads(sys.argv[1])
    release_room()  # (the App's boot does the same before its game and engine)
    game = Game(get_rules("kalah"))
    gc.collect()
    heap_before = gc.mem_alloc()
    clock = Clock()
    link = FakeLink()
    storage = Storage(OsFs(cfg["data"]), "/data")
    client = Client("m" + S.p.new_nonce(), "127.0.0.1", cfg["port"], clock=clock, link=link,
                    keepalive_s=cfg.get("keepalive", 4), backoff_ms=cfg.get("backoff", 100),
                    backoff_max_ms=cfg.get("backoff_max", 1000), connect_timeout_ms=cfg.get("connect_timeout", 2000))
    client.on_drop = lambda why: say(drop=why)
    session = S.Session(client, storage, game, clock)
    gc.collect()
    say(heap_online=gc.mem_alloc() - heap_before, heap_free=gc.mem_free())
    seed = cfg.get("seed", -1)
    if session.resume():
        say(resumed=game.ply, phase=session.phase)
        if seed >= 0:
            seed += 100
    elif cfg["role"] == "a":
        session.create(cfg.get("variant", "kalah"), cfg.get("first", "a"))
    else:
        session.join(cfg["code"])
    think_ms = cfg.get("think_ms", 0)
    stdin = select.poll()
    stdin.register(sys.stdin, select.POLLIN)
    turn_max = 0
    turn_at = None
    done_at = None
    said_over = False
    while True:
        for _, ev in stdin.poll(0):
            if ev & select.POLLIN:
                cmd = sys.stdin.readline().strip()
                if cmd == "down":
                    link.down()
                elif cmd == "up":
                    link.up()
                elif cmd == "quit" or not cmd:
                    say(quit=game.ply, turn_max_us=turn_max)
                    return
        t0 = time.ticks_us()
        session.poll()
        dt = time.ticks_diff(time.ticks_us(), t0)
        if dt > turn_max:
            turn_max = dt
        for kind, text in session.events():
            say(ev=kind, text=text, ply=game.ply)
        if session.my_turn():
            now = clock.now()
            if turn_at is None:
                turn_at = now
            if clock.diff(now, turn_at) >= think_ms:
                turn_at = None
                pit = choose(game, seed)
                why = session.play(pit)
                say(played=game.ply, pit=pit + 1, why=why)
        if session.phase == S.FAILED:
            say(failed=session.why)
            return
        if session.phase == S.OVER and not said_over:
            said_over = True
            say(over=S.p.record_of(game.rules.id, game.moves()), archived=session.archived)
        if session.phase == S.OVER and session.peer_ply == game.ply and done_at is None:
            done_at = clock.now()
        if done_at is not None and clock.diff(clock.now(), done_at) > cfg.get("linger_ms", 300):
            gc.collect()
            say(done=S.p.record_of(game.rules.id, game.moves()), archived=session.archived,
                heap_after=gc.mem_alloc() - heap_before,
                ignored=session.ignored, repeats=session.repeats, refused=session.refused,
                connects=client.connects, drops=client.drops, turn_max_us=turn_max)
            if cfg.get("leave", True):
                session.leave()
                client.finish()  # the clears taken, DISCONNECT, the broker's close
            return
        time.sleep_ms(cfg.get("sleep_ms", 2))


main()
