"""The follow-up commit, assembled around the user's unstaged edits."""
