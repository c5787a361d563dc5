"""search_files' walk: every entry beneath the scope, in name order, never leaving the root.

The business check opened the scope (:mod:`tutorial_lib.workspace.search`); a
:class:`Walk` lists it and hands each regular file it may read to the
:class:`~tutorial_lib.workspace.search_match.Scanner`.

**The walk never leaves the root.** Every directory is listed from a descriptor we hold
(``os.scandir(fd)``) and every entry is opened relative to it with ``O_NOFOLLOW``:
symlinks met during the walk are never followed, to files or to directories, inside or
outside (``grep -r`` does the same): they are counted in ``files_skipped.symlink``. A link
swapped in between listing and opening makes the open fail (``ELOOP``), so no
check-then-open race exists. Only regular files are read (FIFOs and devices are opened
non-blocking and refused after ``fstat``). A regular file with more than one hard link may
be a file outside under a second name: the ``fstat`` of its opened descriptor says so, and
it is skipped (``files_skipped.hard_link``) unless ``SearchLimits.allow_hard_links``. What
no check can stop: a directory moved out of the workspace while it is being searched (the
walk finishes it from the descriptor it holds).

A file is binary, and skipped, if its first chunk (1 MiB) holds a NUL byte; a NUL later
ends the search of that file (matches before it are kept). Files larger than read_lines
reads are skipped (``too_large``), so every candidate's ``next_call`` is a valid call.

**Secret-bearing files are judged by name, never opened.** Without the grant
(``SearchLimits.search_secrets``), each entry's name is asked of the policy
(:meth:`~tutorial_lib.core.secrets.SecretPolicy.is_secret_name`: one compiled check, the
parts above it were asked on the way down); a secret file is counted in
``files_skipped.secret`` and none of its bytes is read, matched or previewed. A secret
directory is listed, to count the files beneath it, and nothing in it is opened.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING

from tutorial_lib.core.contracts import ContractError, oserror_details
from tutorial_lib.workspace import search_match
from tutorial_lib.workspace.read_schema import MAX_PATH_CHARS
from tutorial_lib.workspace.sandbox import hard_link_error, is_hard_linked
from tutorial_lib.workspace.search_match import Scanner, Stop

if TYPE_CHECKING:
    from tutorial_lib.workspace.search import SearchLimits

__all__ = ["SKIP_REASONS", "Walk"]

#: Why a file was not searched: the keys of ``files_skipped``.
SKIP_REASONS = ("binary", "too_large", "symlink", "hard_link", "secret", "other")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW
_PATH_MAX_BYTES = 4096
#: An ASCII path shorter than this is short enough for read_lines in characters and bytes.
_ASCII_PATH_LIMIT = min(MAX_PATH_CHARS + 1, _PATH_MAX_BYTES)
_BY_NAME = attrgetter("name")
_S_IFMT = 0o170000  # the file-type bits of st_mode (stat.S_IFMT is a function)
_S_IFREG = stat.S_IFREG
#: Searches one opened file of the walk: ``(fd, prefix, name, fstat) -> verdict``.
FileSearch = Callable[[int, str, str, os.stat_result], str]


@dataclass
class Walk:
    """One search's walk: what it searched and skipped, around one :class:`Scanner`."""

    limits: SearchLimits
    scanner: Scanner
    files_searched: int = 0
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SKIP_REASONS, 0))

    def search(self, fd: int, info: os.stat_result, parts: tuple[str, ...]) -> None:
        """Search the opened scope ``fd`` (``info``: its ``fstat``; ``parts``: its path)
        until it is done, the results are full or time is up."""
        self.scanner.start_clock()
        search_file = self._file_searcher()
        try:
            prefix = "/".join(parts)
            if stat.S_ISDIR(info.st_mode):
                self._walk(search_file, fd, prefix + "/" if prefix else "", 0)
            else:
                self._search_named_file(search_file, fd, info, prefix)
        except Stop:
            pass
        except OSError as exc:  # the storage failed mid-way (EIO and the like)
            raise ContractError(
                "temporary_unavailable",
                "the search failed mid-way while reading the workspace; retry shortly",
                log=oserror_details(exc),
            ) from None

    def _walk(
        self, search_file: FileSearch, dir_fd: int, prefix: str, depth: int, in_secret: bool = False
    ) -> None:
        """Search the directory ``dir_fd`` (shown as ``prefix``), entries in name order.

        ``in_secret``: ``prefix`` has a secret-bearing part, so every entry beneath is one.
        """
        try:
            with os.scandir(dir_fd) as listing:
                entries = sorted(listing, key=_BY_NAME)
        except OSError:
            self.skipped["other"] += 1
            return
        # The loop runs once per entry of the workspace: what it needs is looked up once.
        skipped, scanner, limits = self.skipped, self.scanner, self.limits
        deadline = scanner.deadline
        monotonic, open_at, fstat, close = time.monotonic, os.open, os.fstat, os.close
        is_secret_name: Callable[[str], bool] | None = (
            None if limits.search_secrets else limits.secrets.is_secret_name
        )
        # An ASCII path shorter than _ASCII_PATH_LIMIT is short enough for read_lines in
        # characters and in bytes; under a non-ASCII prefix, every path is measured.
        room = _ASCII_PATH_LIMIT - len(prefix) if prefix.isascii() else 0
        for entry in entries:
            if deadline is not None and monotonic() > deadline:
                scanner.check_time()  # stops: the budget is spent
            try:  # from the listing, never following links; the usual case first
                is_dir = is_other = False
                if not entry.is_file(follow_symlinks=False):  # False for a link to a file
                    if entry.is_symlink():
                        skipped["symlink"] += 1
                        continue
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_other = not is_dir
            except OSError:  # vanished while we looked
                is_dir, is_other = False, True
            name = entry.name
            # The parts of prefix were asked on the way down (in_secret): asking the new
            # part alone is asking the whole relative path, at one name's cost.
            secret = in_secret or (is_secret_name is not None and is_secret_name(name))
            if secret and not is_dir:  # never opened: no byte of it is read
                skipped["secret"] += 1
                continue
            # A path read_lines accepts: an ASCII one is judged by its length alone, and
            # joined only for a file that is scanned (search_file joins prefix and name).
            if is_other or not (
                (name.isascii() and len(name) < room and (prefix or name.strip()))
                or _readable_path(prefix + name)
            ):
                skipped["other"] += 1
                continue
            if is_dir and depth >= limits.max_depth:
                skipped["other"] += 1
                continue
            try:  # O_NOFOLLOW: a link swapped in since the listing fails to open
                fd = open_at(name, _DIR_FLAGS if is_dir else _FILE_FLAGS, dir_fd=dir_fd)
            except OSError:
                skipped["other"] += 1
                continue
            try:
                if is_dir:
                    # A secret directory is listed (to count its files), never read from.
                    self._walk(search_file, fd, prefix + name + "/", depth + 1, secret)
                else:
                    search_file(fd, prefix, name, fstat(fd))
            finally:
                close(fd)

    def _search_named_file(
        self, search_file: FileSearch, fd: int, info: os.stat_result, path: str
    ) -> None:
        """``path`` named one file: hard-linked, binary or too large is an error, not a
        silent skip."""
        verdict = search_file(fd, "", path, info)
        if verdict == "hard_link":
            raise hard_link_error(path, info)  # the same refusal as read_lines
        if verdict == "too_large":
            raise ContractError(
                "file_too_large",
                f"'{path}' has {info.st_size} bytes; search_files searches files up to"
                f" {self.limits.max_file_bytes} bytes",
                field="path",
                received=path,
            )
        if verdict == "binary":
            raise ContractError(
                "binary_file",
                f"'{path}' contains NUL bytes: it is a binary file, not text",
                field="path",
                received=path,
                suggestion="search a directory or a text file",
            )

    def _file_searcher(self) -> FileSearch:
        """``search_file(fd, prefix, name, info)``: search one opened file, shown as
        ``prefix + name`` (``info``: its ``fstat``); it returns ``"searched"`` or why the
        file was skipped.

        A closure over what it needs, looked up once per search: it runs once per file
        of the workspace (50,000 in site-packages), where each attribute looked up or
        method called costs as much as a few percent of grep's time.
        """
        limits, skipped, scanner = self.limits, self.skipped, self.scanner
        max_file_bytes, chunk_bytes = limits.max_file_bytes, limits.chunk_bytes
        refuse_hard_links = not limits.allow_hard_links
        matcher = scanner.matcher
        # a literal, case-sensitive query: a file read whole without it needs no scan
        needle = matcher.needle if matcher.mode == "literal" else None
        scan, scan_whole = scanner.scan, scanner.scan_whole
        read = search_match.read_chunk  # the seam, looked up once per search
        walk = self

        def search_file(fd: int, prefix: str, name: str, info: os.stat_result) -> str:
            if info.st_mode & _S_IFMT != _S_IFREG:  # stat.S_ISREG, without the call
                skipped["other"] += 1
                return "other"
            # Before the size (a message would tell it) and the first read: the link count
            # of the descriptor itself, so a name swapped since the listing changes nothing.
            if refuse_hard_links and info.st_nlink > 1 and is_hard_linked(info):
                skipped["hard_link"] += 1
                return "hard_link"
            size = info.st_size
            if size > max_file_bytes:
                skipped["too_large"] += 1
                return "too_large"
            # A file that fits in one chunk is read with one call (size + 1 proves the end).
            requested = size + 1 if size < chunk_bytes else chunk_bytes
            first = read(fd, requested)
            if b"\x00" in first:
                skipped["binary"] += 1
                return "binary"
            walk.files_searched += 1
            if needle is None or len(first) == requested:
                scan(fd, prefix + name, first, requested)
                return "searched"
            # Read whole: the usual file does not hold the literal, and is done; one that
            # does is scanned from its first match on (nothing before it to look at again).
            at = first.find(needle)
            if at != -1:
                scan_whole(prefix + name, first, at)
            return "searched"

        return search_file


def _readable_path(relative: str) -> bool:
    """Whether read_lines accepts ``relative``: valid UTF-8, not blank, not too long."""
    if len(relative) > MAX_PATH_CHARS or not relative.strip():
        return False
    try:
        return len(relative.encode("utf-8")) < _PATH_MAX_BYTES
    except UnicodeEncodeError:  # a name that is not UTF-8 (kept as lone surrogates)
        return False
