"""The board's two application slots, from the PC (docs/UPDATING.md): the trial
options, the start-up stage put in place, the state file's switch (the new slot on
trial) and its revert (back to the last confirmed slot), and the watch after the
reset that learns whether the new slot proved healthy or the board fell back.
"""

import json
import re
import time

from host_tools.link.board_transport import STAGE, Board, DeployError, json_or_none

MAX_BOOTS = (1, 10)  # failed starts on trial before the board falls back
TRIAL_SECONDS = (2, 600)  # the deadman's window for the app to prove healthy


def check_options(max_boots, trial_seconds):
    if not (isinstance(max_boots, int) and MAX_BOOTS[0] <= max_boots <= MAX_BOOTS[1]):
        raise DeployError("--max-boots must be %d to %d (got %r): it is how many failed starts the board allows before it falls back"
                          % (MAX_BOOTS + (max_boots,)))
    if not (TRIAL_SECONDS[0] <= trial_seconds <= TRIAL_SECONDS[1]):
        raise DeployError("--trial-seconds must be %d to %d (got %r): the new version must prove healthy within it"
                          % (TRIAL_SECONDS + (trial_seconds,)))


def stage_in(board, p, target, max_boots, trial_seconds):
    """Put the checked new stage (/stage.py.new) where the loaders find it.  With an
    old stage to go back to, it becomes /stage_next.py (one start to prove itself),
    after /slots/state.back: the state the loader restores (one rename) if it does
    not, so the update is undone as a whole (docs/UPDATING.md, "The start-up stage")."""
    to = p["stage_to"] if p["active"] else STAGE
    if to != STAGE:
        back = {"active": p["active"], "previous": None, "trial": False, "boots": 0,
                "max_boots": max_boots, "trial_ms": int(trial_seconds * 1000), "crashes": 0,
                "fell_back_from": target,
                "reason": "its start-up stage never started the app (it failed, hung or the power was cut first)"}
        board.exec("f=open('/slots/state.back.tmp','w')\nf.write(%r)\nf.close()\n"
                   "os.rename('/slots/state.back.tmp', '/slots/state.back')" % json.dumps(back))
    board.exec("os.rename(%r, %r)" % ("/" + STAGE + ".new", "/" + to))


def write_state(board, state):
    """Replace /slots/state.json in one atomic rename (the switch, or the revert)."""
    board.exec("import json\nf=open('/slots/state.tmp','w')\nf.write(%r)\nf.close()\nos.rename('/slots/state.tmp', '/slots/state.json')"
               % json.dumps(state))


def revert_state(active):
    """The state that makes `active` (the last confirmed slot) the running one again."""
    return {"active": active, "previous": None, "trial": False, "boots": 0}


def trial_state(target, previous, max_boots, trial_seconds):
    """The state that starts `target` on trial, with `previous` to fall back to."""
    return {"active": target, "previous": previous, "trial": True, "boots": 0,
            "max_boots": max_boots, "trial_ms": int(trial_seconds * 1000), "crashes": 0}


RUNNING_RE = re.compile(rb"main: running (\S+) \(slot (\w)[,)]")
CONFIRMED_RE = re.compile(rb"main: confirmed slot (\w)")


def _last_running(data):
    ms = list(RUNNING_RE.finditer(data))
    return ms[-1] if ms else None


CONFIRMED_RE = re.compile(rb"main: (?:confirmed slot|healthy \()")
SAFE_RE = re.compile(rb"main: SAFE STATE: ([^\r\n]*)[\r\n]")  # a whole line (it may come in pieces)


