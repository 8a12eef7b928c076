"""The `mancala` command: cli.py (the subcommands), protocol.py, match.py, analysis.py, report.py."""
