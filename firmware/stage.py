# stage.py: the start-up stage: choose the application slot and start it
# (docs/UPDATING.md, "The start-up stage").
#
# /boot.py and /main.py are loaders that never change; they run this module's
# boot() (at every soft reset) and main() (only when the board really starts
# the application).  The stage is one file, so it is swapped whole by one
# atomic rename: a new one is written beside the old one (/stage.new), checked
# by sha256 on the board, renamed to /stage_next.py, and gets one start to
# prove itself: boot.py renames it to /stage_try.py (atomic) before it imports
# it, and it renames itself to /stage.py once the app it started is healthy.
# If it raises, hangs or the board resets before that, boot.py undoes the
# update as a whole (the state from before it, /slots/state.back, comes back by
# one rename) and the old /stage.py starts the old version: never a new stage
# with an old app or an old stage with a new one.  A stage tried when no
# update was switched to (the power was cut before the switch) declines.
#
# boot() decides and counts nothing: a soft reset always runs boot.py, also the
# one mpremote does at the start of every session (ports/rp2/main.c,
# ports/esp32/main.c).  It reads /slots/state.json:
#
#   {"active": "a"|"b", "previous": "b"|"a"|None, "trial": bool, "boots": int,
#    "max_boots": int, "trial_ms": int, "crashes": int, ...}
#
# Every field is untrusted (a power cut, a hand edit, a bug): a wrong type or
# range is replaced by its default, and the result always names a complete
# slot when there is one.  A slot is complete when its manifest.json (written
# last by the updater) lists its files and every file has the listed size (a
# cheap check: os.stat; main() checks the hashes).  It falls back to the
# previous slot when the active one is incomplete, when its trial failed
# `max_boots` starts, or when it kept failing after it was confirmed
# (`crashes`).  The state file is written only when something changed.
#
# main() counts a start, since it runs only when the board really starts:
# - On trial: `boots` + 1 is written before the app is imported, and a deadman
#   is armed: a hard one-shot machine.Timer that resets the board after
#   `trial_ms` unless the app calls `confirm_boot()`, which it does once its
#   loop has run healthily.  A Ctrl-C (mpremote) is not a failed start: the
#   count is taken back.  A start that cannot be counted (a full flash) is not
#   a trial: the previous version runs instead, so a trial is never unbounded.
# - After the trial: an exception that escapes the app (or main() returning)
#   resets the board; `crashes` counts them (a power-on, or a run longer than
#   _STABLE_MS, starts the count again); at _MAX_CRASHES boot() falls back to
#   the previous slot, or, with none, the board stays in a safe state that
#   lights its LEDs and prints what is wrong every few seconds.
# - Every start first checks the slot's files against the manifest's sha256
#   (a damaged .mpy can hang its import instead of raising).
# - A full flash never stops a start (docs/BOARD.md: the game goes on in
#   memory): a state that cannot be written is said and the start goes on.
# /data is never touched.
import json
import os
import sys
import time

_STATE = "/slots/state.json"
_SLOTS = ("a", "b")
_MAX_CRASHES = 3  # escaping exceptions in a row after the trial
_STABLE_MS = 600000  # a run this long before a crash: the count starts again
_TRY = "/stage_try.py"  # a new stage on its one start to prove itself
_STAGE = "/stage.py"  # the stage that last proved itself
_OLD_STAGE = ("/boot_v1.py", "/main_v1.py")  # the stage of firmware before the loaders
_BACK = "/slots/state.back"  # the state before an update that brings a new stage

_me = ["stage", None]  # which file this module is ("stage" | "stage_try"), the slot boot() chose


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:  # missing, empty, truncated, not JSON, nested too deep
        return None


def _save(obj):
    """Write the state (write + rename); False if the flash refused (full)."""
    tmp = _STATE + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(json.dumps(obj))  # (one write: json.dump writes token by token)
        os.rename(tmp, _STATE)
        return True
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        print("stage: cannot write the slot state (%s): going on without it" % (e,))
        return False


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _int(v, lo, hi, default):
    if isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi:
        return v
    return default


def _manifest(slot):
    m = _read("/slots/%s/manifest.json" % slot)
    return m if isinstance(m, dict) else {}


