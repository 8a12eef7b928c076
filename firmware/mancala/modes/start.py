"""The App's start, code the boot alone needs (on the board the module is dropped once
the board is built, mancala.app.main): the board built from its profile (build), the
settings, the session's long-lived buffers, the saved game back (and the pause a power
cut left it in).  The boot's blink codes: modes/boot.py; the board that cannot play:
modes/errors.py."""

import sys

from mancala import modes as M
from mancala.game import Game, release_room
from mancala.hw import pits as P
from mancala.hw import storage as S
from mancala.hw.pixels import Pixels, prefix_writer
from mancala.modes import (
    BLUNDER,
    BOOT,
    LED_TEST,
    MENU,
    PAUSE_BLUNDER,
    PAUSE_SOWING,
    SENSOR_TEST,
)
from mancala.modes.menu import DEFAULTS, MEMORY_CODE, apply_settings, need_engine
from mancala.modes.menu import short as menu_short
from mancala.record import format_record
from mancala.rules import MASK, N_STORE, S_STORE, SIDE, get_rules

STORES = (1 << S_STORE) | (1 << N_STORE)


def forget_boot_modules():
    """On the board, drop the modules only the boot needs (the profile check, the
    profile loader, the reading of game records: about 9 KB of code on an ESP32) so a
    game has their room (this module still holds what it uses: it goes next, main())."""
    if sys.implementation.name != "micropython":
        return  # the PC keeps them (tests import them again and again)
    from mancala import forget

    for name in ("profile", "profiles", "notation"):
        forget(name)
    for name in list(sys.modules):
        if name.startswith("mancala.profiles."):
            sys.modules.pop(name)


def start(app, storage, log):
    """App.__init__ after the shared state: the settings, the session's buffers, the
    saved game, the power-on tests."""
    st, s = storage.load("settings.json")
    app.settings = dict(DEFAULTS)
    if st == S.OK:
        for k in DEFAULTS:
            v = s.get(k)
            if isinstance(v, type(DEFAULTS[k])) and not isinstance(v, bool):
                app.settings[k] = v
    elif st == S.CORRUPT:
        log("settings.json is corrupt: using the defaults")
        app.boot_codes.append(2)
    if app.profile.get("wifi"):  # "online" among the menu's choices (before they are checked)
        from mancala.modes.activities import online_menu

        online_menu(app)
    apply_settings(app)
    try:  # (a measurement's switch: docs/BOARD.md, "Memory through the boot path")
        storage.fs.open_read(storage.path("heap_watch")).close()
        app.heap_watch = True
    except (OSError, AttributeError):  # (AttributeError: a PC store without open_read)
        pass
    # The session's long-lived buffers, allocated first, while the heap is whole,
    # and kept: one game history (each new or loaded game reuses it) and one
    # engine (rebuilt, the old one released first, only when the variant changes).
    rules = get_rules(app.settings["variant"])
    forget_boot_modules()
    release_room()  # they land in the room taken at the first import
    app.session_game = Game(rules)
    app.take_spare()  # (a save's block: App.roomy)
    for note in _notes:
        menu_short(app, note)
    del _notes[:]
    if app.short:  # it starts with less than it wants: the pits say so at power-on
        app.boot_codes.append(MEMORY_CODE)
    # (the engine is built once this module's code has gone: first_engine() below)
    boot_game(app, engine=False)
    if app.profile.get("wifi"):  # back into an online game the power cut
        from mancala.modes.activities import online_resume

        online_resume(app)
    if app.profile.get("battery"):
        from mancala.power import boot_note  # the board went dark on a low battery

        boot_note(app)
    M.load(BOOT)  # the loop's first turn is the boot's (it goes on at once without codes)
    raw = app.pits.sensors.read()
    if raw & STORES == STORES:
        app.set_mode(SENSOR_TEST)
    elif raw & STORES == 1 << S_STORE:
        app.set_mode(LED_TEST)
    elif app.boot_codes:
        app.set_mode(BOOT)
    else:  # a puzzle or a lesson under way when the power went
        from mancala.modes.activities import resume

        resume(app)
    # the activities' numbers and menu choices are in modes' lists: their module goes
    # (modes/puzzle.py and course.py import it again for their numbers)
    M.forget("activities")


def _parse(record):
    """A game record read (mancala.notation: imported here, not at the module's top,
    so the boot's tightest moment, the session's buffers allocated, does not hold it;
    forget_boot_modules drops it again).  Called, not imported into a caller's frame:
    a live frame would keep the module held."""
    from mancala.notation import parse_record

    game = parse_record(record)
    forget_boot_modules()
    return game


def _deployed(profile):
    """True on the board for one of its own profiles, as deploy sent it: deploy checked it
    (mancala/profile.py's validate, on the PC) and the stage's hash check keeps the file as
    sent, so its check here would only cost the start's peak ~9 KB of code.  A profile
    handed in (the PC's, a test's) is checked."""
    if sys.implementation.name != "micropython" or not isinstance(profile.get("name"), str):
        return False
    from mancala import profiles

    try:
        return profiles.load(profile["name"]) is profile
    except ValueError:
        return False


