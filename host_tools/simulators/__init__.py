"""The board without its hardware: the terminal simulator (sim.py) and the browser page (web_serve.py, web/)."""
