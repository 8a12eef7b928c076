"""Board profiles -> validation, wiring tables, wiring diagrams (SVG), BOM, current tables.

The board profiles in firmware/mancala/profiles/ are the one source of truth. This
script reads them (as literals, the way the firmware sees them), checks them
against the pin-capability tables in host_tools/generators/pins.py, and writes everything
under hardware/ that depends on them. Nothing it writes is edited by hand.

    python -m host_tools.generators.hardware_gen            # regenerate (make hardware)
    python -m host_tools.generators.hardware_gen --check    # fail if anything is stale or invalid
                                                 # (make hardware-check)

The parts: hardware_model.py (profiles, builds, current and magnet models),
hardware_validation.py (the checks), hardware_tables.py (the markdown),
wiring_drawing.py (the wiring SVG), hardware_drawings.py (the mechanical drawings);
this module is the command: the set of outputs, regenerate, check.
"""

import argparse
import os
import sys

from host_tools.generators import hardware_drawings
from host_tools.generators.hardware_model import (
    GENERATED,
    HARDWARE_DIR,
    load_profile,
    profile_names,
)
from host_tools.generators.hardware_tables import (
    render_build_md,
    render_current_summary,
    render_hall_block,
    render_index_md,
)
from host_tools.generators.hardware_validation import validate_all
from host_tools.generators.wiring_drawing import render_svg

# ---------------------------------------------------------------------------
# Output set, regenerate, check
# ---------------------------------------------------------------------------


BEGIN = "<!-- BEGIN GENERATED %s (host_tools/generators/hardware_gen.py, `make hardware`) -->"
END = "<!-- END GENERATED %s -->"


def splice(text, tag, block):
    """Replace the generated block `tag` of a hand-written page (markers must exist)."""
    begin, end = BEGIN % tag, END % tag
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise ValueError("markers for %r missing" % tag)
    return text[:i] + begin + "\n" + block.rstrip("\n") + "\n" + text[j:]



SPLICED = {
    # hand-written page: {tag: function(names, profiles) -> markdown block}
    "power.md": {"current": render_current_summary},
    "sensors.md": {"hall": lambda names, profiles: render_hall_block(profiles)},
}


def outputs(profiles=None):
    """{relative path under hardware/: text} for every generated file or block."""
    names = profile_names()
    if profiles is None:
        profiles = {n: load_profile(n) for n in names}
    out = {"builds.md": render_index_md(names, profiles)}
    for name in names:
        out["%s/README.md" % name] = render_build_md(name, profiles[name])
        out["%s/wiring.svg" % name] = render_svg(name, profiles[name])
        out["%s/template.svg" % name] = hardware_drawings.render_template_svg(name, profiles[name])
    out["top_view.svg"] = hardware_drawings.render_top_view_svg()
    out["ASSEMBLY.md"] = hardware_drawings.render_assembly_md(names, profiles, GENERATED % "*")
    for rel, blocks in SPLICED.items():
        # the hand-written page lives in hardware/ itself, whatever `root` is
        with open(os.path.join(HARDWARE_DIR, rel), encoding="utf-8") as f:
            text = f.read()
        for tag, fn in blocks.items():
            text = splice(text, tag, fn(names, profiles))
        out[rel] = text
    return out


def stale(root=HARDWARE_DIR, files=None):
    """Relative paths whose file under `root` differs from what would be generated."""
    files = outputs() if files is None else files
    bad = []
    for rel, text in sorted(files.items()):
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        bad.append(rel)
    return bad


def write(root=HARDWARE_DIR, files=None):
    files = outputs() if files is None else files
    written = []
    for rel, text in sorted(files.items()):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        written.append(rel)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if outputs are stale or a profile is invalid")
    ap.add_argument("--out", default=HARDWARE_DIR, help="output directory (default: hardware/)")
    args = ap.parse_args(argv)
    problems = validate_all()
    for name, errs in sorted(problems.items()):
        for e in errs:
            print("%s: %s" % (name, e), file=sys.stderr)
    if problems:
        return 1
    if args.check:
        bad = stale(args.out)
        for rel in bad:
            print("stale: hardware/%s (run `make hardware`)" % rel, file=sys.stderr)
        if not bad:
            print("hardware/: %d generated files up to date, %d profiles valid"
                  % (len(outputs()), len(profile_names())))
        return 1 if bad else 0
    for rel in write(args.out):
        print("wrote hardware/%s" % rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
