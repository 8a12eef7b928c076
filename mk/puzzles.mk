# The board's puzzles (docs/PUZZLES.md): made on the PC, committed, shipped with the
# firmware (firmware/mancala/data/puzzles_<variant>.txt).  Not part of `make test`.
#   make puzzles                                  every variant (bounded: PZ_SECONDS each)
#   make puzzles PZ_ARGS="--variant oware --count 40"
#   make puzzles-verify                           re-check every puzzle at the deep budget
PZ_SECONDS ?= 600
.PHONY: puzzles puzzles-verify
puzzles: setup
	$(PY) -m host_tools.command.cli puzzles generate --count 40 --seconds $(PZ_SECONDS) $(PZ_ARGS)
puzzles-verify: setup
	$(PY) -m host_tools.command.cli puzzles verify $(PZ_ARGS)
