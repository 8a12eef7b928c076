"""Board profiles: one data-only module per reference build (see docs/ARCHITECTURE.md).

The wiring tables and diagrams in hardware/ are generated from these modules
(`make hardware`), so a pin changes here and nowhere else.
"""

NAMES = ("pico_buttons", "pico_hall", "esp32", "pico_cheap", "pico2_buttons", "pico_w")
DEFAULT = "pico_buttons"


def load(name=DEFAULT):
    """Return the PROFILE dict of the build `name` ("pico_hall" or "pico-hall")."""
    name = name.replace("-", "_")
    if name not in NAMES:
        raise ValueError("unknown board profile: " + name)
    try:
        pkg = __import__("mancala.profiles." + name)
    except ImportError:
        # deploy sends a board only the profiles of its own chip
        raise ValueError("board profile %s is not on this board: it is for another chip "
                         "(make deploy PROFILE=NAME with one of this board's)" % name) from None
    return getattr(pkg.profiles, name).PROFILE
