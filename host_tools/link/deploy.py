"""Update the board from the PC, safely (issue 5; docs/UPDATING.md).

    python -m host_tools.link.deploy [--port PORT] [--src firmware] [--py] [--max-boots N]

Finds the board (or takes --port / $PORT), reads its MicroPython version and
.mpy format, compiles the firmware with mpy-cross for that format (plain .py
as a fallback), sends only the files whose hashes changed into the inactive
application slot, verifies every file on the board (sha256 there against the
manifest), then switches slots atomically and restarts the board.  The new
slot starts on trial; boot.py falls back to the previous slot by itself if it
fails to start.  Player data (/data) is never touched.

Talks to the board with mpremote's SerialTransport (the library behind the
`mpremote` command), so it works with any board mpremote works with.

The parts: board_transport.py (the port, the raw REPL, files written),
deploy_plan.py (what to send: the build, hashes, the slot plan, the tables plan),
slots.py (the A/B slots' state, the trial and its watch); this module is the
command and its steps in order.
"""

import argparse
import hashlib
import json
import os
import sys
import time

from host_tools.link import board_transport, deploy_plan, slots
from host_tools.link.board_transport import BLOCK, OLD_STAGE, RESERVE, DeployError


class Reporter:
    def __init__(self, out=None, quiet=False):
        out = out if out is not None else sys.stdout
        self.out = out
        self.quiet = quiet
        self.tty = hasattr(out, "isatty") and out.isatty()

    def say(self, text):
        if not self.quiet:
            print(text, file=self.out, flush=True)

    def progress(self, i, n, name, done, total):
        if self.quiet:
            return
        if self.tty:
            self.out.write("\r  [%d/%d] %s %d/%d bytes" % (i, n, name, done, total))
            if done >= total:
                self.out.write("\n")
            self.out.flush()
        elif done >= total:
            print("  [%d/%d] %s %d bytes" % (i, n, name, total), file=self.out, flush=True)


def describe_running(info):
    st = info.get("state") or {}
    s = st.get("active")
    m = (info.get("manifests") or {}).get(s) if s else None
    if not m:
        return "no firmware installed"
    return "%s (slot %s)" % (m.get("version"), s)


def set_profile(board, name, rep):
    """Write /data/board.txt (write, close, rename: littlefs keeps data only once closed)."""
    board.exec("import os\ntry:\n os.mkdir('/data')\nexcept OSError:\n pass\n"
               "f=open('/data/board.txt.tmp','w')\nf.write(%r)\nf.close()\n"
               "os.rename('/data/board.txt.tmp', '/data/board.txt')" % (name + "\n"))
    back = board.exec("print(open('/data/board.txt').read().strip())").strip()
    if back != name:
        raise DeployError("could not write /data/board.txt (read back %r)" % back)
    rep.say("board profile set: /data/board.txt = %s" % name)


