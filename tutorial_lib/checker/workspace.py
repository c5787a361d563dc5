"""Snapshots of a folder, to prove that a call left it byte-identical.

:func:`snapshot` records every entry under a folder (symlinks not followed): each file's
size and SHA-256, each directory, each symlink's target, and the kind of anything else
(a FIFO, a socket). :func:`differences` lists what changed between two snapshots:
``added``, ``removed`` and ``changed`` paths, relative, with ``/`` between parts.
Modification and access times are not compared: a read may update an access time.

With ``keep_bytes=True`` a snapshot also keeps the content of small files, so that
:func:`destroyed` can tell an additive write (new files, text appended, records or JSON
members added) from one that loses what was there (MCP's ``destructiveHint``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "KEPT_BYTES",
    "Changes",
    "Snapshot",
    "destroyed",
    "differences",
    "holds_text",
    "kept",
    "snapshot",
]

#: path -> ("file", size, sha256, bytes or None) | ("dir",) | ("link", target)
#: | ("other", mode) | ("unreadable", errno)
Snapshot = dict[str, tuple[object, ...]]

#: Files up to this size keep their bytes in a ``keep_bytes`` snapshot.
KEPT_BYTES = 1 << 18


def _entry(path: Path, keep_bytes: bool) -> tuple[object, ...]:
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(info.st_mode):
        return ("dir",)
    if stat.S_ISREG(info.st_mode):
        digest = hashlib.sha256()
        kept: bytes | None = None
        with path.open("rb") as handle:
            if keep_bytes and info.st_size <= KEPT_BYTES:
                kept = handle.read()
                digest.update(kept)
            else:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        return ("file", info.st_size, digest.hexdigest(), kept)
    return ("other", stat.S_IFMT(info.st_mode))


def snapshot(root: Path, keep_bytes: bool = False) -> Snapshot:
    """Every entry under ``root`` (see the module); unreadable entries are recorded as such."""
    found: Snapshot = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            try:
                found[key] = _entry(path, keep_bytes)
            except OSError as error:
                found[key] = ("unreadable", error.errno)
    return found


@dataclass(frozen=True)
class Changes:
    """What differs between two snapshots (each a sorted tuple of relative paths)."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def describe(self, limit: int = 5) -> str:
        """``"added: a.txt; changed: b.txt"``, at most ``limit`` paths per kind."""
        parts = []
        for label, paths in (("added", self.added), ("removed", self.removed),
                             ("changed", self.changed)):  # fmt: skip
            if paths:
                more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
                parts.append(f"{label}: {', '.join(paths[:limit])}{more}")
        return "; ".join(parts) or "nothing"


def differences(before: Snapshot, after: Snapshot) -> Changes:
    """What changed from ``before`` to ``after``."""
    return Changes(
        added=tuple(sorted(set(after) - set(before))),
        removed=tuple(sorted(set(before) - set(after))),
        changed=tuple(sorted(k for k in set(before) & set(after) if before[k] != after[k])),
    )


def destroyed(before: Snapshot, after: Snapshot) -> list[str]:
    """The paths a write removed or overwrote: what was there and is lost.

    A file that is gone is lost. A changed file lost nothing when its old content is
    still all there (:func:`kept`): text appended, a JSON document that only gained
    members, a file of lines or records (JSON Lines) rewritten whole with every old line
    still in it. A file too large to keep in ``before`` counts as overwritten when it
    changed."""
    found = []
    for path, old in sorted(before.items()):
        new = after.get(path)
        if new is None:
            found.append(path)
        elif new != old:
            if old[0] == "file" and new[0] == "file":
                old_bytes, new_bytes = old[3], new[3]
                if (
                    isinstance(old_bytes, bytes)
                    and isinstance(new_bytes, bytes)
                    and kept(old_bytes, new_bytes)
                ):
                    continue  # additive
                found.append(path)
            elif old[0] != "dir":
                found.append(path)
    return found


def kept(old: bytes, new: bytes) -> bool:
    """Whether ``new`` still holds everything ``old`` held: ``old`` is a prefix (an
    append), or both are JSON and ``new`` contains ``old`` (members added, items added),
    or every line of ``old`` is still a line of ``new`` (as many times: records kept,
    reordered or with new ones between)."""
    if new.startswith(old):
        return True
    try:
        old_value, new_value = json.loads(old), json.loads(new)
    except ValueError:
        pass
    else:
        return _contains(new_value, old_value)
    old_lines = Counter(line.rstrip(b"\r") for line in old.splitlines() if line.strip())
    new_lines = Counter(line.rstrip(b"\r") for line in new.splitlines() if line.strip())
    return not old_lines - new_lines


def _contains(new: object, old: object) -> bool:
    """Whether the JSON value ``new`` holds all of ``old``: objects keep every member
    (each containing the old value), arrays keep every old item (in any order)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(
            key in new and _contains(new[key], value) for key, value in old.items()
        )
    if isinstance(old, list):
        if not isinstance(new, list):
            return False
        remaining = list(new)
        for item in old:
            match = next((i for i, n in enumerate(remaining) if _contains(n, item)), None)
            if match is None:
                return False
            remaining.pop(match)
        return True
    return new == old


#: Bytes of the workspace :func:`holds_text` reads at most (the first files in path order).
SEARCHED_BYTES = 64 << 20


def holds_text(root: Path, pieces: list[str]) -> bool:
    """Whether every piece of text is found, as UTF-8, in some file under ``root``
    (symlinks not followed; at most :data:`SEARCHED_BYTES` read): text a server relays
    from its data is there, text it writes itself is not."""
    wanted = {piece.encode("utf-8") for piece in pieces}
    budget = SEARCHED_BYTES
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            try:
                if not path.is_file() or path.is_symlink():
                    continue
                data = path.read_bytes()[:budget]
            except OSError:
                continue
            budget -= len(data)
            wanted = {piece for piece in wanted if piece not in data}
            if not wanted or budget <= 0:
                return not wanted
    return not wanted
