"""Install MicroPython itself on a new board (docs/UPDATING.md, "A new board").

    python -m host_tools.link.flash_micropython pico  --uf2 RPI_PICO-20250415-v1.25.0.uf2 [--drive /media/me/RPI-RP2]
    python -m host_tools.link.flash_micropython esp32 --bin ESP32_GENERIC-20250415-v1.25.0.bin --port /dev/ttyUSB0
                                                 [--chip esp32] [--baud 460800] [--dry-run]

Pico: hold BOOTSEL while plugging it in; it shows up as a USB drive (RPI-RP2)
and the UF2 file is copied onto it.  ESP32: esptool (from PyPI, installed by
`make setup`) erases the flash and writes the firmware.  Then `make deploy`.
"""

import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys

# The MicroPython releases the firmware supports (MIN_VERSION in deploy.py): .mpy v6
# from 1.22 on, up to the newest one it is tested on (1.27.0: the WebAssembly VM and
# the RP2040 model that runs the rp2 port; 1.28: the unix port).  Older boards:
# install one of these; the exact files the docs name are TESTED_FILES.
SUPPORTED = ("1.22", "1.23", "1.24", "1.25", "1.26", "1.27", "1.28")
TESTED_FILES = {"pico": "RPI_PICO-20251209-v1.27.0.uf2",
                "esp32": "ESP32_GENERIC-20251209-v1.27.0.bin"}
DOWNLOADS = {
    "pico": "https://micropython.org/download/RPI_PICO/ (Pico W: RPI_PICO_W, Pico 2: RPI_PICO2)",
    "esp32": "https://micropython.org/download/ESP32_GENERIC/ (S3: ESP32_GENERIC_S3, C3: ESP32_GENERIC_C3)",
}
UF2_MAGIC0, UF2_MAGIC1, UF2_MAGIC_END = 0x0A324655, 0x9E5D5157, 0x0AB16F30
UF2_FAMILY = {0xE48BFF56: "rp2040", 0xE48BFF59: "rp2350-arm-s", 0xE48BFF5B: "rp2350-arm-ns"}
# Where the ESP32 family's firmware .bin goes (MicroPython's own instructions).
ESP_OFFSET = {"esp32": "0x1000", "esp32s2": "0x1000", "esp32s3": "0x0", "esp32c3": "0x0", "esp32c6": "0x0"}


class FlashError(Exception):
    pass


def spelled(option, value=None):
    """An option as the user gives it: `make flash-pico|flash-esp32` (mk/deploy.mk sets
    MANCALA_PORT_SPELLING=make, as for deploy) take PORT=, DRIVE=, FORCE=1; the
    `mancala flash` command --port, --drive, --force."""
    if os.environ.get("MANCALA_PORT_SPELLING") == "make":
        return "%s=%s" % (option.upper(), "1" if value is None else value)
    return "--%s" % option if value is None else "--%s %s" % (option, value)


def firmware_version(path):
    """'1.25.0' from a MicroPython download name like RPI_PICO-20250415-v1.25.0.uf2."""
    m = re.search(r"v(\d+)\.(\d+)(?:\.(\d+))?", os.path.basename(path))
    if not m:
        return None
    return "%s.%s.%s" % (m.group(1), m.group(2), m.group(3) or "0")


def check_version(path, force=False):
    v = firmware_version(path)
    if v is None:
        if not force:
            raise FlashError("cannot tell the MicroPython version from the name %s (use the "
                             "file name from micropython.org, or %s)"
                             % (os.path.basename(path), spelled("force")))
        return None
    if ".".join(v.split(".")[:2]) not in SUPPORTED and not force:
        raise FlashError("MicroPython %s is not supported by this firmware (supported: %s to %s; "
                         "%s to install anyway)" % (v, SUPPORTED[0], SUPPORTED[-1],
                                                    spelled("force")))
    return v