def _damage(slot):
    """None if `slot` is complete, else why not (one line)."""
    if slot not in _SLOTS:
        return "no such slot"
    base = "/slots/" + slot + "/"
    m = _read(base + "manifest.json")
    if not isinstance(m, dict) or not isinstance(m.get("files"), dict) or not m["files"]:
        return "no valid manifest"
    for rel, entry in m["files"].items():
        try:
            if os.stat(base + rel)[6] != entry[1]:
                return "%s has the wrong size" % rel
        except Exception:
            return "%s is missing" % rel
    return None


def _clean(raw):
    """The state with every field checked (defaults where a field is bad)."""
    st = raw if isinstance(raw, dict) else {}
    out = {
        "active": st.get("active") if st.get("active") in _SLOTS else None,
        "previous": st.get("previous") if st.get("previous") in _SLOTS else None,
        "trial": st.get("trial") is True,
        "boots": _int(st.get("boots"), 0, 1000, 0),
        "max_boots": _int(st.get("max_boots"), 1, 10, 3),
        "trial_ms": _int(st.get("trial_ms"), 1000, 600000, 30000),
        "crashes": _int(st.get("crashes"), 0, 1000, 0),
    }
    if out["previous"] == out["active"]:
        out["previous"] = None
    for k in ("fell_back_from", "reason", "last_error", "unproven"):
        if isinstance(st.get(k), str):
            out[k] = st[k]
    return out


def _fall_back(st, to, why):
    return {"active": to, "previous": None, "trial": False, "boots": 0,
            "max_boots": st["max_boots"], "trial_ms": st["trial_ms"], "crashes": 0,
            "fell_back_from": st["active"], "reason": why}


def _choose(raw):
    """(state to run with, slot or None)."""
    st = _clean(raw)
    active, prev = st["active"], st["previous"]
    good = [s for s in _SLOTS if _damage(s) is None]
    prev_ok = prev in good
    if active is None:
        # No usable state: a confirmed complete slot, else any complete one on
        # trial (with the other as its fallback), so a broken unconfirmed
        # version is never adopted as a good one.
        sure = [s for s in good if _exists("/slots/" + s + "/confirmed")]
        if sure:
            return dict(st, active=sure[0], previous=None, trial=False, boots=0), sure[0]
        if good:
            other = [s for s in good if s != good[0]]
            return dict(st, active=good[0], previous=other[0] if other else None,
                        trial=True, boots=0), good[0]
        return st, None
    why = _damage(active)
    if why is not None:
        to = prev if prev_ok else ([s for s in good if s != active] or [None])[0]
        if to is None:
            return st, None
        return _fall_back(st, to, "slot %s is damaged: %s" % (active, why)), to
    if st["trial"] and st["boots"] >= st["max_boots"]:
        why = "failed its trial %d times: %s" % (
            st["boots"], st.get("last_error") or "it never proved healthy in time (reset by the deadman)")
        if prev_ok:
            return _fall_back(st, prev, why), prev
        # Nothing to go back to: keep it (main() ends in the safe state if it
        # keeps failing) rather than count forever.
        st = dict(st, trial=False, boots=0, unproven=why)
    elif not st["trial"] and st["crashes"] >= _MAX_CRASHES and prev_ok:
        return _fall_back(st, prev, "kept failing after it was confirmed: %s"
                          % st.get("last_error", "?")), prev
    return st, active


def boot(name="stage"):
    """Choose the slot and put it on sys.path.  Returns False when this is a new
    stage on its one try and there is nothing for it to prove on (no update was
    switched to: the power was cut before): it removes itself, the old one runs."""
    _me[0] = name
    raw = _read(_STATE)
    if name == "stage_try" and not _clean(raw)["trial"]:
        _remove(_TRY)
        _remove(_BACK)
        return False
    if name == "stage":
        _remove(_BACK)  # (left by a cut after a promotion, or before a stage was tried: no try is pending)
    st, slot = _choose(raw)
    if st != raw and slot is not None:
        _save(st)
    if st.get("fell_back_from") and st != raw:
        # (lost after a hard reset: the USB port comes back after boot.py;
        # main() says it again)
        print("boot: back to slot %s: %s" % (slot, st.get("reason")))
    _me[1] = slot
    if slot is not None:
        _use(slot)
    return True


def _use(slot):
    for s in _SLOTS:
        while "/slots/" + s in sys.path:
            sys.path.remove("/slots/" + s)
    sys.path.insert(0, "/slots/" + slot)


# ---------------------------------------------------------------------------
# main(): the start of the application

def _state():
    st = _read(_STATE)
    return st if isinstance(st, dict) else {}


def _uint(v, default):
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else default


def _collect():
    try:
        import gc
        gc.collect()
    except ImportError:
        pass


