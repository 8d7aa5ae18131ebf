"""For --all-files: the version of the Ops a benchmark was last written against (its last commit)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from benchop_hook.analysis.modules import ParseCache
from benchop_hook.analysis.project import Project
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.snapshots import GitSnapshot


class LastCommits:
    """Each benchmark's last commit, and the project as it was there (both looked up once)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._projects: dict[str, Project] = {}
        self._bases: dict[str, str | None] = {}

    def base_for(self, path: str) -> str | None:
        if path not in self._bases:
            self._bases[path] = gitrepo.last_commit_of(self.root, path)
        return self._bases[path]

    def project(
        self, rev: str, cache: ParseCache, is_op: Callable[[str], bool], bases: Iterable[str]
    ) -> Project:
        if rev not in self._projects:
            self._projects[rev] = Project(GitSnapshot(self.root, rev), cache, is_op, bases)
        return self._projects[rev]

    def op_paths_changed(self, rev: str, is_op: Callable[[str], bool]) -> tuple[list[str], list[str]]:
        """Op files that differ between `rev` and the working tree: (old paths, new paths)."""
        old, new = [], []
        for c in gitrepo.worktree_changes(self.root, rev):
            if c.old_path and is_op(c.old_path):
                old.append(c.old_path)
            if c.new_path and is_op(c.new_path):
                new.append(c.new_path)
        return old, new
