# main.py: run the application in the active slot (boot.py put it on sys.path).
#
# The slot on trial is confirmed (boot.py stops counting) when the application
# calls `app.confirm_boot()` (main.py sets it before calling `app.main()`), when
# it has run for _WINDOW_MS, or when `app.main()` returns.  If it fails before
# that, the board restarts (machine.reset() on a board, a soft reset where
# there is no `machine`) and boot.py counts one failed start.
import json
import os
import sys
import time

_STATE = "/slots/state.json"
_WINDOW_MS = 15000


def _state():
    try:
        with open(_STATE) as f:
            return json.load(f)
    except Exception:
        return None


def confirm_boot(*_):
    st = _state()
    if isinstance(st, dict) and st.get("trial"):
        st["trial"] = False
        st["boots"] = 0
        tmp = _STATE + ".tmp"
        with open(tmp, "w") as f:
            json.dump(st, f)
        os.rename(tmp, _STATE)
        print("main: confirmed slot %s" % st.get("active"))


def _on_trial():
    st = _state()
    return isinstance(st, dict) and bool(st.get("trial"))


def _can_fall_back():
    st = _state()
    return isinstance(st, dict) and bool(st.get("trial")) and st.get("previous") in ("a", "b")


def _restart():
    try:
        import machine
    except ImportError:
        machine = None
    if machine is not None:
        machine.reset()
    sys.exit()  # on a board, SystemExit from main.py is a soft reset


def _arm_timer():
    # Confirm after _WINDOW_MS while the app runs (boards with machine.Timer).
    try:
        import machine
        import micropython
    except ImportError:
        return None

    def cb(_t):
        micropython.schedule(confirm_boot, 0)

    for tid in (-1, 0):
        try:
            return machine.Timer(tid, mode=machine.Timer.ONE_SHOT, period=_WINDOW_MS, callback=cb)
        except Exception:
            pass
    return None


def _announce():
    st = _state()
    slot = st.get("active") if isinstance(st, dict) else None
    version = "?"
    try:
        with open("/slots/%s/manifest.json" % slot) as f:
            version = json.load(f).get("version", "?")
    except Exception:
        pass
    print("main: running %s (slot %s)" % (version, slot))


def _run():
    t0 = time.ticks_ms()
    trial = _on_trial()
    _announce()
    timer = None
    try:
        from mancala import app
        app.confirm_boot = confirm_boot  # type: ignore[assignment]  # the app calls it once healthy
        if trial:
            timer = _arm_timer()
        app.main()
    except KeyboardInterrupt:
        raise
    except Exception as e:
        if timer is not None:
            timer.deinit()
        sys.print_exception(e)
        if trial and _can_fall_back() and time.ticks_diff(time.ticks_ms(), t0) < _WINDOW_MS:
            print("main: the new version failed to start; restarting")
            _restart()
        return
    confirm_boot()


_run()
