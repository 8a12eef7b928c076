# boot.py: start the active application slot (docs/UPDATING.md).
#
# /slots/state.json = {"active": "a"|"b", "previous": "b"|"a"|None,
#                      "trial": bool, "boots": int, "max_boots": int}
# A slot is complete when /slots/<slot>/manifest.json exists (written last by
# the updater).  A newly installed slot starts on trial: every boot counts, and
# once it has started `max_boots` times without main.py confirming it, the
# board goes back to the previous slot by itself.  Player data (/data) is
# never touched here.  MicroPython only; no `machine` needed.
import json
import os
import sys

_STATE = "/slots/state.json"


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def _write(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.rename(tmp, path)


def _complete(slot):
    if slot not in ("a", "b"):
        return False
    m = _read("/slots/" + slot + "/manifest.json")
    return isinstance(m, dict) and "files" in m


def _choose():
    st = _read(_STATE)
    if not isinstance(st, dict):
        st = {}
    active = st.get("active")
    prev = st.get("previous")
    if not _complete(active):
        # No state, a damaged one, or an active slot without its manifest:
        # take the previous slot, else any complete one.
        for s in (prev, "a", "b"):
            if _complete(s):
                st = {"active": s, "previous": None, "trial": False, "boots": 0}
                try:
                    _write(_STATE, st)
                except Exception:
                    pass
                return s
        return None
    if st.get("trial"):
        boots = st.get("boots", 0) + 1
        if boots > st.get("max_boots", 3) and _complete(prev):
            print("boot: slot %s failed to start %d times; back to slot %s"
                  % (active, boots - 1, prev))
            st = {"active": prev, "previous": active, "trial": False, "boots": 0,
                  "fell_back_from": active}
            active = prev
        else:
            st["boots"] = boots
        try:
            _write(_STATE, st)
        except Exception as e:
            print("boot: cannot write state:", e)
    return active


try:
    _slot = _choose()
except Exception as _e:
    print("boot:", _e)
    _slot = None
if _slot is not None:
    sys.path.insert(0, "/slots/" + _slot)
