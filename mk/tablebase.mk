# Endgame tables (docs/TABLEBASE.md): built on the PC, sent to the board by `make deploy`.
#   make tablebase                      every table the boards carry (build/tables/)
#   make tablebase TB_ARGS="kalah --seeds 12"   a larger one for the PC tools
.PHONY: tablebase
tablebase: setup
	$(PY) -m host_tools.generators.tablebase build $(TB_ARGS)