def _machine():
    try:
        import machine
        return machine
    except ImportError:
        return None


def _restart():
    m = _machine()
    if m is not None:
        m.reset()
    sys.exit()  # no `machine`: SystemExit from main.py is a soft reset


def _damaged(slot, manifest):
    """The first file of the slot whose sha256 is not the manifest's, or None."""
    try:
        import binascii
        import hashlib
    except ImportError:
        return None
    buf = bytearray(512)
    for rel, entry in manifest.get("files", {}).items():
        h = hashlib.sha256()
        try:
            with open("/slots/%s/%s" % (slot, rel), "rb") as f:
                while True:
                    k = f.readinto(buf)
                    if not k:
                        break
                    h.update(buf if k == 512 else buf[:k])
        except OSError:
            return rel
        if binascii.hexlify(h.digest()).decode() != entry[0]:
            return rel
    return None


class _Deadman:
    """A hard one-shot timer that resets the board unless disarmed in time."""

    def __init__(self, ms):
        self.timer = None
        m = _machine()
        if m is None:
            return

        def expired(_t):
            m.reset()

        for tid in (-1, 0):
            for kw in ({"hard": True}, {}):  # a soft timer where hard= is refused
                try:
                    self.timer = m.Timer(tid, mode=m.Timer.ONE_SHOT, period=ms, callback=expired, **kw)
                    return
                except Exception:
                    pass

    def disarm(self):
        if self.timer is not None:
            self.timer.deinit()
            self.timer = None


def _safe_state(reason):
    """Never a dead board: the app's error board, else a blinking status LED."""
    print("main: SAFE STATE: " + reason)
    try:
        from mancala import app
        app.main(fault=reason)  # lights the LEDs, repeats the reason; never returns
    except KeyboardInterrupt:
        raise
    except Exception as e:
        sys.print_exception(e)
    led = None
    m = _machine()
    try:
        led = m.Pin("LED", m.Pin.OUT)
    except Exception:
        pass
    n = 0
    while True:
        if n % 40 == 0:
            print("main: SAFE STATE: " + reason + " (make deploy installs a working version)")
        if led is not None:
            led.value(n & 1)
        n += 1
        time.sleep_ms(250)


def _promote():
    """This stage, on its try, started a healthy app: it becomes the stage, and
    the one it replaces goes."""
    if _me[0] != "stage_try":
        return
    try:
        os.rename(_TRY, _STAGE)
        _me[0] = "stage"
        for p in (_BACK,) + _OLD_STAGE:
            _remove(p)
        print("main: start-up stage updated")
    except OSError as e:
        print("main: cannot keep the new start-up stage (%s)" % (e,))


# What only the choice of the slot and the start's checks use: once the app is about to
# be imported nothing calls them again (a soft reset runs boot.py on a fresh heap), and
# this file's code is RAM (parsed from source at every start: their code and messages
# were ~5 KB of the unix port's heap, docs/BOARD.md "Memory through the boot path").
# What stays: main() (its frame runs the app), what confirm_boot() and a failed start
# call.
_BOOT_ONLY = ("boot", "_choose", "_clean", "_fall_back", "_damage", "_int", "_manifest",
              "_damaged", "_use", "_exists", "_prepare", "_BOOT_ONLY")


def _shed():
    if sys.implementation.name != "micropython":
        return  # (CPython's tests call them again and again)
    g = globals()
    for name in _BOOT_ONLY:
        g.pop(name, None)


