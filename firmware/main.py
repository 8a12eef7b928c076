# main.py: start the application through the start-up stage boot.py loaded
# (docs/UPDATING.md, "The start-up stage").  It never changes.  main.py runs
# only when the board really starts the application (power-on, reset, a soft
# reset in the friendly REPL), never after mpremote's soft reset into the raw
# REPL (ports/rp2/main.c, ports/esp32/main.c): the stage counts a start here.
import sys


def _main():
    stage = sys.modules.get("stage_try") or sys.modules.get("stage")
    if stage is None:
        try:
            __import__("main_v1")  # (the stage of older firmware: it runs at import)
        except ImportError:
            print("main: no start-up stage on the board (make deploy installs one)")
        return
    try:
        stage.main()
    except KeyboardInterrupt:
        raise
    except Exception as e:  # the stage itself failed: start again (a new one is not tried twice)
        print("main: the start-up stage failed:")
        sys.print_exception(e)
        try:
            import machine
            machine.reset()
        except ImportError:
            pass


_main()
