"""Numbers in git notes, the comparison with the parent, history and plots."""
