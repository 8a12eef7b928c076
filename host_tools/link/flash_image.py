"""The board's flash as `make deploy` lays it, built on the PC (docs/UPDATING.md,
"A first install in one file").

`board_files` walks the same plan as a deploy onto an empty flash: the loaders and
the stage at the root, the firmware compiled for the chip into slot a with its
manifest, the state that puts slot a on trial, the endgame tables and opening
books the chip carries under /tables/, and the profile in /data/board.txt when one
is given.  `littlefs_image` writes those files as a littlefs v2 image with the rp2
port's geometry (ports/rp2/modules/_boot.py mounts `VfsLfs2(bdev, progsize=256)` on
the last 1408 KiB of a Pico's 2 MiB flash), and `uf2_with_filesystem` puts that
image behind a MicroPython UF2: one file that sets up a new board by drag and drop.

The RP2040 model's tests power on exactly this image (tests/test_chip_boot.py),
so the start a board makes after deploy is what they check, in seconds instead of
the serial deploy's minutes.
"""

import json
import os
import struct

from host_tools.link import deploy_plan, slots
from host_tools.link.board_transport import DeployError
from host_tools.link.flash_micropython import UF2_MAGIC0, UF2_MAGIC1, UF2_MAGIC_END

# The rp2 port's filesystem on a 2 MiB Pico (RPI_PICO, v1.27.0: MICROPY_HW_FLASH_STORAGE_BYTES)
RP2_FS_OFFSET = 0xA0000
RP2_FS_BYTES = 1408 * 1024
RP2_BLOCK = 4096
RP2_PROG = 256  # _boot.py: VfsLfs2(bdev, progsize=256)
LFS_READ = 32  # extmod/vfs_lfs.c: readsize's default
LFS_LOOKAHEAD = 32
LFS_DISK_VERSION = 0x00020000  # what every MicroPython v1.2x littlefs mounts
FLASH_BASE = 0x10000000  # XIP: where a UF2 block's address counts from
RP2040_FAMILY = 0xE48BFF56  # UF2 family id of the RP2040
# sys.implementation._mpy of the rp2 port on an RP2040: .mpy v6.3, native armv6m
RP2040_MPY = 6 | 3 << 8 | 4 << 10


def _slot_files(src, mpy, slot, patch=None, chip=None):
    version, root, files, fmt = deploy_plan.build(src, mpy, chip=chip)
    if patch is not None:  # (tests: a slot whose files differ, its manifest made to match)
        patch(files)
    out = {"/slots/%s/%s" % (slot, rel): data for rel, data in files.items()}
    out["/slots/%s/manifest.json" % slot] = json.dumps(deploy_plan.manifest_of(version, files, fmt)).encode()
    return version, root, out


def board_files(src=deploy_plan.DEFAULT_SRC, mpy=RP2040_MPY, profile=None, tables_dir=None,
                tables_for="rp2", max_boots=3, trial_seconds=30, over=None, patch=None):
    """{absolute path on the board: bytes} after `make deploy` onto an empty flash,
    and the version.  A table the plan names that is not built is left out, as
    deploy leaves it out (the board plays on without it and says so).
    `over`: the firmware folder of a version already running (confirmed in slot a):
    the flash after a second deploy, the new version in slot b on trial with slot a
    to fall back to.  `patch(files)` changes the new slot's files before its
    manifest is made (a test's damaged module that the manifest vouches for)."""
    from host_tools.generators import tablebase
    from host_tools.generators.book import book_path

    # the chip the flash is laid out for: what deploy would send it (for_chip)
    chip = deploy_plan.chip_named(tables_for) if isinstance(tables_for, str) else None
    slot, previous = ("b", "a") if over is not None else ("a", None)
    version, root, files = _slot_files(src, mpy, slot, patch, chip)
    files.update(("/" + name, data) for name, data in root.items())
    if over is not None:
        old_version, _root, old = _slot_files(over, mpy, "a", chip=chip)
        files.update(old)
        files["/slots/a/confirmed"] = old_version.encode()
    state = slots.trial_state(slot, previous, max_boots, trial_seconds)
    files["/slots/state.json"] = json.dumps(state).encode()
    plan = deploy_plan.tables_plan({}, tables_for)
    if tables_dir is None:
        tables_dir = tablebase.TABLES_DIR
    for variant, seeds in sorted(plan.items()):
        path = tablebase.built_path(variant, seeds, tables_dir)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                files["/tables/%s.tb" % variant] = f.read()
        book = book_path(variant)
        if os.path.isfile(book):
            with open(book, "rb") as f:
                files["/tables/%s.book" % variant] = f.read()
    if profile is not None:
        names = deploy_plan.profile_names(src)
        name = profile.replace("-", "_")
        if name not in names:
            raise DeployError("unknown board profile %r: choose one of %s" % (profile, ", ".join(names)))
        deploy_plan.check_profile(chip, src, name)
        files["/data/board.txt"] = (name + "\n").encode()
    return files, version


