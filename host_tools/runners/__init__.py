"""MicroPython on the PC: mpvm.py (WebAssembly VM), mpunix.py (unix port), mpycompile.py, typecheck.py."""
