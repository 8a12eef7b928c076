"""Online play on the PC side: the tests' broker (broker.py), a misbehaving proxy
(fault_proxy.py), and a board as a unix-port MicroPython process (mpboard.py, run by
boards.py)."""
