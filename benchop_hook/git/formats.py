"""What git prints, read into values: one reader per format, each used wherever that format is read.
Pure: no process, no repository (`repo.py` runs git and hands the bytes here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, NamedTuple

from benchop_hook.errors import GitError


def decode(raw: bytes) -> str:
    """A path as git prints it: bytes that are no UTF-8 survive the round trip back to the file system."""
    return raw.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Change:
    """One path of a `git diff --name-status`."""

    status: str  # A, M, D, R (renamed), C (copied), T (type change)
    old_path: str | None
    new_path: str | None


def parse_name_status(out: bytes) -> list[Change]:
    """`git diff --name-status -z`."""
    parts = out.split(b"\0")
    changes: list[Change] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i].decode()[0]
        if status in "RC":
            changes.append(Change(status, decode(parts[i + 1]), decode(parts[i + 2])))
            i += 3
        else:
            p = decode(parts[i + 1])
            changes.append(Change(status, None if status == "A" else p, None if status == "D" else p))
            i += 2
    return changes


def parse_status_paths(out: bytes) -> list[str]:
    """The paths of `git status --porcelain=v1 -z` (a rename: its new path)."""
    paths = []
    parts = out.split(b"\0")
    i = 0
    while i < len(parts):
        rec = parts[i]
        i += 1
        if len(rec) < 4:
            continue
        if rec[:1] in (b"R", b"C"):
            i += 1  # the rename's source follows
        paths.append(decode(rec[3:]))
    return paths


def parse_ls_files(out: bytes) -> dict[str, tuple[str, str]]:
    """(mode, blob id) by path of the stage-0 entries of `git ls-files -s -z`."""
    entries = {}
    for rec in out.split(b"\0"):
        if rec:
            meta, path = rec.split(b"\t", 1)
            mode, sha, stage = meta.decode().split(" ")
            if stage == "0":
                entries[decode(path)] = (mode, sha)
    return entries


def index_extension_names(data: bytes) -> set[bytes]:
    """The signatures of an index file's extensions ("TREE", "link", "sdir", ...), from the bytes after its
    entries."""
    names = set()
    pos = 0
    while pos + 8 <= len(data):
        names.add(data[pos : pos + 4])
        pos += 8 + int.from_bytes(data[pos + 4 : pos + 8], "big")
    return names


class GitObject(NamedTuple):
    """One object as `git cat-file --batch` gives it."""

    sha: str
    type: bytes  # b"blob", b"tree", b"commit", b"tag"
    data: bytes


def read_object(stream: IO[bytes]) -> GitObject | None:
    """The next answer of `git cat-file --batch` on `stream`: the object, or None when the request named
    none ("<request> missing" or "ambiguous", whatever spaces a path in the request holds)."""
    line = stream.readline()
    if not line:
        raise GitError("git cat-file failed: it stopped answering")
    header = line.split()
    if len(header) != 3 or not header[2].isdigit() or len(header[0]) not in (40, 64):
        return None
    data = stream.read(int(header[2]))
    stream.read(1)  # the newline after each object
    return GitObject(header[0].decode(), header[1], data)
