"""The two real MicroPython builds the firmware's MicroPython tests run in.

`BUILDS` parametrizes a test over both: the WebAssembly port under Node
(host_tools/runners/mpvm.py: 32-bit, a heap that only grows) and the unix port
(host_tools/runners/mpunix.py: 64-bit, a GC that really frees, a capped heap).
`build` is the fixture giving the chosen build's module (`run(code, mounts=..., heap=...)`).
"""

import pytest

from host_tools.runners import mpunix, mpvm

BUILD_MODULES = {"wasm": mpvm, "unix": mpunix}
BUILDS = pytest.mark.parametrize("build", ["wasm", "unix"], indirect=True)


@pytest.fixture
def build(request):
    mod = BUILD_MODULES[request.param]
    if not mod.available():
        pytest.skip("MicroPython %s build not installed: run `make setup`" % request.param)
    return mod
