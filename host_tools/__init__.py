"""PC-side tools for the Mancala board: CLI, simulator, deploy, analysis."""
