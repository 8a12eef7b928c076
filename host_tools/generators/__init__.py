"""What is made once and committed or sent: tablebase.py, book.py, puzzles.py, hardware_gen.py (hardware/)."""
