"""The LED chain's waveform on the RP2040 model, both drivers (issue 42 item 8).

    python -m host_tools.benches.chip_wave [MODEL] [--src FIRMWARE]
    (MODEL: ../shared/picobox; FIRMWARE: the folder measured, default firmware/)

Powers on a pico_buttons board twice in one run, as deploy lays its flash out
(host_tools/link/flash_image.py), from a temporary copy of firmware/ whose profile says
"pixel_driver": "bitstream", then "pio_dma"; runs the same script on both (the
start-up, a tap or two so the frames change) and prints, per driver, the pulse widths
on the LED pin (T0H, T1H, T0L, T1L, the reset between frames: min and max, ns) against
the WS2812B datasheets, whether both drivers put the same bytes on the chain, and a
frame's wire time.

The model's PIO is clocked in emulated time for the measurement (chip_wave.mjs,
preloaded into chip_board.mjs: each state machine ticks at its clock divider's pulses,
an instruction's delay takes its cycles); rp2040js as shipped runs a PIO in host time
and its delays in none.  The bitstream driver's edges are the CPU's, cycle-counted as
the model counts them.

The datasheet figures (ns):
  WS2812B, Worldsemi, the original datasheet (the one Adafruit's NeoPixel guide and most
    drivers quote): T0H 0.40 us, T1H 0.80 us, T0L 0.85 us, T1L 0.45 us, each +-150 ns;
    reset above 50 us.
  WS2812B-V5, Worldsemi (the part sold since ~2018): T0H 220-380, T1H 580-1000,
    T0L 580-1000, T1L 580-1000; reset above 280 us.  (Quoted so by Microchip's
    NeoPixel-stick application note and by drivers written from the V5 sheet, e.g.
    FastLED's TIMING_WS2812B_V5 (T1L 645 ns); some other sheets (WS2812B-2020,
    WS2812B-Mini) give T1L 220-420.)
"""

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time

from host_tools.benches.chip_bench import ROOT, ChipBenchError, prepare_model
from host_tools.benches.chip_board import ChipBoard, model_folder

HERE = os.path.dirname(os.path.abspath(__file__))
PRELOAD = os.path.join(HERE, "chip_wave.mjs")
FIRMWARE = os.path.join(ROOT, "firmware")
DRIVERS = ("bitstream", "pio_dma")
PROFILE = "pico_buttons"
KINDS = ("t0h", "t1h", "t0l", "t1l")
# (min, max) ns per kind; "gap": the least low time between frames (the reset)
DATASHEETS = {
    "WS2812B": {"t0h": (250, 550), "t1h": (650, 950), "t0l": (700, 1000),
                "t1l": (300, 600), "gap": 50000},
    "WS2812B-V5": {"t0h": (220, 380), "t1h": (580, 1000), "t0l": (580, 1000),
                   "t1l": (580, 1000), "gap": 280000},
}
BOOT_UNTIL = r"main: confirmed|Traceback|SAFE|failed"
SCRIPT = (("S1", 1500), ("S3", 1500))  # (pit tapped, ms run after the tap)


