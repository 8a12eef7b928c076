# The exhaustive sweeps (issue 24): every cut point of every game, the long
# matches, every profile's whole session.  `make test` runs a sample of each
# (tests marked `long` are left out unless pytest gets --long, tests/conftest.py).
#   make test-long [PYTEST_ARGS=...]   only the tests marked `long`
.PHONY: test-long

test-long: setup
	$(VENV)/bin/pytest -q -n $(JOBS) --long -m long $(PYTEST_ARGS)
