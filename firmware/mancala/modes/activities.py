"""The puzzles and the course in the menu, without their code in a game's heap.

Imported by mancala/app.py at its start (before the menu): their mode numbers
(modes.family: the modules modes/puzzle.py and modes/course.py are imported when the
mode is first switched to), the menu's "play" choices (modes.add_activity), and the
resume at boot of an activity under way when the power went (/data/puzzle.json; an
online game's: /data/online_game.json).
What it registers stays in modes' lists: on the board the module itself is dropped at
the end of the boot (modes/start.py), imported again by puzzle.py and course.py for
their numbers, and dropped with them (modes/trainer.py leave()).
"""

from mancala.modes import add_activity, family

PUZZLE = family("puzzle", "puzzle")
COURSE = family("course", "course")
add_activity(PUZZLE, (255, 120, 0))
add_activity(COURSE, (120, 255, 120))
# Online play (modes/online.py), on a board with Wi-Fi only: listed by online_menu()
ONLINE = family("online", "online")
ONLINE_COLOUR = (0, 200, 255)


def has_online():
    """Whether this firmware carries the online package (deploy sends it only to a chip
    with a radio): its __init__ alone is imported, a few bytes."""
    try:
        import mancala.online  # noqa: F401
    except ImportError:
        return False
    from mancala import forget

    forget("online")  # (the online mode imports it again when it is chosen)
    return True


def online_menu(app):
    """At boot, on a board with Wi-Fi (profile "wifi"): "online" among the menu's play
    choices once the board has its Wi-Fi and broker settings (/data/online.json), else
    the console says how to give them.  A firmware sent without the online package
    (deploy sends it only to a chip with a radio) says so and plays on without it."""
    if not has_online():
        app.log("online: this firmware has no online package (deploy sends it only to a "
                "board with Wi-Fi: a Pico W or an ESP32)")
        return
    if app.store.fs.read(app.store.path("online.json")) is None:
        app.log("online: no Wi-Fi and broker settings on this board (/data/online.json): "
                "set them with `mancala wifi` to play online")
        return
    add_activity(ONLINE, ONLINE_COLOUR)


def online_resume(app):
    """At boot: back into the online game the power cut (/data/online_game.json, the
    online session's save), after the boot's codes if any."""
    if has_online() and app.store.fs.read(app.store.path("online_game.json")) is not None:
        app.next_mode = ONLINE


def resume(app):
    """At boot: back into the puzzle or the lesson under way, if any."""
    if app.settings.get("play"):  # (never chosen: no file to read)
        prog = app.store.load("puzzle.json")[1]
        if isinstance(prog, dict) and prog.get("mode") in ("puzzle", "course"):
            app.set_mode(PUZZLE if prog["mode"] == "puzzle" else COURSE)
