"""The puzzles and the course in the menu, without their code in a game's heap.

Imported by mancala/app.py at its start (before the menu): their mode numbers
(modes.family: the modules modes/puzzle.py and modes/course.py are imported when the
mode is first switched to), the menu's "play" choices (modes.add_activity), and the
resume at boot of an activity under way when the power went (/data/puzzle.json).
What it registers stays in modes' lists: on the board the module itself is dropped at
the end of the boot (modes/start.py), imported again by puzzle.py and course.py for
their numbers, and dropped with them (modes/trainer.py leave()).
"""

from mancala.modes import add_activity, family

PUZZLE = family("puzzle", "puzzle")
COURSE = family("course", "course")
add_activity(PUZZLE, (255, 120, 0))
add_activity(COURSE, (120, 255, 120))


def resume(app):
    """At boot: back into the puzzle or the lesson under way, if any."""
    if app.settings.get("play"):  # (never chosen: no file to read)
        prog = app.store.load("puzzle.json")[1]
        if isinstance(prog, dict) and prog.get("mode") in ("puzzle", "course"):
            app.set_mode(PUZZLE if prog["mode"] == "puzzle" else COURSE)
