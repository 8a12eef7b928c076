# boot.py: the loader of the start-up stage (docs/UPDATING.md, "The start-up
# stage").  It never changes, so it is never updated: everything that does is
# in /stage.py (which slot to start, and how) and in the slots.
#
# A new stage that `make deploy` wrote and checked waits as /stage_next.py.  It
# gets one start to prove itself: renamed to /stage_try.py (one atomic rename)
# before it is imported, it renames itself to /stage.py once the app it started
# is healthy.  If it raises instead, or the board resets before that (a hang,
# a power cut), the update is undone as a whole: the state from before it comes
# back (/slots/state.back, written by deploy before the switch: one rename) and
# the old stage starts the old version.  Before the loaders, the stage was
# boot.py and main.py themselves: deploy keeps those as /boot_v1.py and
# /main_v1.py, which run here until the first stage has proved itself.
import os
import sys


def _undo():
    """The new stage did not prove itself: back to the state before the update."""
    try:
        os.rename("/slots/state.back", "/slots/state.json")
    except OSError:
        pass
    try:
        os.remove("/stage_try.py")
    except OSError:
        pass


def _load():
    names = ["stage"]
    try:
        os.rename("/stage_next.py", "/stage_try.py")
        names.insert(0, "stage_try")
    except OSError:
        try:
            os.stat("/stage_try.py")  # left from a start that never proved it
            _undo()
        except OSError:
            pass
    for name in names:
        try:
            if __import__(name).boot(name):
                return
        except KeyboardInterrupt:
            raise
        except Exception as e:  # a stage that fails to start: the one before it runs
            print("boot: start-up stage %s failed:" % name)
            sys.print_exception(e)
            if name == "stage_try":
                _undo()
        sys.modules.pop(name, None)
    try:
        __import__("boot_v1")  # (the stage of older firmware: it runs at import)
    except ImportError:
        print("boot: no start-up stage on the board (make deploy installs one)")


_load()