def littlefs_image(files, size=RP2_FS_BYTES, block=RP2_BLOCK, prog=RP2_PROG):
    """The bytes of a littlefs v2 image holding `files` ({path: bytes}), as the rp2
    port formats and mounts its flash."""
    try:
        from littlefs import LittleFS
    except ImportError:
        raise DeployError("littlefs-python is not installed: run `make setup`") from None
    fs = LittleFS(block_size=block, block_count=size // block, prog_size=prog,
                  read_size=LFS_READ, lookahead_size=LFS_LOOKAHEAD, cache_size=4 * prog,
                  block_cycles=100, disk_version=LFS_DISK_VERSION)
    made = set()
    for path in sorted(files):
        parts = path.strip("/").split("/")
        for k in range(1, len(parts)):
            d = "/".join(parts[:k])
            if d not in made:
                fs.mkdir(d)
                made.add(d)
        try:
            with fs.open(path.strip("/"), "wb") as f:
                f.write(files[path])
        except Exception as e:  # littlefs' LittleFSError: no space
            raise DeployError("the image has no room for %s (%d bytes): %s"
                              % (path, len(files[path]), e)) from None
    return bytes(fs.context.buffer)


def used_kib(files, size=RP2_FS_BYTES, block=RP2_BLOCK):
    """The KiB `files` take on a littlefs of this geometry: whole blocks (a file over
    littlefs' inline limit takes at least one 4 KiB block), its directories' metadata
    pairs, the superblock."""
    from littlefs import LittleFS

    fs = LittleFS(block_size=block, block_count=size // block, prog_size=RP2_PROG,
                  read_size=LFS_READ, lookahead_size=LFS_LOOKAHEAD, cache_size=4 * RP2_PROG,
                  block_cycles=100, disk_version=LFS_DISK_VERSION, mount=False)
    fs.context.buffer[:] = littlefs_image(files, size, block)
    fs.mount()
    return fs.used_block_count * block // 1024


def firmware_kib(src=deploy_plan.DEFAULT_SRC, mpy=RP2040_MPY, size=RP2_FS_BYTES, chip="rp2"):
    """The KiB the firmware takes on a board's flash with both slots full (the root's
    loaders and stage, two slots, the state), as two deploys lay it for `chip` (a plan
    key: what deploy sends that chip): what the tables plan
    (host_tools/generators/tablebase.py board_plan) must leave it."""
    files, _version = board_files(src, mpy, tables_dir=os.devnull, tables_for=chip, over=src)
    files = {p: d for p, d in files.items() if not p.startswith("/tables/")}
    return used_kib(files, size)


def uf2_blocks(data):
    """(flash offset, 256 bytes) of every UF2 block in `data`."""
    from host_tools.link.flash_micropython import FlashError, uf2_family

    try:
        uf2_family(data)  # (checks every block's magic numbers)
    except FlashError as e:
        raise DeployError(str(e)) from None
    out = []
    for off in range(0, len(data), 512):
        _m0, _m1, _flags, addr, size = struct.unpack_from("<5I", data, off)
        out.append((addr - FLASH_BASE, bytes(data[off + 32:off + 32 + size])))
    return out


