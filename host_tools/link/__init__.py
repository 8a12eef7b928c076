"""A real or emulated board over USB: deploy.py, board_games.py (pull, analyse), flash_micropython.py, bridge.py."""
