"""What MicroPython has and CPython lacks (and the reverse), in one place."""

try:
    from micropython import const  # noqa: F401  (compile-time constants on the device)
except ImportError:  # CPython

    def const(value):  # type: ignore[misc]
        return value
