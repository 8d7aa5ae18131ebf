"""The agent step: what bench-op could not fix from evidence goes to the person's own coding agent, in a
sandbox, and its edit passes the same checks as bench-op's own before anything of it is kept.

residue (which files, and why) -> task (what the agent reads) -> sandbox (where it works) -> check (only the
blocked file, every changed call binds, no choice dropped, no case removed) -> the run, as for bench-op's own
fixes (`step.py` ties them together).
"""
