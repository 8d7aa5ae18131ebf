"""A pytest plugin loaded into the project's own interpreter by path (see runner.py); it imports nothing from
bench-op."""
