"""Board profiles: one data-only module per reference build (see docs/ARCHITECTURE.md).

The wiring tables and diagrams in hardware/ are generated from these modules
(`make hardware`), so a pin changes here and nowhere else.
"""

NAMES = ("pico_buttons", "pico_hall", "esp32", "pico_cheap", "pico2_buttons")
DEFAULT = "pico_buttons"


def load(name=DEFAULT):
    """Return the PROFILE dict of the build `name` ("pico_hall" or "pico-hall")."""
    name = name.replace("-", "_")
    if name not in NAMES:
        raise ValueError("unknown board profile: " + name)
    pkg = __import__("mancala.profiles." + name)
    return getattr(pkg.profiles, name).PROFILE
