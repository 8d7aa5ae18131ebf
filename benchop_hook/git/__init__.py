"""The repository: the only place that talks to git, snapshots of two versions, the follow-up commit, rebase
and pick sequences, the lock."""