def sync_tables(board, info, rep, plan, tables_dir, free):
    """Send the endgame tables whose hash differs from the board's (they live in
    /tables/, outside the slots: an update of the code alone leaves them), each
    written to a .tmp, checked by sha256 on the board, then renamed in place.
    A table that is not built, or finds no room, is said and left out: the board
    plays on without it.  Returns the names sent."""
    from host_tools.generators import tablebase
    from mancala.tablebase import board_path

    def variant_of(name):
        return name[:-3]

    sent = []
    if not plan:
        return sent
    # Tables and books of variants this board's plan no longer names (an older plan's,
    # docs/TABLEBASE.md): their room goes back to the slots and the player's data
    stale = sorted(n[2:] for n in info["files"] if n.startswith("t/")
                   and n.endswith((".tb", ".book")) and n[2:].rsplit(".", 1)[0] not in plan)
    if stale:
        board.exec(board_transport.BOARD_FS)
        board.exec("for p in %r:\n _rm(p)" % (["/tables/" + n for n in stale],))
        rep.say("tables: removed %s (not in this board's plan)" % ", ".join(stale))
        if free >= 0:
            free += sum(deploy_plan.blocks(info["files"]["t/" + n][1]) * BLOCK for n in stale)
    todo = []
    for variant, seeds in sorted(plan.items()):
        path = tablebase.built_path(variant, seeds, tables_dir)
        name = variant + ".tb"
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            rep.say("tables: %s is not built (make tablebase): the board plays %s without it"
                    % (path, variant))
            continue
        digest = hashlib.sha256(data).hexdigest()
        if info["files"].get("t/" + name, (None,))[0] == digest:
            continue
        todo.append((name, data, digest))
    todo += deploy_plan.books_to_send(info, plan)
    if not todo:
        rep.say("tables: %s unchanged on the board" % ", ".join(sorted(plan)))
        return sent
    board.exec(board_transport.BOARD_FS + board_transport.BOARD_HASH)
    for i, (name, data, digest) in enumerate(todo, 1):
        old = info["files"].get("t/" + name, (None, 0))[1]
        if free >= 0 and deploy_plan.blocks(len(data)) * BLOCK + RESERVE > free + deploy_plan.blocks(old) * BLOCK:
            rep.say("tables: no room for %s (%d KB, %d KB free): the board plays without it"
                    % (name, len(data) // 1024, (free + deploy_plan.blocks(old) * BLOCK) // 1024))
            continue
        dest = board_path(variant_of(name)) if name.endswith(".tb") else "/tables/" + name
        # the old copy goes first (the flash need not hold both); until the new
        # one is renamed in, the board has none of this table and says so
        board.exec("_rm(%r)\n_rm(%r)" % (dest, dest + ".tmp"))
        board.write_file(dest + ".tmp", data,
                         lambda d, t, i=i, name=name: rep.progress(i, len(todo), name, d, t))
        got = board.exec("try:\n print(_h(%r)[0])\nexcept OSError:\n print('-')" % (dest + ".tmp",))
        if got.strip() != digest:
            board.exec("_rm(%r)" % (dest + ".tmp",))
            raise DeployError("verification failed for %s; the board plays on without it" % dest)
        board.exec("import os\nos.rename(%r, %r)" % (dest + ".tmp", dest))
        if free >= 0:
            free -= max(0, (deploy_plan.blocks(len(data)) - deploy_plan.blocks(old)) * BLOCK)
        sent.append(name)
    if sent:
        rep.say("tables: sent and verified %s" % ", ".join(sent))
    return sent


def deploy(port=None, src=deploy_plan.DEFAULT_SRC, use_mpy=True, max_boots=3, out=None,
           restart_timeout=None, force=False, trial_seconds=30, profile=None,
           tables_dir=None, tables_for=None):
    """Update the board.  Returns a dict of what was done (and timings).
    tables_dir: where `make tablebase` built the endgame tables (default
    build/tables); tables_for: see deploy_plan.tables_plan()."""
    rep = Reporter(out)
    if tables_dir is None:
        tables_dir = os.path.join(deploy_plan.ROOT, "build", "tables")
    t_start = time.monotonic()
    slots.check_options(max_boots, trial_seconds)
    if profile is not None:
        names = deploy_plan.profile_names(src)
        name = profile.replace("-", "_")
        if name not in names:
            raise DeployError("unknown board profile %r: choose one of %s" % (profile, ", ".join(names)))
        profile = name
    port = board_transport.find_port(port)
    board = board_transport.Board(port)
    try:
        board.raw(soft_reset=True)
        info = board.info()
        rep.say("board on %s: MicroPython %s (%s), .mpy %s; running %s" % (
            port, ".".join(map(str, info["version"])), info["platform"],
            "v%d.%d" % (info["mpy"] & 0xFF, (info["mpy"] >> 8) & 3) if info["mpy"] is not None else "none",
            describe_running(info)))
        chip = deploy_plan.check_board(info, use_mpy)
        rep.say(deploy_plan.describe_chip(chip))
        if profile is not None:
            deploy_plan.check_profile(chip, src, profile)
            set_profile(board, profile, rep)
        version, root_files, slot_files, fmt = deploy_plan.build(src, info["mpy"], use_mpy, chip)
        manifest = deploy_plan.manifest_of(version, slot_files, fmt)
        p = deploy_plan.plan(info, manifest, root_files)
        st = info.get("state") or {}
        running = info["manifests"].get(p["active"]) if p["active"] else None
        tplan = deploy_plan.tables_plan(info, tables_for)
        if (not force and running and running.get("files") == manifest["files"]
                and not p["roots"] and not st.get("trial") and not st.get("crashes")):
            tables = sync_tables(board, info, rep, tplan, tables_dir, info["free"])
            rep.say("already up to date: the board runs %s" % describe_running(info))
            if profile is not None:
                rep.say("restarting the board with profile %s" % profile)
            return {"version": version, "sent": [], "copied": [], "up_to_date": True,
                    "seconds": time.monotonic() - t_start, "bytes": board.sent_bytes,
                    "port": port, "tables": tables}
        free = info["free"]
        target = p["target"]
        other = info["manifests"].get(target)
        if free >= 0 and p["need"] + RESERVE > free + p["freed"]:
            raise DeployError("flash full: the update needs %d KB, the board has %d KB free even with slot %s reclaimed; nothing was written (board still runs %s)"
                              % ((p["need"] + RESERVE) // 1024, (free + p["freed"]) // 1024, target, describe_running(info)))
        if other and free >= 0 and p["need"] + RESERVE > free:
            rep.say("flash: reclaiming slot %s (%s, %d KB) to make room: that version is no longer a fallback"
                    % (target, other.get("version"), p["freed"] // 1024))
        base = "/slots/" + target + "/"
        # What the board starts if this update stops before the switch.
        keeps = "%s (slot %s)" % (info["manifests"][p["active"]].get("version"), p["active"]) \
            if p["active"] else "no firmware (none was installed)"
        rep.say("installing %s (%s) into slot %s: %d to send, %d to copy on the board, %d unchanged"
                % (version, fmt, target, len(p["send"]) + len(p["roots"]), len(p["copy"]), len(p["keep"])))
        try:
            board.exec(board_transport.BOARD_FS + board_transport.BOARD_HASH)
            if p["revert"]:
                # 0. the unconfirmed slot stops being the active one
                slots.write_state(board, slots.revert_state(p["active"]))
                rep.say("slot %s was never confirmed: back to slot %s first" % (target, p["active"]))
            # 1. the target slot stops being complete before anything in it changes
            board.exec("_mkdirs(%r)\n_rm(%r)\n_rm(%r)" % (base + "manifest.json", base + "manifest.json",
                                                          base + "confirmed"))
            # reclaim: what the new files replace goes first, so the flash
            # never has to hold the old and the new copy of a file at once
            gone = [rel for rel in p["stale"] + p["copy"] + p["send"] if target + "/" + rel in info["files"]]
            for i in range(0, len(gone), 16):
                board.exec("for p in %r:\n _rm(p)" % ([base + rel for rel in gone[i:i + 16]],))
            # 2. files: copied on the board, or sent
            for rel in p["copy"]:
                board.exec("_cp(%r, %r)" % ("/slots/" + p["active"] + "/" + rel, base + rel))
            todo = [(base + rel, slot_files[rel], rel) for rel in p["send"]]
            todo += [("/" + n + ".new", root_files[n], n) for n in p["roots"]]
            for n in p["legacy"]:  # the old stage, kept (copied on the board) until the new one proves itself
                board.exec("_cp(%r, %r)" % ("/" + n, "/" + OLD_STAGE[n]))
            for i, (dest, data, name) in enumerate(todo, 1):
                board.write_file(dest, data, lambda d, t, i=i, name=name: rep.progress(i, len(todo), name, d, t))
            if p["stale"]:
                board.exec("_rmtree_empty(%r)" % base.rstrip("/"))
            # 3. verify every file of the slot on the board
            check = dict((base + rel, h) for rel, (h, _n) in manifest["files"].items())
            check.update(("/" + n + ".new", hashlib.sha256(root_files[n]).hexdigest()) for n in p["roots"])
            check.update(("/" + OLD_STAGE[n], info["root"][n][0]) for n in p["legacy"])
            bad = board.exec(
                "for p, h in %r:\n try:\n  x = _h(p)[0]\n except OSError:\n  x = None\n if x != h:\n  print(p)\n"
                % (sorted(check.items()),)).split()
            if bad:
                raise DeployError("verification failed for %d file(s) (%s); nothing switched, the board still runs %s"
                                  % (len(bad), bad[0], keeps))
            rep.say("verified %d files on the board (sha256)" % len(check))
            # 4. the manifest completes the slot; root files swap in by rename
            mtext = json.dumps(manifest)
            board.exec("f=open(%r,'w')\nf.write(%r)\nf.close()\nos.rename(%r, %r)"
                       % (base + "manifest.tmp", mtext, base + "manifest.tmp", base + "manifest.json"))
            for n in board_transport.LOADERS:  # (main.py first: see docs/UPDATING.md, "The start-up stage")
                if n in p["roots"]:
                    board.exec("os.rename(%r, %r)" % ("/" + n + ".new", "/" + n))
            # the endgame tables, with what room the new slot left
            # (the board's table hashes are those read at the start: the slot work
            # leaves /tables alone; only the free room changed)
            free_now = int(board.exec("import os\nv = os.statvfs('/')\nprint(v[0] * v[4])")
                           .strip() or -1) if tplan else info["free"]
            tables = sync_tables(board, info, rep, tplan, tables_dir, free_now)
            if p["stage_to"]:  # the new stage, last before the switch
                slots.stage_in(board, p, target, max_boots, trial_seconds)
        except DeployError as e:
            if "nothing switched" in str(e) or "nothing was written" in str(e):
                raise
            raise DeployError("%s; nothing switched: the board will start %s" % (e, keeps)) from None
        # 5. switch: one atomic rename of the state file
        slots.write_state(board, slots.trial_state(target, p["active"], max_boots, trial_seconds))
        sent_bytes, send_seconds = board.sent_bytes, board.send_seconds
        rep.say("switched to slot %s (on trial: %d starts of %d s each to prove healthy); resetting the board"
                % (target, max_boots, trial_seconds))
        if restart_timeout is None:
            restart_timeout = (max_boots + 1) * (trial_seconds + 10) + 20
        outcome = slots.reset_and_watch(board, restart_timeout, rep, quiet_seconds=trial_seconds + 1.5)
        seconds = time.monotonic() - t_start
        rate = sent_bytes / send_seconds if send_seconds > 0 else 0.0
        rep.say("sent %d bytes in %.2f s (%.0f bytes/s); update took %.2f s" % (sent_bytes, send_seconds, rate, seconds))
        result = {"version": version, "sent": p["send"] + p["roots"], "copied": p["copy"],
                  "kept": p["keep"], "target": target, "bytes": sent_bytes, "send_seconds": send_seconds,
                  "rate": rate, "seconds": seconds, "up_to_date": False, "port": port,
                  "tables": tables}
        result.update(outcome)
        line = slots.outcome_line(outcome, version, target)
        if outcome["state"].get("active") == target and not outcome["state"].get("trial") and outcome["healthy"]:
            rep.say(line)
            return result
        err = DeployError(line)
        err.result = result
        raise err
    finally:
        board.close()

def deploy_main(argv=None):
    ap = argparse.ArgumentParser(prog="mancala deploy", description="Update the board's firmware over USB, safely.")
    ap.add_argument("--port", default=None, help="serial port of the board (default: $PORT, else found by USB id)")
    ap.add_argument("--src", default=deploy_plan.DEFAULT_SRC, help="firmware folder (default: firmware/)")
    ap.add_argument("--py", action="store_true", help="send plain .py files (no mpy-cross)")
    ap.add_argument("--max-boots", type=int, default=3,
                    help="failed starts on trial before the board falls back, %d-%d (default 3)" % slots.MAX_BOOTS)
    ap.add_argument("--trial-seconds", type=float, default=30,
                    help="seconds the new version has at each start to prove healthy, %d-%d (default 30)" % slots.TRIAL_SECONDS)
    ap.add_argument("--profile", default=None,
                    help="write the board profile (/data/board.txt) first, e.g. pico_hall (bring-up)")
    ap.add_argument("--force", action="store_true", help="install even when the board already runs this version")
    ap.add_argument("--tables", default=None, metavar="DIR",
                    help="where make tablebase built the endgame tables (default build/tables)")
    ap.add_argument("--tables-for", choices=("rp2", "rp2350", "esp32", "none"), default=None,
                    help="send the tables of this chip's plan (default: the board's chip)")
    a = ap.parse_args(argv)
    try:
        deploy(a.port, a.src, use_mpy=not a.py, max_boots=a.max_boots, force=a.force,
               trial_seconds=a.trial_seconds, profile=a.profile, tables_dir=a.tables,
               tables_for=a.tables_for)
    except DeployError as e:
        print("mancala deploy: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mancala deploy: interrupted; the board keeps running its current version",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(deploy_main())
