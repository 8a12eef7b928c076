# Exhaustive sweeps, too long for `make test` (docs/UPDATING.md).
#   make test-long          every long target (other areas add theirs as prerequisites)
#   make test-long-update   a power cut at every flash operation of two updates, on the
#                           emulated board (tests/test_update_cuts.py; about 28 minutes on
#                           2 loaded cores); each part's verdicts in build/update-cuts-*.txt
.PHONY: test-long test-long-update

test-long: test-long-update

test-long-update: setup
	MANCALA_LONG_UPDATE=1 $(VENV)/bin/pytest -q -s -n $(JOBS) tests/test_update_cuts.py -k sweep
