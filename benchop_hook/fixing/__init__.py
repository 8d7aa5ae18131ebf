"""Judging each benchmark call against the changes and planning its smallest fix; the drivers for a commit
range and for --all-files."""
