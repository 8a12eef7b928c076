"""The course: the variant's lessons in order (mancala/lessons.py), each a position
and a task; set it up, make the move the task asks (modes/trainer.py).

Right: the lesson is done, the next one comes (after the last: the menu); wrong: the
pits that would have done it blink green, and the same lesson comes again.  The South
store shows the lessons done at each verdict.
"""

from mancala import lessons as L
from mancala import puzzles as PZ
from mancala.modes import put
from mancala.modes.activities import COURSE
from mancala.modes.trainer import Trainer


class Course(Trainer):
    name = "course"
    kind = "course"
    lesson = None

    def count(self):
        return L.count(self.variant)

    def first(self):
        # the first lesson not yet done
        return PZ.next_number(self.prog, "course_" + self.variant, self.total)

    def load(self, number):
        x = L.get(self.variant, number)
        if x is None:
            return False
        self.lesson = x
        self.pos[:] = x.position(self.rules)
        return True

    def offered(self):
        return L.offered(self.lesson, self.pos)

    def judge(self, pit):
        right = L.check(self.rules, self.lesson, self.pos, pit)
        if not right:
            self.hint = L.right_pits(self.rules, self.lesson)
        return right

    def record(self):
        PZ.record(self.prog, "course_" + self.variant, self.number, self.total, self.right)

    def after_verdict(self, skip):
        if self.right or skip:
            return self.number + 1  # past the last: begin() leaves to the menu
        return self.number

    def score(self):
        return PZ.score(self.prog, "course_" + self.variant, self.total)[0]


put(COURSE, Course())
