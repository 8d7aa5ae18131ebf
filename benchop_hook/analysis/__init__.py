"""What changed and where it is used: signatures, modules, typed edits, Op changes, renames, call sites,
evidence from the tests. Plain values in, plain values out; nothing here writes."""