def _validate(profile):
    """The profile's problems (mancala.profile, dropped once the board is built:
    imported in a frame that ends here, not in build()'s, which lives on)."""
    from mancala.profile import validate

    return validate(profile)


def boot_game(app, engine=True):
    """The saved game back, with its engine (engine=False: the board's start, which
    builds the engine after the start's code has gone, first_engine)."""
    app.game = None  # released before the saved one is built (no two at once)
    try:
        import gc

        gc.collect()
    except ImportError:  # pragma: no cover
        pass
    st, g = app.store.load("game.json")
    if st == S.CORRUPT:
        app.log("game.json is corrupt: the game is lost, settings kept")
        app.boot_codes.append(3)
    elif st == S.OK:
        try:
            game = _parse(g["record"])
            meta = {"number": int(g["number"]), "human": int(g["human"]) & 3,
                    "level": int(g["level"]), "hints": int(g["hints"])}
            if not 0 <= meta["level"] <= 4:
                raise ValueError("level")
        except MemoryError:  # no room to read it back: the file is whole, and the start
            raise  # (or the loop's way back) tries again with less
        except Exception as e:  # noqa: BLE001 - a bad file never stops the boot
            app.log("game.json does not hold a game (%r): the game is lost" % (e,))
            app.boot_codes.append(3)
        else:
            app.session_game.assign(game)
            game = None  # the parsed copy goes: the session's game holds it now
            app.game = app.session_game
            app.meta = meta
    if app.game is None:
        app.next_mode = MENU
        return
    if engine:
        need_engine(app)
    app.refresh()
    if app.game.over:
        app.archive(format_record(app.game))  # the power failed before it was
    app.next_mode = app.turn_mode()
    restore_pause(app)

def restore_pause(app):
    """After a power cut: back into the blunder pause, or show the pits that may
    hold the stones of a move that was being sown (the game is saved before it).
    No pause.json (older firmware), a stale or a nonsense one: play on."""
    app.pause = 0
    st, saved = app.store.load("pause.json")
    g = app.game
    if st != S.OK or g.over:
        return
    kind = saved.get("kind", 0)
    pit = saved.get("pit", -1)
    if not (isinstance(kind, int) and isinstance(pit, int) and
            saved.get("ply") == g.ply and saved.get("number") == app.meta["number"]):
        return
    if kind == PAUSE_BLUNDER and g.ply and -1 <= pit < 6:
        last = g.moves()[-1]
        app.before[:] = g.position_at(g.ply - 1)
        if app.human(app.before[SIDE]):
            app.sow_pit = last
            app.grade = (5, 0, pit)
            app.pause = kind
            app.pause_pit = pit
            app.next_mode = BLUNDER
    elif kind == PAUSE_SOWING and 0 <= pit - g.side * 7 < 6 and \
            g.pos[MASK] >> (pit - g.side * 7) & 1:
        side = g.side
        path = g.rules.paths[side * 6 + pit - side * 7]
        n = g.pos[pit]
        if g.rules.name == "mangala" and n == 1:
            path = path[1:2]  # as begin_move() sows it
        m = 1 << pit
        for k in range(min(n, len(path))):
            m |= 1 << path[k]
        app.blink_mask = m
        app.blink_ms = app.RESTORE_BLINK_MS
        app.t_blink = app.clock.now()


# -- building the board from its profile -----------------------------------------

def default_profile():
    """The profile of a board with no /data/board.txt, by its chip: an ESP32's, a Pico
    2's (its _machine names the RP2350: the same wiring as the Pico's, its larger
    table), a Pico W's (its _machine names the "Pico W"), else the Pico's."""
    from mancala import profiles

    if sys.platform == "esp32":
        return "esp32"
    machine_name = getattr(sys.implementation, "_machine", "")
    if "RP2350" in machine_name:
        return "pico2_buttons"
    if "Pico W" in machine_name:  # ("Raspberry Pi Pico W with RP2040")
        return "pico_w"
    return profiles.DEFAULT


def pick_profile(profile=None):
    from mancala import profiles

    if isinstance(profile, dict):
        return profile
    if profile is None:
        try:
            with open("/data/board.txt") as f:
                profile = f.read().strip()
        except OSError:
            return profiles.load(default_profile())
        fix = "; set it with: make deploy PROFILE=NAME (one of %s)" % ", ".join(profiles.NAMES)
        if not profile:
            raise ValueError("/data/board.txt is empty" + fix)
        if profile.replace("-", "_") not in profiles.NAMES:
            raise ValueError("/data/board.txt names an unknown board profile %r%s" % (profile, fix))
    return profiles.load(profile)


SIO_GPIO_IN = 0xD0000004  # RP2040 and RP2350: the levels of GPIO 0..29 (bank 0)


def gpio_port(pit_pins, machine, platform=None):
    """(port, shift) for GpioSensors: on the rp2 port, with the pits on consecutive
    GPIOs in board order (every Pico profile), one read of the SIO's GPIO_IN gives
    them all; else (None, 0): a Pin.value() each."""
    first = pit_pins[0]
    if (platform or sys.platform) != "rp2" or getattr(machine, "mem32", None) is None or \
            tuple(pit_pins) != tuple(range(first, first + len(pit_pins))):
        return None, 0
    mem32 = machine.mem32

    def port():
        return mem32[SIO_GPIO_IN]

    return port, first


