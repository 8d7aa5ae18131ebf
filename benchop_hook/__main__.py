from benchop_hook.cli import entry

entry()
