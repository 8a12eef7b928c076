# boot.py: choose the application slot to start (docs/UPDATING.md).
#
# A soft reset always runs boot.py, also the one mpremote does at the start of
# every session (ports/rp2/main.c, ports/esp32/main.c), so nothing here counts
# a start: main.py does that, because it runs only when the board really
# starts the application.  boot.py only decides, from /slots/state.json:
#
#   {"active": "a"|"b", "previous": "b"|"a"|None, "trial": bool, "boots": int,
#    "max_boots": int, "trial_ms": int, "crashes": int, ...}
#
# Every field is untrusted (a power cut, a hand edit, a bug): a wrong type or
# range is replaced by its default, and the result always names a complete
# slot when there is one.  A slot is complete when its manifest.json (written
# last by the updater) lists its files and every file has the listed size (a
# cheap check: os.stat; main.py checks the hashes).  Falls back to the previous
# slot when the active one is incomplete, when its trial failed `max_boots`
# starts, or when it kept failing after it was confirmed (`crashes`).  The
# state file is written only when something changed.  /data is never touched.
import json
import os
import sys

_STATE = "/slots/state.json"
_SLOTS = ("a", "b")
_MAX_CRASHES = 3  # escaping exceptions in a row after the trial (main.py counts)


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:  # missing, empty, truncated, not JSON
        return None


def _write(obj):
    tmp = _STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.rename(tmp, _STATE)


def _int(v, lo, hi, default):
    if isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi:
        return v
    return default


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
            size = entry[1]
            if os.stat(base + rel)[6] != size:
                return "%s has the wrong size" % rel
        except Exception:
            return "%s is missing" % rel
    return None


def _confirmed(slot):
    try:
        os.stat("/slots/" + slot + "/confirmed")
        return True
    except OSError:
        return False


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
        sure = [s for s in good if _confirmed(s)]
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
        # Nothing to go back to: keep it (main.py ends in the safe state if it
        # keeps failing) rather than count forever.
        st = dict(st, trial=False, boots=0, unproven=why)
    elif not st["trial"] and st["crashes"] >= _MAX_CRASHES and prev_ok:
        return _fall_back(st, prev, "kept failing after it was confirmed: %s"
                          % st.get("last_error", "?")), prev
    return st, active


def _boot():
    raw = _read(_STATE)
    st, slot = _choose(raw)
    if st != raw and slot is not None:
        try:
            _write(st)
        except Exception as e:  # a full or read-only flash: start anyway
            print("boot: cannot write the slot state:", e)
    if st.get("fell_back_from") and st != raw:
        # (lost after a hard reset: the USB port comes back after boot.py;
        # main.py says it again)
        print("boot: back to slot %s: %s" % (slot, st.get("reason")))
    return slot


try:
    _slot = _boot()
except Exception as _e:  # never stop the board from starting
    print("boot:", _e)
    _slot = None
    for _s in _SLOTS:
        if _damage(_s) is None:
            _slot = _s
            break
if _slot is not None:
    sys.path.insert(0, "/slots/" + _slot)
