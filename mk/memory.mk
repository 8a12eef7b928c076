# Memory of whole sessions in the MicroPython unix port (issue 11, docs/BOARD.md "Memory").
#   make memory                 per profile: the cap, the heap peak, the free heap at the
#                               tightest moment of a 4-game session
#   make memory BISECT=1        ... and the least heap the session completes in (minutes)
.PHONY: memory
memory: setup
	$(PY) -m host_tools.benches.session $(if $(BISECT),--bisect)
