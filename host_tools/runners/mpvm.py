"""Run code in the real MicroPython VM (the official WebAssembly port, under Node).

The firmware package is copied into the VM's filesystem at /lib/mancala, so a
script can `import mancala...` exactly as on a board.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")
RUNNER = os.path.join(ROOT, "host_tools", "runners", "mpvm_run.mjs")
VM_ENTRY = os.path.join(
    ROOT, "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs"
)


class MicroPythonError(RuntimeError):
    """The script raised inside the MicroPython VM; the message is its traceback."""


def available():
    return os.path.exists(VM_ENTRY)


def run(code, mounts=None, heap=16 * 1024 * 1024, timeout=600, check=True):
    """Run `code` in the VM; return its stdout as text.

    mounts: extra (host_path, vm_path) pairs copied into the VM first; the
    firmware's `mancala` package is always at /lib/mancala.
    """
    if not available():
        raise RuntimeError("MicroPython VM not installed: run `make setup` (npm ci)")
    args = ["node", RUNNER, "--heap", str(heap),
            "--mount", os.path.join(FIRMWARE, "mancala") + ":/lib/mancala"]
    for host, vm in mounts or ():
        args += ["--mount", "%s:%s" % (host, vm)]
    args.append("-")
    proc = subprocess.run(args, input=code, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise MicroPythonError(proc.stderr.strip() or "exit status %d" % proc.returncode)
    return proc.stdout


if __name__ == "__main__":  # python -m host_tools.runners.mpvm SCRIPT
    with open(sys.argv[1]) as f:
        sys.stdout.write(run(f.read()))
