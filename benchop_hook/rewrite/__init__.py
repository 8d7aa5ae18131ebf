"""libcst edits of the planned fixes, on the smallest unit, wrapped the way the file wraps calls."""
