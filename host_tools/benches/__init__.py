"""Measurements, not tests: session.py (heap), rules_bench.py, chip_bench.py, web_measure.py."""
