# The engine's benchmark on the RP2040 model (host_tools/benches/chip_bench.py, docs/ENGINE.md):
#   make chip-bench MODEL=../shared/picobox [CHIP_ARGS="--variants kalah --positions 2"]
# A measuring tool: no test depends on it (a fresh clone has no model).
.PHONY: chip-bench
chip-bench: setup
	$(PY) -m host_tools.benches.chip_bench "$(MODEL)" $(CHIP_ARGS)

# A Master think (share searching, nodes, presses' frames) and pondering on the model
# (host_tools/benches/chip_think.py): make chip-think MODEL=../shared/picobox
#   [THINK_ARGS="--firmware bitstream=firmware --firmware pio=firmware@pio_dma"]
.PHONY: chip-think
chip-think: setup
	$(PY) -m host_tools.benches.chip_think "$(MODEL)" $(THINK_ARGS)