def uf2_with_filesystem(micropython_uf2, fs_image, fs_offset=RP2_FS_OFFSET):
    """One UF2: MicroPython's blocks, then the filesystem's (256 bytes a block, erased
    pages left out: a drag-and-drop install erases only the sectors it writes)."""
    blocks = uf2_blocks(micropython_uf2)
    if not blocks:
        raise DeployError("the MicroPython UF2 holds no blocks")
    end = max(a + len(d) for a, d in blocks)
    if end > fs_offset:
        raise DeployError("the MicroPython UF2 reaches 0x%x, into the filesystem at 0x%x"
                          % (end, fs_offset))
    for k in range(0, len(fs_image), 256):
        page = fs_image[k:k + 256]
        if page.count(0xFF) != len(page):
            blocks.append((fs_offset + k, page))
    # littlefs finds the whole flash erased only where the image is erased too: the
    # sectors it does not write must not keep an older filesystem's blocks.  Each
    # 4 KiB sector of the region gets at least its first page written.
    written = {a // RP2_BLOCK for a, _d in blocks if a >= fs_offset}
    for s in range(fs_offset // RP2_BLOCK, (fs_offset + len(fs_image)) // RP2_BLOCK):
        if s not in written:
            blocks.append((s * RP2_BLOCK, b"\xff" * 256))
    blocks.sort()
    out = bytearray()
    for no, (addr, data) in enumerate(blocks):
        head = struct.pack("<8I", UF2_MAGIC0, UF2_MAGIC1, 0x2000, FLASH_BASE + addr, 256, no,
                           len(blocks), RP2040_FAMILY)
        out += head + data.ljust(476, b"\0") + struct.pack("<I", UF2_MAGIC_END)
    return bytes(out)


def main(argv=None):
    import argparse
    import sys

    ap = argparse.ArgumentParser(
        prog="make image", description="One UF2 for a new Pico: MicroPython and the board's "
        "filesystem as `make deploy` lays it (docs/UPDATING.md, 'A first install in one file').")
    ap.add_argument("--micropython", required=True,
                    help="MicroPython's UF2 for the board (RPI_PICO, v1.22 or newer)")
    ap.add_argument("--out", default=None, help="the UF2 written (default: "
                    "build/mancala-NAME, NAME MicroPython's file name: make flash-pico reads "
                    "the version from it)")
    ap.add_argument("--force", action="store_true",
                    help="a MicroPython whose file name gives no supported version")
    ap.add_argument("--src", default=deploy_plan.DEFAULT_SRC, help="firmware folder (default: firmware/)")
    ap.add_argument("--profile", default=None, help="board profile written to /data/board.txt")
    ap.add_argument("--tables-dir", default=None, help="where `make tablebase` built the tables")
    a = ap.parse_args(argv)
    from host_tools.link.flash_micropython import FlashError, check_version, uf2_family

    if a.out is None:
        a.out = os.path.join(deploy_plan.ROOT, "build", "mancala-" + os.path.basename(a.micropython))
    try:
        check_version(a.micropython, a.force)
        with open(a.micropython, "rb") as f:
            mp = f.read()
        if uf2_family(mp) != "rp2040":
            raise DeployError("%s is not MicroPython for a Pico (RP2040): its UF2 family is %s"
                              % (a.micropython, uf2_family(mp)))
        files, version = board_files(a.src, profile=a.profile, tables_dir=a.tables_dir)
        uf2 = uf2_with_filesystem(mp, littlefs_image(files))
    except OSError as e:
        print("make image: error: %s" % e, file=sys.stderr)
        return 2
    except (DeployError, FlashError) as e:
        print("make image: error: %s" % e, file=sys.stderr)
        return 2
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(uf2)
    tables = sorted(p[len("/tables/"):] for p in files if p.startswith("/tables/"))
    print("wrote %s (%d KB): MicroPython from %s and firmware %s, %d files%s"
          % (a.out, len(uf2) // 1024, os.path.basename(a.micropython), version, len(files),
             "; tables " + ", ".join(tables) if tables else "; no tables (make tablebase first)"))
    print("hold BOOTSEL while plugging the Pico in, then copy the file onto the RPI-RP2 drive; "
          "the image carries no games: a board in use is updated with `make deploy`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
