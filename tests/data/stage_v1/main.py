# main.py: start the application in the slot boot.py chose (docs/UPDATING.md).
#
# main.py runs only when the board really starts the application (power-on,
# reset, a soft reset in the friendly REPL), never after mpremote's soft reset
# into the raw REPL (ports/rp2/main.c, ports/esp32/main.c).  So this is where
# a start is counted:
#
# - On trial: `boots` + 1 is written before the app is imported, and a deadman
#   is armed: a hard one-shot machine.Timer that resets the board after
#   `trial_ms` unless the app calls `confirm_boot()`, which it does once its
#   loop has run healthily (App.run: N turns, no exception, not the error
#   board).  A hard timer fires from an interrupt, so it beats a Python loop and
#   most hangs in C; unlike rp2's machine.WDT (at most 8.3 s, and never stopped
#   once started) it ends with confirm_boot(), a Ctrl-C or a soft reset
#   (`soft_timer_deinit()`), so it cannot reset the board in the middle of an
#   mpremote session or a deploy.  A Ctrl-C (mpremote) is not a failed start:
#   the count is taken back.  boot.py falls back once `boots` reaches
#   `max_boots`.
# - After the trial: an exception that escapes the app (or main() returning)
#   resets the board; `crashes` counts them (a power-on, or a run longer than
#   _STABLE_MS, starts the count again); at _MAX_CRASHES boot.py falls back to
#   the previous slot, or, with none, the board stays in a safe state that
#   lights its LEDs and prints what is wrong every few seconds.
# - Every start first checks the slot's files against the manifest's sha256
#   (a damaged .mpy can hang its import instead of raising).
import json
import os
import sys
import time

_STATE = "/slots/state.json"
_MAX_CRASHES = 3  # as boot.py
_STABLE_MS = 600000  # a run this long before a crash: the count starts again


def _state():
    try:
        with open(_STATE) as f:
            st = json.load(f)
        return st if isinstance(st, dict) else {}
    except Exception:
        return {}


def _save(st):
    tmp = _STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(st, f)
    os.rename(tmp, _STATE)


def _int(v, default):
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else default


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


def _manifest(slot):
    try:
        with open("/slots/%s/manifest.json" % slot) as f:
            m = json.load(f)
        return m if isinstance(m, dict) else {}
    except Exception:
        return {}


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


def _run():
    st = _state()
    slot = st.get("active")
    if slot not in ("a", "b") or ("/slots/" + str(slot)) not in sys.path:
        _safe_state("no complete firmware on the board")
    manifest = _manifest(slot)
    version = manifest.get("version", "?")
    trial = st.get("trial") is True
    m = _machine()
    if m is not None and not trial and m.reset_cause() == getattr(m, "PWRON_RESET", -1):
        st["crashes"] = 0  # the owner cut the power: a fresh try
    bad = _damaged(slot, manifest)
    if bad is not None:
        st["last_error"] = "file %s is damaged (sha256)" % bad
        if trial:
            st["boots"] = _int(st.get("max_boots"), 3)
        else:
            st["crashes"] = _MAX_CRASHES
        _save(st)
        print("main: %s of %s (slot %s) is damaged" % (bad, version, slot))
        if st.get("previous") in ("a", "b"):
            _restart()  # boot.py falls back
        _safe_state("%s of %s is damaged" % (bad, version))
    boots = _int(st.get("boots"), 0)
    if trial:
        boots += 1
        st["boots"] = boots
        st.pop("last_error", None)
        _save(st)
        print("main: running %s (slot %s, on trial: start %d of %d)"
              % (version, slot, boots, _int(st.get("max_boots"), 3)))
    else:
        print("main: running %s (slot %s)" % (version, slot))
        if st.get("fell_back_from"):
            print("main: back on this version: slot %s %s" % (st["fell_back_from"], st.get("reason", "failed")))
        if _int(st.get("crashes"), 0) >= _MAX_CRASHES:
            _safe_state("%s kept failing: %s" % (version, st.get("last_error", "?")))
    deadman = _Deadman(_int(st.get("trial_ms"), 30000)) if trial else None
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
            s["boots"] = max(0, _int(s.get("boots"), 1) - 1)
            _save(s)
            print("main: interrupted (not counted as a failed start)")
        raise
    except Exception as e:
        sys.print_exception(e)
        why = "%s: %s" % (type(e).__name__, e)
        s = _state()
        s["last_error"] = why[:120]
        if s.get("trial") is True:
            _save(s)
            print("main: the new version failed to start; restarting")
            _restart()
        crashes = _int(s.get("crashes"), 0)
        crashes = 1 if time.ticks_diff(time.ticks_ms(), t0) > _STABLE_MS else crashes + 1
        s["crashes"] = crashes
        _save(s)
        if crashes < _MAX_CRASHES or s.get("previous") in ("a", "b"):
            print("main: the app stopped (%s); restarting (%d of %d)" % (why, crashes, _MAX_CRASHES))
            _restart()
        _safe_state("%s kept failing: %s" % (version, why))


_run()