def uf2_family(data):
    """The UF2 family of a UF2 image (checks every block's magic numbers)."""
    if len(data) < 512 or len(data) % 512:
        raise FlashError("not a UF2 file (size is not a multiple of 512 bytes)")
    family = None
    for off in range(0, len(data), 512):
        m0, m1, flags, _addr, _size, _blk, _n, fam = struct.unpack_from("<8I", data, off)
        (end,) = struct.unpack_from("<I", data, off + 508)
        if m0 != UF2_MAGIC0 or m1 != UF2_MAGIC1 or end != UF2_MAGIC_END:
            raise FlashError("not a UF2 file (bad magic in block %d)" % (off // 512))
        if flags & 0x2000:
            family = fam
    return UF2_FAMILY.get(family, "unknown (0x%08x)" % family if family is not None else "unknown")


def find_pico_drive():
    cands = []
    user = os.environ.get("USER", "*")
    for pattern in ("/media/%s/*" % user, "/media/*", "/run/media/*/*", "/Volumes/*", "/mnt/*"):
        cands += glob.glob(pattern)
    if os.name == "nt":
        cands += ["%s:\\" % c for c in "DEFGHIJKLMNOPQRSTUVWXYZ"]
    drives = sorted({c for c in cands if os.path.isfile(os.path.join(c, "INFO_UF2.TXT"))})
    if not drives:
        raise FlashError("no Pico USB drive found: hold BOOTSEL while plugging the Pico in "
                         "(or give %s)" % spelled("drive", "/media/%s/RPI-RP2" % (user if user != "*" else "me")))
    if len(drives) > 1:
        raise FlashError("several UF2 drives found (%s): choose one with %s"
                         % (", ".join(drives), spelled("drive", drives[0])))
    return drives[0]


def flash_pico(uf2, drive=None, force=False, out=None):
    out = out if out is not None else sys.stdout
    if not os.path.isfile(uf2):
        raise FlashError("no such file: %s (download it from %s)" % (uf2, DOWNLOADS["pico"]))
    version = check_version(uf2, force)
    with open(uf2, "rb") as f:
        data = f.read()
    family = uf2_family(data)
    drive = drive or find_pico_drive()
    info_path = os.path.join(drive, "INFO_UF2.TXT")
    if not os.path.isfile(info_path):
        raise FlashError("%s is not a Pico in BOOTSEL mode (no INFO_UF2.TXT)" % drive)
    with open(info_path, errors="replace") as f:
        info = f.read()
    board = re.search(r"Board-ID:\s*(\S+)", info)
    board = board.group(1) if board else "?"
    chip = "rp2350" if "RP2350" in board else "rp2040" if board == "RPI-RP2" else None
    if chip is not None and family in UF2_FAMILY.values() and not family.startswith(chip):
        raise FlashError("%s is for %s but the board is %s" % (os.path.basename(uf2), family, board))
    dest = os.path.join(drive, os.path.basename(uf2))
    print("copying %s (MicroPython %s, %s, %d KB) to %s" % (os.path.basename(uf2), version or "?", family, len(data) // 1024, drive), file=out)
    shutil.copyfile(uf2, dest)
    try:
        os.sync()
    except AttributeError:
        pass
    print("done: the Pico restarts into MicroPython %s; now run `make deploy`" % (version or ""), file=out)
    return dest


def esptool_commands(binary, port, chip="esp32", baud=460800):
    base = [sys.executable, "-m", "esptool", "--chip", chip, "--port", port, "--baud", str(baud)]
    return [base + ["erase-flash"], base + ["write-flash", "-z", ESP_OFFSET.get(chip, "0x0"), binary]]


def flash_esp32(binary, port, chip="esp32", baud=460800, dry_run=False, force=False, out=None):
    out = out if out is not None else sys.stdout
    if chip not in ESP_OFFSET:
        raise FlashError("unknown chip %s (one of %s)" % (chip, ", ".join(ESP_OFFSET)))
    if not os.path.isfile(binary):
        raise FlashError("no such file: %s (download it from %s)" % (binary, DOWNLOADS["esp32"]))
    version = check_version(binary, force)
    with open(binary, "rb") as f:
        head = f.read(1)
    if head != b"\xe9":
        raise FlashError("%s is not an ESP firmware image (no 0xE9 magic byte)" % binary)
    cmds = esptool_commands(binary, port, chip, baud)
    for cmd in cmds:
        print("$ " + " ".join(cmd[1:]), file=out)
        if dry_run:
            continue
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            lines = [ln.strip() for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
            why = next((ln for ln in lines if "error" in ln.lower()), lines[-1] if lines else "exit %d" % p.returncode)
            raise FlashError("esptool failed: %s" % why.replace("A fatal error occurred: ", ""))
    if not dry_run:
        print("done: the ESP32 runs MicroPython %s; now run `make deploy PORT=%s`" % (version or "", port), file=out)
    return cmds


def flash_main(argv=None):
    ap = argparse.ArgumentParser(prog="mancala flash", description="Install MicroPython on a new board.")
    sub = ap.add_subparsers(dest="board", required=True)
    p = sub.add_parser("pico", help="copy a UF2 file to a Pico in BOOTSEL mode")
    p.add_argument("--uf2", required=True, help="MicroPython UF2 file, from %s (tested: %s)"
                   % (DOWNLOADS["pico"], TESTED_FILES["pico"]))
    p.add_argument("--drive", default=None, help="the Pico's USB drive (default: found by INFO_UF2.TXT)")
    p.add_argument("--force", action="store_true", help="install a MicroPython version not in the supported list")
    e = sub.add_parser("esp32", help="erase and write an ESP32 with esptool")
    e.add_argument("--bin", required=True, help="MicroPython .bin file, from %s (tested: %s)"
                   % (DOWNLOADS["esp32"], TESTED_FILES["esp32"]))
    e.add_argument("--port", default=os.environ.get("PORT"), help="serial port (default: $PORT)")
    e.add_argument("--chip", default="esp32", choices=sorted(ESP_OFFSET))
    e.add_argument("--baud", type=int, default=460800)
    e.add_argument("--dry-run", action="store_true", help="print the esptool commands only")
    e.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    try:
        if a.board == "pico":
            flash_pico(a.uf2, a.drive, a.force)
        else:
            if not a.port and not a.dry_run:  # a dry run only prints the commands
                raise FlashError("give the ESP32's serial port: %s"
                                 % spelled("port", "/dev/ttyUSB0"))
            flash_esp32(a.bin, a.port or "PORT", a.chip, a.baud, a.dry_run, a.force)
    except FlashError as err:
        print("mancala flash: error: %s" % err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(flash_main())
