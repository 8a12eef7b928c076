# hardware/: wiring tables, diagrams, BOMs and current tables generated from the
# board profiles in firmware/mancala/profiles/ (host_tools/generators/hardware_gen.py).
.PHONY: hardware hardware-check

# Regenerate everything under hardware/ that comes from the profiles.
hardware: setup
	$(PY) -m host_tools.generators.hardware_gen
	$(PY) -m host_tools.generators.battery_budget --write

# Fail if a profile is invalid or a generated file is out of date.
hardware-check: setup
	$(PY) -m host_tools.generators.hardware_gen --check
	$(PY) -m host_tools.generators.battery_budget --check