def _prepare():
    """main()'s checks before the app: the slot's files against their hashes, the start
    counted on trial, the deadman armed.  Returns (slot, version, trial, deadman) of
    what runs (or does not return: a restart, the safe state)."""
    st = _state()
    slot = _me[1]
    if slot not in _SLOTS or ("/slots/" + str(slot)) not in sys.path:
        _safe_state("no complete firmware on the board")
    manifest = _manifest(slot)
    version = manifest.get("version", "?")
    trial = st.get("trial") is True
    prev = st.get("previous")
    prev = prev if prev in _SLOTS and prev != slot and _damage(prev) is None else None
    m = _machine()
    if m is not None and not trial and m.reset_cause() == getattr(m, "PWRON_RESET", -1):
        st["crashes"] = 0  # the owner cut the power: a fresh try
    bad = _damaged(slot, manifest)
    if bad is not None:
        st["last_error"] = "file %s is damaged (sha256)" % bad
        if trial:
            st["boots"] = _uint(st.get("max_boots"), 3)
        else:
            st["crashes"] = _MAX_CRASHES
        print("main: %s of %s (slot %s) is damaged" % (bad, version, slot))
        if _save(st) and prev is not None:
            _restart()  # boot() falls back
        if prev is None:
            _safe_state("%s of %s is damaged" % (bad, version))
        slot, trial = prev, False  # (the fallback could not be written: run it now)
        _use(slot)
        manifest = _manifest(slot)
        version = manifest.get("version", "?")
        print("main: running %s (slot %s) instead" % (version, slot))
    boots = _uint(st.get("boots"), 0)
    if trial:
        boots += 1
        st["boots"] = boots
        st.pop("last_error", None)
        if not _save(st) and prev is not None:
            # A start that cannot be counted cannot be bounded: no trial on a
            # full flash; the previous version runs until there is room.
            print("main: cannot count a start on trial of %s (slot %s): the flash is full; "
                  "running the previous version" % (version, slot))
            slot, trial = prev, False
            _use(slot)
            manifest = _manifest(slot)
            version = manifest.get("version", "?")
    if trial:
        print("main: running %s (slot %s, on trial: start %d of %d)"
              % (version, slot, boots, _uint(st.get("max_boots"), 3)))
    else:
        print("main: running %s (slot %s)" % (version, slot))
        if st.get("fell_back_from"):
            print("main: back on this version: slot %s %s" % (st["fell_back_from"], st.get("reason", "failed")))
        if _uint(st.get("crashes"), 0) >= _MAX_CRASHES and slot == st.get("active"):
            _safe_state("%s kept failing: %s" % (version, st.get("last_error", "?")))
    deadman = _Deadman(_uint(st.get("trial_ms"), 30000)) if trial else None
    return slot, version, trial, deadman


def main():
    # What the stage read (the manifest's ~60 entries, the state, the hash check's
    # buffers: ~10 KB in scattered blocks) goes with _prepare()'s frame before the app
    # is imported: held by this frame for the app's whole run, it cut the heap into
    # pieces none of which took the engine's 16 KB table (docs/BOARD.md, "Memory
    # through the boot path").  Then the code only the checks used goes (_shed).
    slot, version, trial, deadman = _prepare()
    _shed()
    healthy = [0]  # set once confirm_boot() ran (a list: the closure writes it)

    def confirm_boot(*_):
        if healthy[0]:
            return
        healthy[0] = 1
        if deadman is not None:
            deadman.disarm()
        if trial:
            s = _state()
            s.update(trial=False, boots=0, crashes=0)
            for k in ("last_error", "fell_back_from", "reason", "unproven"):
                s.pop(k, None)
            _save(s)
            try:
                with open("/slots/%s/confirmed" % slot, "w") as f:
                    f.write(version)
            except OSError:
                pass
            print("main: confirmed slot %s (%s)" % (slot, version))
        else:
            s = _state()
            if "unproven" in s:  # a trial given up with nothing to go back to: it works now
                s.pop("unproven")
                _save(s)
            print("main: healthy (%s, slot %s)" % (version, slot))
        _promote()

    _collect()
    t0 = time.ticks_ms()
    try:
        from mancala import app
        app.confirm_boot = confirm_boot  # type: ignore[assignment]  # the app calls it once healthy
        app.main()
        raise RuntimeError("app.main() returned")
    except KeyboardInterrupt:
        if deadman is not None:
            deadman.disarm()
        if trial and not healthy[0]:
            s = _state()
            s["boots"] = max(0, _uint(s.get("boots"), 1) - 1)
            _save(s)
            print("main: interrupted (not counted as a failed start)")
        raise
    except Exception as e:
        sys.print_exception(e)
        why = "%s: %s" % (type(e).__name__, e)
        s = _state()
        s["last_error"] = why[:120]
        if trial and s.get("trial") is True:
            _save(s)
            print("main: the new version failed to start; restarting")
            _restart()
        crashes = _uint(s.get("crashes"), 0)
        crashes = 1 if time.ticks_diff(time.ticks_ms(), t0) > _STABLE_MS else crashes + 1
        s["crashes"] = crashes
        _save(s)  # (a full flash: the crash is not counted, the board restarts all the same)
        if crashes < _MAX_CRASHES or s.get("previous") in _SLOTS:
            print("main: the app stopped (%s); restarting (%d of %d)" % (why, crashes, _MAX_CRASHES))
            _restart()
        _safe_state("%s kept failing: %s" % (version, why))
