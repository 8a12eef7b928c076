"""The puzzles and the course in the menu, without their code in a game's heap.

The menu's "play" item lists them (modes/menu.add_activity) under two small stand-ins
registered here (this module is all a game carries of them); choosing one imports its
module (modes/puzzle.py or modes/course.py, with modes/trainer.py, mancala/puzzles.py,
mancala/lessons.py), whose real mode takes the stand-in's number; leaving puts the
stand-ins back and drops those modules (trainer.leave), so their room goes back to the
heap.  At boot an activity under way when the power went (/data/puzzle.json) resumes.
"""

from mancala.modes import MODES, NAMES, Mode, add
from mancala.modes.menu import add_activity


class Later(Mode):
    """Stands for the mode of module mancala.modes.<name>, imported when entered."""

    animated = True
    game_frame = True

    def __init__(self, name):
        self.name = name

    def enter(self, app):
        __import__("mancala.modes." + self.name)  # its add() puts its mode in MODES
        MODES[app.mode].enter(app)


STAND_INS = (Later("puzzle"), Later("course"))
add_activity(add(STAND_INS[0]), (255, 120, 0))
add_activity(add(STAND_INS[1]), (120, 255, 120))


def resume(app):
    """At boot: back into the puzzle or the lesson under way, if any."""
    if app.settings.get("play"):  # (never chosen: no file to read)
        prog = app.store.load("puzzle.json")[1]
        if isinstance(prog, dict) and prog.get("mode") in ("puzzle", "course"):
            app.set_mode(NAMES.index(prog["mode"]))