def reset_and_watch(board, timeout, rep=None, reset=True, quiet_seconds=None, settle_seconds=2.0):
    """Reset the board for real and follow it until the outcome is known.

    machine.reset() drops the USB serial port; it comes back once boot.py has
    returned (what boot.py printed is lost), main.py starts the app.  The
    board is only listened to (no Ctrl-C, no soft reset: either would end or
    skew the trial) through every reset it does by itself, until main.py says
    the running version is healthy, or the safe state, or `timeout`.  Then it
    is interrupted, /slots/state.json is read (the truth about what happened),
    and it is soft-reset in the friendly REPL so the app runs again.
    What main.py prints in its first moments is often lost (the port is not
    open again yet), so a port that stays up for `quiet_seconds` (the trial
    window and a margin: a failing trial would have reset the board by then)
    also ends the listening; the state file then tells.  After "healthy" it
    listens `settle_seconds` more, for a crash right after the trial.
    These windows are measured on the board's clock (host_tools/link/board_clock.py:
    the wall clock, or the emulated board's own, which jumps while it sleeps).
    Returns a dict: running (version, slot) or None, healthy, state, resets,
    output (bytes), seconds."""
    import serial

    from host_tools.link.board_clock import board_clock

    if quiet_seconds is None:
        quiet_seconds = timeout

    class Listener(serial.Serial):
        def reset_input_buffer(self):
            pass  # pyserial drops what came before open(): here it is main.py's first lines
    port = board.port
    clock = board_clock(port)
    t0 = clock.now()
    if reset:
        try:
            board.t.exec_raw_no_follow("import machine\nmachine.reset()")
        except Exception:
            pass
    try:
        board.t.serial.close()
    except Exception:
        pass
    data = b""
    resets = 0
    s = None
    if reset:
        time.sleep(0.1)  # the port goes away
    up_since = None
    opened_at = 0  # where in `data` the output since the port last came up begins
    healthy_at = None  # when main.py last said the running version is healthy
    while clock.now() - t0 < timeout:
        if s is None:
            try:
                s = Listener(port, 115200, timeout=0.05)
            except (OSError, serial.SerialException):
                time.sleep(0.05)  # (the board is starting: a real process)
                continue
            up_since = clock.now()
            healthy_at = None
            opened_at = len(data)
            if resets and rep is not None:
                rep.say("  the board reset by itself (%d); listening again" % resets)
        now = clock.now()
        if now - up_since > quiet_seconds:
            break
        if healthy_at is not None and now - healthy_at > settle_seconds:
            break  # healthy, and no early crash after it
        try:
            if not s.in_waiting:
                clock.idle_until(min(t0 + timeout, up_since + quiet_seconds + 0.001,
                                     healthy_at + settle_seconds + 0.001 if healthy_at is not None else t0 + timeout))
            chunk = s.read(max(1, s.in_waiting))
        except (OSError, serial.SerialException):
            chunk = None
        if chunk is None:  # the port went away: a reset
            resets += 1
            try:
                s.close()
            except Exception:
                pass
            s = None
            continue
        if not chunk:
            continue
        data += chunk
        last = _last_running(data)
        tail = data[last.end():] if last is not None else data
        if SAFE_RE.search(tail):
            break
        # "running" may be lost (printed before the port was open again): "healthy
        # (VERSION, slot S)" since the port came up says it by itself.  Without it the
        # watch waited out quiet_seconds, 300 of the app's 50 ms naps, each a round trip
        # between the VM and the bridge: seconds on a loaded machine.
        since = max(last.end(), opened_at) if last is not None else opened_at
        if healthy_at is None and CONFIRMED_RE.search(data, since):
            healthy_at = clock.now()
    if s is not None:
        s.close()
    watched = clock.now() - t0
    clock.close()
    board.boot_output = data
    state, manifests, answered = _read_back(board, port)
    reported = None
    last = _last_running(data)
    if last is not None:
        reported = (last.group(1).decode(), last.group(2).decode())
    active = state.get("active")
    running = ((manifests.get(active) or {}).get("version"), active) if active in ("a", "b") else reported
    safe = SAFE_RE.findall(data)
    healthy = healthy_at is not None and not state.get("crashes") and not state.get("last_error")
    if not healthy and healthy_at is None and state.get("trial") is False and state.get("active") in ("a", "b") \
            and not safe and (state.get("crashes") or 0) == 0 and answered and "unproven" not in state:
        healthy = True  # it ran past its trial window without a reset, and says so in its state
    return {"running": running, "reported": reported, "healthy": healthy, "confirmed": healthy, "state": state,
            "manifests": manifests, "resets": resets, "answered": answered,
            "safe": safe[-1].decode("utf-8", "replace") if safe else None,
            "watch_seconds": watched, "output": data}


