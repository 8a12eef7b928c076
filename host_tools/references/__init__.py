"""Slow, obvious copies the fast code is checked against: reference_rules.py, plain_search.py, exact.py."""