def make_sensors(p, machine):
    """The profile's pit sensors: GPIO switches or hall sensors behind the mux, with
    the debounce of their kind (hw/pits.py debounce_ms; Pits takes it)."""
    from mancala.hw.pits import debounce_ms

    if p["sensor"] == "gpio":
        pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in p["pit_pins"]]
        port, shift = gpio_port(p["pit_pins"], machine)
        return P.GpioSensors(pins, debounce_ms(p), port, shift, SIO_GPIO_IN)
    from mancala.hw.mux import MuxSensors

    sel = [machine.Pin(n, machine.Pin.OUT) for n in p["mux_select"]]
    adc = machine.ADC(machine.Pin(p["mux_adc"]))
    return MuxSensors(sel, adc, p["mux_channels"], p["hall_threshold"], p["hall_hysteresis"],
                        debounce_ms(p))


def _hardware(app_cls, p, machine, neopixel, clock, fs, engine_cls, log):
    """The board's parts from its profile: (pixels, pits, storage, engine class)."""
    sensors = make_sensors(p, machine)
    if p.get("pixel_driver") == "pio_dma":  # (a bitstream board never imports it)
        from mancala.hw.pio_chain import make_chain

        np = make_chain(p, machine, neopixel, log=log)
    else:
        np = neopixel.NeoPixel(machine.Pin(p["led_pin"], machine.Pin.OUT), p["led_count"])
    px = Pixels(np, p["leds"], p["led_count"], p["ma_per_channel"], p["idle_ma_per_led"],
                p["current_limit_ma"], p["brightness_levels"])
    if p.get("prefix_writes", True):  # (False: a chain that must be sent whole)
        write_prefix = prefix_writer(np, machine)
        if write_prefix is not None:
            px.prefix_writes(write_prefix)
    pits = P.Pits(sensors, clock)
    if fs is None:
        fs = S.OsFs()
    if engine_cls is None:  # the board's engine (its code imported when it is first built,
        engine_cls = app_cls.board_engine  # App.first_engine: once this module has gone)
    return px, pits, S.Storage(fs), engine_cls


# What build() and mancala.app.main learnt before the App existed (memory: the profile
# unchecked, the room given up), handed to start() for the App's short list and its
# power-on blink code
_notes = []  # type: list


def build(app_cls, profile, machine, neopixel, clock, fs=None, engine_cls=None, log=print,
          seed=None, strict=False, fault=None, notes=()):
    """An `app_cls` (mancala.app.App, handed over by mancala.app.build: modes never
    import the app module) for `profile` on these `machine`/`neopixel` modules (or an
    ErrorBoard; `fault`: main.py's safe state, the ErrorBoard with the LEDs lit; `notes`:
    what the board starts without, said again in its start line)."""
    status = None
    unchecked = None
    del _notes[:]
    try:
        errs = [profile["error"]] if "error" in profile else [] if _deployed(profile) \
            else _validate(profile)
    except MemoryError:
        # The check is the PC's too (every shipped profile passes it in the tests);
        # on a heap too small for its code the board starts with the profile as it is
        # rather than not at all, and says so
        errs = []
        unchecked = "memory: no room to check the board profile: starting with it unchecked"
    except Exception as e:  # noqa: BLE001
        errs = ["the profile could not be checked: %r" % (e,)]
    st_pin = profile.get("status_led") if isinstance(profile, dict) else None
    if isinstance(st_pin, (int, str)):  # (a Pico W's: the name "LED", on its radio)
        try:
            status = machine.Pin(st_pin, machine.Pin.OUT)
        except Exception:  # noqa: BLE001
            status = None
    if errs:
        from mancala.modes.errors import ErrorBoard

        return ErrorBoard(errs, status, clock, log)
    if fault is not None:
        from mancala.modes.errors import ErrorBoard

        np = None
        try:
            np = neopixel.NeoPixel(machine.Pin(profile["led_pin"], machine.Pin.OUT), profile["led_count"])
        except Exception:  # noqa: BLE001
            pass
        return ErrorBoard([fault], status, clock, log, np)
    try:
        px, pits, storage, engine_cls = _hardware(app_cls, profile, machine, neopixel, clock,
                                                  fs, engine_cls, log)
    except MemoryError:
        raise  # (mancala.app.main starts once more, without the room for the buffers)
    except Exception as e:  # noqa: BLE001 - a pin the port refuses, a missing module
        from mancala.modes.errors import ErrorBoard

        return ErrorBoard(["the hardware could not be set up: %r" % (e,)], status, clock, log)
    if unchecked is not None:
        _notes.append(unchecked)
    _notes.extend(notes)
    # the profile's check and loader have done their work: their code goes before the App
    # is built (on an ESP32's heap the first start ran out in App.__init__ with them held)
    forget_boot_modules()
    app = app_cls(profile, pits, px, clock, storage, engine_cls, status, log, seed, strict)
    from mancala.idle import attach

    attach(app, profile, machine)
    return app