def firmware_copy(driver, dst, profile=PROFILE, src=FIRMWARE):
    """A copy of firmware/ in `dst` whose `profile` says "pixel_driver": `driver`."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    path = os.path.join(dst, "mancala", "profiles", profile + ".py")
    with open(path) as f:
        text = f.read()
    text, n = re.subn(r'"pixel_driver": "\w+"', '"pixel_driver": "%s"' % driver, text)
    if n != 1:
        raise ChipBenchError("%s: no single \"pixel_driver\" line" % path)
    with open(path, "w") as f:
        f.write(text)
    return dst


@contextlib.contextmanager
def _preloaded(out):
    """chip_board.mjs started meanwhile runs with chip_wave.mjs preloaded (the PIO
    clocked in emulated time, the LED pin's edges recorded into `out`)."""
    saved = {k: os.environ.get(k) for k in ("NODE_OPTIONS", "CHIP_WAVE_OUT")}
    os.environ["NODE_OPTIONS"] = ((saved["NODE_OPTIONS"] or "") + " --import=file://" + PRELOAD).strip()
    os.environ["CHIP_WAVE_OUT"] = out
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def measure(model, driver, script=SCRIPT, profile=PROFILE, boot_ms=9000, settle_ms=1000,
            work=None, src=None):
    """Power a `profile` board with `driver` on the model, run `script`; returns
    {"wave": chip_board's min/max, "widths": {kind: {ns: count}}, "frames": [...],
    "divs": the state machines' dividers, "checks": [(label, t_ns)], "console",
    "host_s"}."""
    from host_tools.link import flash_image

    work = prepare_model(model) if work is None else work
    tmp = tempfile.mkdtemp(prefix="chip-wave-")
    try:
        src = firmware_copy(driver, os.path.join(tmp, "firmware"), profile,
                            src=src or FIRMWARE)
        files, _version = flash_image.board_files(src=src, profile=profile)
        image = flash_image.littlefs_image(files)
        out = os.path.join(tmp, "wave.json")
        t0 = time.time()
        checks = []
        with _preloaded(out):
            board = ChipBoard(model, image, profile, work=work)
        with board:
            board.run(boot_ms, until=BOOT_UNTIL)
            if not re.search(r"main: confirmed", board.console):
                raise ChipBenchError("%s: the board did not start: %s" % (
                    driver, (board.console.strip().splitlines() or ["no output"])[-1]))
            board.run(settle_ms)
            checks.append(("start", board.t_ms))
            for pit, after in script:
                board.tap(pit, after_ms=after)
                checks.append((pit, board.t_ms))
            wave = board.wave()
            console = board.console
        with open(out) as f:
            rec = json.load(f)
        rec.update(wave=wave, checks=checks, console=console, host_s=time.time() - t0)
        if "Traceback" in console:
            raise ChipBenchError("%s: %s" % (driver, console[console.index("Traceback"):].strip()))
        used = bool(rec["divs"])
        if used != (driver == "pio_dma") or "no PIO driver" in console:
            raise ChipBenchError("%s: the board ran the other driver (PIO state machines: %r)"
                                 % (driver, rec["divs"]))
        return rec
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def spans(rec):
    """{kind: (min, max)} ns of the recorded widths ("gap": the reset between frames)."""
    out = {}
    for kind, seen in rec["widths"].items():
        if seen:
            vals = [float(v) for v in seen]
            out[kind] = (min(vals), max(vals))
    return out


def misses(rec, sheet):
    """[(kind, how far out, ns)] where the recorded widths leave `sheet`'s limits."""
    lim = DATASHEETS[sheet]
    s = spans(rec)
    out = []
    for kind in KINDS:
        if kind not in s:
            out.append((kind, None))
            continue
        lo, hi = s[kind]
        if lo < lim[kind][0]:
            out.append((kind, lo - lim[kind][0]))
        if hi > lim[kind][1]:
            out.append((kind, hi - lim[kind][1]))
    if "gap" in s and s["gap"][0] < lim["gap"]:
        out.append(("gap", s["gap"][0] - lim["gap"]))
    return out


def chain_at(rec, t_ms):
    """The chain's bytes (hex) after the last frame sent before `t_ms` of the chip's time."""
    state = None
    for fr in rec["frames"]:
        if fr["t_ns"] > t_ms * 1e6:
            break
        if fr["chain"] is not None:
            state = fr["chain"]
    return state


def states(rec):
    """The chain's successive contents (hex), each once."""
    return [fr["chain"] for fr in rec["frames"] if fr["chain"] is not None]


def full_frames(rec, leds):
    """Wire times (ns, first rise to last fall) of the frames that reach every LED."""
    return [fr["span_ns"] for fr in rec["frames"] if fr["bits"] == leds * 24]


def _ns(v):
    return "%d" % round(v)


def _range(sp, kind, scale=1.0, unit=""):
    if kind not in sp:
        return "-"
    lo, hi = sp[kind]
    if round(lo) == round(hi):
        return _ns(lo / scale) + unit
    return "%s-%s%s" % (_ns(lo / scale), _ns(hi / scale), unit)


def _values(rec, kind):
    seen = rec["widths"].get(kind) or {}
    vals = sorted(seen, key=float)
    if len(vals) > 4:
        return "%d values" % len(vals)
    return "/".join(_ns(float(v)) for v in vals)


def report(results, leds):
    names = [d for d in DRIVERS if d in results]
    head = "| | " + " | ".join("%s (ns)" % d for d in names) + " | WS2812B | WS2812B-V5 |"
    lines = [head, "|---" * (len(names) + 3) + "|"]
    label = {"t0h": "T0H", "t1h": "T1H", "t0l": "T0L", "t1l": "T1L"}
    sps = {d: spans(results[d]) for d in names}
    for kind in KINDS:
        cells = ["%s (%s)" % (_range(sps[d], kind), _values(results[d], kind)) for d in names]
        sheet = ["%d-%d" % DATASHEETS[s][kind] for s in DATASHEETS]
        lines.append("| %s | %s | %s |" % (label[kind], " | ".join(cells), " | ".join(sheet)))
    cells = [_range(sps[d], "gap", 1000.0, " us") for d in names]
    sheet = [">= %d us" % (DATASHEETS[s]["gap"] // 1000) for s in DATASHEETS]
    lines.append("| reset (low between frames) | %s | %s |" % (" | ".join(cells), " | ".join(sheet)))
    cells = []
    for d in names:
        wires = full_frames(results[d], leds)
        cells.append("%.2f ms (%.1f us a LED)" % (max(wires) / 1e6, max(wires) / 1e3 / leds)
                     if wires else "-")
    lines.append("| a frame of %d LEDs on the wire | %s | | |" % (leds, " | ".join(cells)))
    cells = ["%d / %d" % (len(results[d]["frames"]), len(states(results[d]))) for d in names]
    lines.append("| frames / changes of the chain | %s | | |" % " | ".join(cells))
    for sheet in DATASHEETS:
        cells = []
        for d in names:
            m = misses(results[d], sheet)
            cells.append("within" if not m else ", ".join(
                "%s %+d ns" % (k.upper() if k != "gap" else "reset", v) if v is not None
                else "%s not seen" % k.upper() for k, v in m))
        lines.append("| against %s | %s | | |" % (sheet, " | ".join(cells)))
    return "\n".join(lines)


def pit_slices(rec, spans_):
    """Per pit/store span (first LED, count): the set of its bytes (hex) over the run."""
    out = [set() for _ in spans_]
    for state in states(rec):
        raw = bytes.fromhex(state)
        for k, (first, n) in enumerate(spans_):
            out[k].add(raw[first * 3:(first + n) * 3].hex())
    return out


def same_pixels(results, spans_):
    """(same, notes): do both drivers put the same bytes on the chain?  The runs'
    timing differs by tens of ms (the bitstream's frames take the CPU), so a blink
    step may fall before a press in one run and after it in the other: the chain's
    whole contents are compared at the script's check points, and pit by pit over the
    runs (each pit's or store's LEDs showed the same set of byte strings)."""
    a, b = (results[d] for d in DRIVERS)
    notes = []
    same = True
    for (label, ta), (_, tb) in zip(a["checks"], b["checks"], strict=True):
        ok = chain_at(a, ta) is not None and chain_at(a, ta) == chain_at(b, tb)
        same = same and ok
        notes.append("after %s: %s" % (label, "same bytes" if ok else "DIFFERENT bytes"))
    pa, pb = pit_slices(a, spans_), pit_slices(b, spans_)
    bad = [k for k in range(len(spans_)) if pa[k] != pb[k]]
    same = same and not bad
    notes.append("pit by pit over the runs: %s" % (
        "the same bytes (%d strings)" % sum(len(x) for x in pa) if not bad
        else "DIFFERENT at spans %s" % bad))
    sa, sb = set(states(a)), set(states(b))
    notes.append("whole contents: %d seen in both runs, %d only in the bitstream's, %d only "
                 "in the PIO's" % (len(sa & sb), len(sa - sb), len(sb - sa)))
    sizes = {fr["bits"] // 8 for d in DRIVERS for fr in results[d]["frames"]}
    notes.append("frame lengths (bytes): %s" % ", ".join(str(n) for n in sorted(sizes)))
    return same, notes


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m host_tools.benches.chip_wave",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?", default=model_folder(),
                    help="the RP2040 model's folder (default ../shared/picobox)")
    ap.add_argument("--src", default=FIRMWARE,
                    help="the firmware folder measured (copied; default firmware/)")
    a = ap.parse_args(argv)
    model = a.model
    if not model:
        sys.stderr.write("chip wave: no RP2040 model (../shared/picobox; or give its folder)\n")
        return 2
    from host_tools.benches.chip_board import load_profile

    leds = load_profile(PROFILE)["led_count"]
    try:
        work = prepare_model(model)
        results = {}
        for driver in DRIVERS:
            sys.stderr.write("chip wave: %s: power-on, taps %s\n" % (
                driver, ", ".join(p for p, _ in SCRIPT)))
            results[driver] = measure(model, driver, work=work, src=a.src)
            sys.stderr.write("chip wave: %s: %.1f s of the chip's time in %.0f s\n" % (
                driver, results[driver]["checks"][-1][1] / 1000, results[driver]["host_s"]))
    except ChipBenchError as e:
        sys.stderr.write("chip wave: %s\n" % e)
        return 2
    print("LED chain on GP%d, %s, %d LEDs; MicroPython v1.27.0 (rp2) on the RP2040 model, "
          "125 MHz" % (load_profile(PROFILE)["led_pin"], PROFILE, leds))
    for d in DRIVERS:
        if results[d]["divs"]:
            print("%s: state machine clock dividers %s" % (d, ", ".join(
                "PIO%d SM%d %d + %d/256" % (x["pio"], x["sm"], x["int"], x["frac"])
                for x in results[d]["divs"])))
    print()
    print(report(results, leds))
    print()
    same, notes = same_pixels(results, load_profile(PROFILE)["leds"])
    print("Same pixels for both drivers: %s (%s)" % ("yes" if same else "NO", "; ".join(notes)))
    for d in DRIVERS:
        cross = results[d]["wave"]
        sp = spans(results[d])
        for kind in KINDS:
            if kind in sp and [round(x) for x in sp[kind]] != [round(x) for x in cross[kind]]:
                print("(%s %s: chip_board.mjs read %r)" % (d, kind, cross[kind]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