def _read_back(board, port, attempts=3):
    """Interrupt the app, read the slot state, restart the app (soft reset, friendly REPL)."""
    from host_tools.link.board_transport import serial_transport

    why = None
    for _attempt in range(attempts):
        t = None
        for _ in range(20):
            try:
                t = serial_transport(port, baudrate=115200, timeout=3)
                break
            except Exception as e:
                why = e
                time.sleep(0.25)
        if t is None:
            continue
        board.t = t
        try:
            t.enter_raw_repl(soft_reset=False)
            text = t.exec("def _j(p):\n try:\n  return open(p).read()\n except OSError:\n  return ''\n"
                          "print('S', _j('/slots/state.json'))\n"
                          "for s in 'ab':\n print('M', s, _j('/slots/' + s + '/manifest.json'))").decode("utf-8", "replace")
            state, manifests = {}, {}
            for ln in text.splitlines():
                tag, _, rest = ln.partition(" ")
                if tag == "S":
                    state = json_or_none(rest) or {}
                elif tag == "M":
                    sl, _, js = rest.partition(" ")
                    manifests[sl] = json_or_none(js)
            t.exit_raw_repl()
            t.read_until(1, b">>> ", timeout=2)
            t.serial.write(b"\x04")  # soft reset in the friendly REPL: the app runs again
            board.restarted = True
            return (state if isinstance(state, dict) else {}), manifests, True
        except Exception as e:  # a reset at that moment, a board that does not answer
            why = e
            try:
                t.close()
            except Exception:
                pass
            time.sleep(0.5)
    board.read_back_error = str(why)
    return {}, {}, False


def outcome_line(o, version, target):
    """One true line about what the board runs after the update."""
    st = o.get("state") or {}
    mans = o.get("manifests") or {}
    active = st.get("active")
    run = "%s (slot %s)" % ((mans.get(active) or {}).get("version", "?"), active) if active else "nothing"
    if not o.get("answered"):
        return ("the board does not answer after the update (hung?); if it stays so, cut its power: "
                "it then starts again with a %d-start trial" % 3)
    if active == target and not st.get("trial") and o.get("healthy"):
        return "the board now runs %s (slot %s), confirmed healthy by the app%s" % (
            version, target, " after %d resets" % o["resets"] if o["resets"] > 1 else "")
    if st.get("fell_back_from") == target and active != target:
        return "the new version %s failed (%s); the board is back on %s and running it" % (
            version, st.get("reason", "?"), run)
    if active == target and st.get("unproven"):
        return ("the new version %s failed (%s) and there is no earlier version to go back to; "
                "it stays installed: its console says what is wrong" % (version, st["unproven"]))
    if o.get("safe"):
        return "the new version %s failed and there is nothing to go back to; the board is in its safe state: %s" % (
            version, o["safe"])
    if active == target and st.get("trial"):
        return "the new version %s did not prove healthy within the time allowed (start %s of %s); the board keeps trying it and falls back by itself" % (
            version, st.get("boots", "?"), st.get("max_boots", "?"))
    return "the new version %s did not prove healthy; the board runs %s" % (version, run)


def start_board(port, timeout=30):
    """Reset a board and report what it runs (tests, `mancala deploy --check`)."""
    board = Board(port)
    board.raw(soft_reset=False)
    try:
        return reset_and_watch(board, timeout)
    finally:
        board.close()
