"""search_files' matching: how one file's bytes are scanned for one query.

:func:`compile_matcher` turns the query into a :class:`Matcher`; a :class:`Scanner` holds
one search's results and clock, and scans the files the walk
(:mod:`tutorial_lib.workspace.search_walk`) opens and hands it.

**Matching is per line**, as ``grep`` does it: lines end at ``\\n``; a ``\\r`` before it
belongs to the line; a last line without a newline counts. A line with several matches is
one candidate. Files are read in chunks (1 MiB by default), never whole:

- literal, case-sensitive: ``bytes.find`` on the raw chunk (the query as UTF-8); lines
  are located only around matches, and newlines are counted only up to them; a file read
  in one chunk without the query is done after one ``in``;
- literal, case-insensitive: a bytes pattern where each character of the query also
  matches its one-character upper- and lower-case forms (``str.upper``/``str.lower``);
- regex: a Python ``re`` pattern run by the ``regex`` module
  (:mod:`tutorial_lib.workspace.search_regex`), matched on text (UTF-8, undecodable bytes
  kept as lone surrogates), so ``.`` is one character and ``\\w`` knows CJK. Every
  line-local pattern runs over whole chunks of lines, each line's first match kept; lines
  longer than ``max_regex_line_bytes`` are not searched (``long_lines_skipped``).

**The time budget is wall-clock time**, checked between files and chunks and bounding every
regex match from inside. The ``regex`` module's ``timeout`` counts CPU time of the whole
process (C ``clock()``), not wall time: on a machine whose other processes keep the cores
busy, a catastrophic pattern under a 10 s budget ran for 27 s of wall time (12 s of CPU).
So a match's timeout is what is left of the wall budget times the *rate* at which this
process gets CPU time (CPU seconds per wall second), and the rate is measured, not
guessed: while no rate was measured in the last second, a match may run for at most
:data:`PROBE_S` of CPU; a probe that times out measures the rate (its CPU timeout over the
wall time it took), and the match is run again with the rest of the budget at that rate.
A timed-out match that leaves wall time is retried (a line-local scan resumes at the line
after its last match), so a search stops on ``time_budget`` only when the wall clock says
so. The rate is capped at 1: when other threads of the process burn CPU too (the clock
then runs faster than the wall), a match ends early and is retried, never late. What no
check can stop: the load rising sharply within a match (its timeout was computed at its
start). Measured (``tests/test_search_files.py``, two spinning processes per core): a
1 s budget ends after about 1.1 s of wall time; with the CPU-time timeout alone it took
8 to 10 s.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy

from tutorial_lib.core.contracts import ContractError, TutorialLibError
from tutorial_lib.workspace.search_regex import compile_regex

if TYPE_CHECKING:
    from tutorial_lib.workspace.search import SearchLimits

__all__ = [
    "PREVIEW_CHARS",
    "PROBE_S",
    "Matcher",
    "Scanner",
    "Stop",
    "compile_matcher",
    "read_chunk",
]

#: Characters of a candidate's preview, about (cut ends are marked ``…``).
PREVIEW_CHARS = 160
#: CPU seconds a regex match may take before the process's CPU rate is known (see above).
PROBE_S = 0.05
_RATE_FRESH_S = 1.0  # how long a measured CPU rate is trusted, in wall seconds
_MIN_RATE = 0.01  # a process frozen during a probe (SIGSTOP) still gets a usable timeout
_PREVIEW_WINDOW_BYTES = 4 * PREVIEW_CHARS  # a character has at most 4 UTF-8 bytes
_DENSE_SKIPS = 16  # regex: matches passed over on one line before searching anew
_NUMPY_COUNT_BYTES = 6144  # from this many bytes on, numpy counts newlines faster


@dataclass(frozen=True)
class Matcher:
    """How one query is matched: on bytes (``find``) or on text, line by line (``pattern``)."""

    mode: Literal["literal", "regex"]
    needle: bytes | None = None  # literal, case-sensitive: bytes.find
    bytes_pattern: re.Pattern[bytes] | None = None  # literal, case-insensitive
    overlap: int = 1  # the longest match in bytes: what a chunk boundary may split
    pattern: Any = None  # regex mode: a regex.Pattern (see search_regex.regex_pattern)
    line_local: bool = False  # regex: may run over whole chunks of lines


def compile_matcher(query: str, mode: str, case_sensitive: bool) -> Matcher:
    """How ``query`` is matched in ``mode`` (``"literal"`` or ``"regex"``); a query that
    cannot be matched per line (a line break, a lone surrogate, an invalid pattern) is
    ``invalid_value``."""
    if "\n" in query:
        raise ContractError(
            "invalid_value",
            "'query' contains a line break, but lines are matched one at a time",
            field="query",
            received=query,
            suggestion="search for one line of the text, e.g. its most distinctive line",
        )
    try:
        encoded = query.encode("utf-8")
    except UnicodeEncodeError:
        raise ContractError(
            "invalid_value",
            "'query' is not valid Unicode text (it holds a lone surrogate)",
            field="query",
            received=query,
        ) from None
    if mode == "literal":
        if case_sensitive:
            return Matcher("literal", needle=encoded, overlap=len(encoded))
        pattern, overlap = _caseless_bytes_pattern(query)
        return Matcher("literal", bytes_pattern=pattern, overlap=overlap)
    pattern, line_local = compile_regex(query, case_sensitive)
    return Matcher("regex", pattern=pattern, line_local=line_local)


def _caseless_bytes_pattern(query: str) -> tuple[re.Pattern[bytes], int]:
    """A bytes pattern matching ``query`` with each character in any of its case forms."""
    parts: list[bytes] = []
    longest = 0
    for char in query:
        forms = sorted({f for f in (char, char.lower(), char.upper()) if len(f) == 1})
        encoded = [f.encode("utf-8") for f in forms]
        longest += max(len(e) for e in encoded)
        if len(encoded) == 1:
            parts.append(re.escape(encoded[0]))
        else:
            parts.append(b"(?:" + b"|".join(re.escape(e) for e in encoded) + b")")
    return re.compile(b"".join(parts)), longest


def read_chunk(fd: int, size: int) -> bytes:
    """One read of a file being searched (a seam: tests count the reads through it)."""
    return os.read(fd, size)


class Stop(TutorialLibError):
    """Unwinds the search once it has stopped (results full or time up); the search
    catches it, so it never reaches a caller."""


class _Retry(Exception):
    """A regex match timed out with wall time left: run it again (see the module's text)."""


@dataclass
class Scanner:
    """One search's matching: the results, the counters of what matching skipped, and the
    clock. :meth:`scan` searches one opened file from its first chunk on; the results are
    tuples ``(path, line, preview, cut)`` in ``found``, at most ``limit`` of them (one more
    match sets ``stopped_by = "max_results"`` and raises :class:`Stop`)."""

    limit: int
    limits: SearchLimits
    matcher: Matcher
    found: list[tuple[str, int, str, bool]] = field(default_factory=list)
    over_limit: int = 0  # 1 once a match beyond ``limit`` was seen (and the search stopped)
    long_lines_skipped: int = 0
    stopped_by: str | None = None
    deadline: float | None = None  # time.monotonic() when the budget runs out
    rate: float | None = None  # CPU seconds the process gets per wall second, measured
    rate_at: float = 0.0  # time.monotonic() of that measurement

    @property
    def matches(self) -> int:
        """Matching lines seen: those in ``found``, and the one beyond the limit if any
        (counted, never kept: the count is then a lower bound)."""
        return len(self.found) + self.over_limit

    def start_clock(self) -> None:
        """Start the wall-clock budget (``limits.time_budget_ms``; None: no budget)."""
        if self.limits.time_budget_ms is not None:
            self.deadline = time.monotonic() + self.limits.time_budget_ms / 1000

    def check_time(self) -> None:
        """Stop (``time_budget``) if the wall-clock budget is spent."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped_by = "time_budget"
            raise Stop

    def scan(self, fd: int, path: str, first: bytes, requested: int) -> None:
        """Search the opened file ``fd`` (shown as ``path``) whose first read of
        ``requested`` bytes returned ``first`` (shorter: that was the whole file).

        For a case-sensitive literal, the walk calls :meth:`scan_whole` instead on a file
        read whole that holds it (and nothing on one that does not: the usual file)."""
        if self.matcher.mode == "regex":
            self._scan_text(fd, path, first, requested)
        else:
            self._scan_bytes(fd, path, first, requested)

    def scan_whole(self, path: str, data: bytes, start: int) -> None:
        """Search a whole file's ``data`` (shown as ``path``) for the case-sensitive
        literal, whose first occurrence is at ``start``.

        :meth:`_scan_bytes` without the chunks: no carry, no line running on from a chunk
        before, no read. The loop runs once per match (200,000 times for ``import`` in
        site-packages): what it calls is looked up once per file, and the usual match, on
        a short line, is recorded right there."""
        needle = self.matcher.needle
        assert needle is not None
        results, limit = self.found, self.limit
        append = results.append
        find, rfind, count = data.find, data.rfind, data.count
        numpy_from, preview_bytes = _NUMPY_COUNT_BYTES, PREVIEW_CHARS
        line = 1  # number of the line data[counted] belongs to
        counted = 0  # newlines of data[:counted] are included in `line`
        while start != -1:
            line_start = rfind(b"\n", 0, start) + 1
            line_end = find(b"\n", start)
            if line_start - counted < numpy_from:  # _count_newlines, inline
                line += count(b"\n", counted, line_start)
            else:
                line += _count_newlines(data, counted, line_start)
            counted = line_start
            if line_end - line_start <= preview_bytes and line_end != -1 and len(results) < limit:
                # the usual match: a short line, whose preview is the line (bytes >=
                # characters), no window
                text = data[line_start:line_end].decode("utf-8", "replace").strip()
                if line == 1 and text.startswith("\ufeff"):
                    text = text[1:].lstrip()  # a byte order mark is not text
                append((path, line, text, False))
            else:
                self._record_bytes(path, line, data, line_start, start, line_end, False, False)
                if line_end == -1:
                    return
            start = find(needle, line_end + 1)

    # ----------------------------------------------------------------- literal mode

    def _scan_bytes(self, fd: int, path: str, chunk: bytes, requested: int) -> None:
        """Scan a file for a literal, chunk by chunk, counting newlines only up to matches.

        What the inner loop (once per match) calls is looked up once per chunk, and the
        usual match, on a short whole line, is recorded right there.
        """
        matcher = self.matcher
        needle, pattern = matcher.needle, matcher.bytes_pattern
        keep = matcher.overlap - 1  # bytes a match may need from the previous chunk
        results, limit = self.found, self.limit
        append = results.append
        numpy_from, preview_bytes = _NUMPY_COUNT_BYTES, PREVIEW_CHARS
        line = 1  # number of the line data[0] belongs to
        starts_line = True  # data[0] is the first byte of a line
        line_done = False  # the line running at data[0] already matched
        carry = b""
        while True:
            more = len(chunk) == requested  # a full read: the file may go on
            data = carry + chunk if carry else chunk
            find, rfind, count = data.find, data.rfind, data.count
            counted = 0  # newlines of data[:counted] are included in `line`
            tail_matched = False
            position = 0
            while True:
                if needle is not None:
                    start = find(needle, position)
                    if start == -1:
                        break
                else:
                    found = pattern.search(data, position)  # type: ignore[union-attr]
                    if found is None:
                        break
                    start = found.start()
                line_start = rfind(b"\n", 0, start) + 1
                line_end = find(b"\n", start)
                if line_start == 0 and line_done:  # that line was reported from a chunk before
                    if line_end == -1:
                        break
                    position = line_end + 1
                    continue
                if line_start - counted < numpy_from:  # _count_newlines, inline
                    line += count(b"\n", counted, line_start)
                else:
                    line += _count_newlines(data, counted, line_start)
                counted = line_start
                if (
                    line_end - line_start <= preview_bytes
                    and line_end != -1
                    and (line_start or starts_line)
                    and len(results) < limit
                ):
                    # The common case, a short whole line, written out (it runs once per
                    # match): the preview is the line (bytes >= characters), no window.
                    text = data[line_start:line_end].decode("utf-8", "replace").strip()
                    if line == 1 and text.startswith("\ufeff"):
                        text = text[1:].lstrip()  # a byte order mark is not text
                    append((path, line, text, False))
                    position = line_end + 1
                    continue
                cut_left = line_start == 0 and not starts_line
                self._record_bytes(path, line, data, line_start, start, line_end, cut_left, more)
                if line_end == -1:
                    tail_matched = True
                    break
                position = line_end + 1
            if not more:
                return
            self.check_time()
            last_newline = data.rfind(b"\n")
            line += _count_newlines(data, counted, len(data))
            # the line running at the next chunk's start: the tail line, or still the same
            line_done = tail_matched if last_newline != -1 else line_done or tail_matched
            cut = len(data) if line_done else max(last_newline + 1, len(data) - keep)
            carry = data[cut:]
            starts_line = (
                cut == last_newline + 1 if last_newline != -1 else starts_line and cut == 0
            )
            chunk = read_chunk(fd, self.limits.chunk_bytes)
            requested = self.limits.chunk_bytes
            if not chunk or b"\x00" in chunk:  # the end, or binary from here on: stop here
                return

    def _record_bytes(
        self,
        path: str,
        line: int,
        data: bytes,
        line_start: int,
        start: int,
        line_end: int,
        cut_left: bool,
        more: bool,
    ) -> None:
        end = len(data) if line_end == -1 else line_end
        cut_right = line_end == -1 and more
        if len(self.found) >= self.limit:  # the first match over the limit: no preview
            return self._record(path, line, "", False)
        if end - line_start <= PREVIEW_CHARS and not (cut_left or cut_right):
            # the common case, a short line: no window, no offsets (bytes >= characters)
            text = data[line_start:end].decode("utf-8", "replace").strip()
            if line == 1 and text.startswith("\ufeff"):
                text = text[1:].lstrip()  # a byte order mark is not text
            return self._record(path, line, text, False)
        low = max(line_start, start - _PREVIEW_WINDOW_BYTES)
        high = min(end, start + _PREVIEW_WINDOW_BYTES)
        for _ in range(3):  # move the window's edges off UTF-8 continuation bytes
            if low > line_start and data[low] & 0xC0 == 0x80:
                low += 1
            if high < end and data[high] & 0xC0 == 0x80:
                high -= 1
        text = data[low:high].decode("utf-8", "replace")
        offset = len(data[low:start].decode("utf-8", "replace"))
        if line == 1 and low == 0 and not cut_left and text.startswith("\ufeff"):
            text, offset = text[1:], max(0, offset - 1)  # a byte order mark is not text
        preview, cut = _shape_preview(
            text, offset, cut_left or low > line_start, cut_right or high < end
        )
        self._record(path, line, preview, cut)

    # ----------------------------------------------------------------- regex mode

    def _scan_text(self, fd: int, path: str, chunk: bytes, requested: int) -> None:
        """Scan a file with a regex, in chunks of whole lines; long lines are skipped."""
        cap = self.limits.max_regex_line_bytes
        line = 1  # number of the first line in `carry + chunk`
        carry = b""
        skipping = False  # inside a line longer than the cap: drop bytes up to its end
        while True:
            more = len(chunk) == requested
            data = carry + chunk if carry else chunk
            carry = b""
            if skipping:
                newline = data.find(b"\n")
                if newline == -1:
                    data = b""
                else:
                    data, skipping, line = data[newline + 1 :], False, line + 1
            if more and data:
                last_newline = data.rfind(b"\n")
                data, carry = data[: last_newline + 1], data[last_newline + 1 :]
                if len(carry) > cap:
                    carry, skipping = b"", True
                    self.long_lines_skipped += 1
            if data:
                self._search_lines(path, line, data)
                line += _count_newlines(data, 0, len(data))
            if not more:
                return
            self.check_time()
            chunk = read_chunk(fd, self.limits.chunk_bytes)
            requested = self.limits.chunk_bytes
            if not chunk:  # the end came exactly after a full read: carry is the last line
                if carry:
                    self._search_lines(path, line, carry)
                return
            if b"\x00" in chunk:  # binary from here on: stop here
                return

    def _search_lines(self, path: str, first_line: int, raw: bytes) -> None:
        """Search whole lines ``raw`` (each ends with ``\\n``, but the file's last may not)."""
        cap = self.limits.max_regex_line_bytes
        if self.matcher.line_local:
            if len(raw) <= cap or _longest_line(raw) <= cap:
                self._search_chunk_of_lines(path, first_line, raw)
            else:
                self._search_around_long_lines(path, first_line, raw)
            return
        lines = raw.split(b"\n")
        if raw.endswith(b"\n"):
            lines.pop()  # nothing after the last newline: not a line
        search = self._regex_search
        for index, raw_line in enumerate(lines):
            if len(raw_line) > cap:
                self.long_lines_skipped += 1
                continue
            text = raw_line.decode("utf-8", "surrogateescape")
            found = search(text)
            if found is not None:
                self._record_text(path, first_line + index, text, found.start())

    def _search_around_long_lines(self, path: str, first_line: int, raw: bytes) -> None:
        """Search the runs of lines between the long lines of ``raw`` as chunks; count those.

        (Line by line, the regex module's ~4 us a call made a minified file's chunk cost
        more than the rest of site-packages.)
        """
        newlines = numpy.flatnonzero(numpy.frombuffer(raw, numpy.uint8) == 10)
        starts = numpy.concatenate(([0], newlines + 1))
        ends = numpy.concatenate((newlines, [len(raw)]))
        if raw.endswith(b"\n"):  # nothing after the last newline: not a line
            starts, ends = starts[:-1], ends[:-1]
        run = 0  # the index of the first line of the run not yet searched
        for index in numpy.flatnonzero(ends - starts > self.limits.max_regex_line_bytes):
            if index > run:
                segment = raw[int(starts[run]) : int(starts[index])]
                self._search_chunk_of_lines(path, first_line + run, segment)
            self.long_lines_skipped += 1
            run = int(index) + 1
        if run < len(starts):
            self._search_chunk_of_lines(path, first_line + run, raw[int(starts[run]) :])

    def _search_chunk_of_lines(self, path: str, first_line: int, raw: bytes) -> None:
        """Run a line-local pattern over whole lines at once: each line's first match.

        One ``finditer`` over the chunk: a call per match cost the regex module ~4 us
        (timeout and GIL release included), its iterator ~0.3 us. Further matches on a
        line already reported are passed over; after :data:`_DENSE_SKIPS` of them the
        iteration restarts at the next line (``x?`` matches at every character), and so it
        does after a timeout that left wall time (:class:`_Retry`).
        """
        text = raw.decode("utf-8", "surrogateescape")
        size = len(text)
        line, counted, next_line, position = first_line, 0, 0, 0
        while True:
            skipped = 0
            try:
                for found in self._regex_matches(text, position):
                    start = found.start()
                    if start < next_line:
                        skipped += 1
                        if skipped > _DENSE_SKIPS:
                            break
                        continue
                    skipped = 0
                    if start == size and text.endswith("\n"):
                        return  # an empty match after the last newline: not a line
                    line_start = text.rfind("\n", 0, start) + 1
                    line += text.count("\n", counted, line_start)
                    counted = line_start
                    line_end = text.find("\n", start)
                    content = text[line_start:] if line_end == -1 else text[line_start:line_end]
                    self._record_text(path, line, content, start - line_start)
                    if line_end == -1:
                        return
                    next_line = line_end + 1
                else:
                    return
            except _Retry:  # timed out with wall time left: resume after the last match
                pass
            position = next_line

    def _record_text(self, path: str, line: int, text: str, offset: int) -> None:
        if len(self.found) >= self.limit:  # the first match over the limit: no preview
            return self._record(path, line, "", False)
        # lone surrogates stand for undecodable bytes: show them as U+FFFD
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        if line == 1 and text.startswith("\ufeff"):
            text, offset = text[1:], max(0, offset - 1)
        preview, cut = _shape_preview(text, offset, False, False)
        self._record(path, line, preview, cut)

    # ----------------------------------------------------------------- results

    def _record(self, path: str, line: int, preview: str, cut: bool) -> None:
        if len(self.found) >= self.limit:  # one more than asked: there ARE more, stop now
            self.over_limit = 1
            self.stopped_by = "max_results"
            raise Stop
        # A tuple of strings and ints, which the garbage collector soon stops tracking; the
        # candidate dicts are built once, at the end (see _candidates).
        self.found.append((path, line, preview, cut))

    def _regex_search(self, text: str) -> Any:
        """The pattern's first match in ``text``, within what is left of the budget.

        The regex module checks the timeout inside the match itself, in any thread, and
        ``concurrent=True`` releases the GIL while it matches: a backtracking pattern ends
        at the deadline and never stalls the process's other threads. A timeout that
        leaves wall time (a probe, see the module's text) runs the match again.
        """
        while True:
            timeout, started = self._regex_timeout()
            try:
                return self.matcher.pattern.search(text, concurrent=True, timeout=timeout)
            except TimeoutError:
                self._timed_out(timeout, started)

    def _regex_matches(self, text: str, start: int) -> Iterator[Any]:
        """The pattern's matches in ``text[start:]``; the budget bounds the whole iteration
        (the regex module's timeout runs from the iterator's creation). Raises
        :class:`_Retry` if it timed out with wall time left: the caller resumes."""
        timeout, started = self._regex_timeout()
        try:
            yield from self.matcher.pattern.finditer(text, start, concurrent=True, timeout=timeout)
        except TimeoutError:
            self._timed_out(timeout, started)
            raise _Retry from None

    def _regex_timeout(self) -> tuple[float | None, float]:
        """The next match's timeout in the engine's clock (CPU seconds of the process;
        None: no budget), and when it starts (``time.monotonic()``). Stops when the wall
        budget is spent.

        What is left of the wall budget, times the measured CPU rate; at most
        :data:`PROBE_S` while no fresh rate is known.
        """
        now = time.monotonic()
        if self.deadline is None:
            return None, now
        remaining = self.deadline - now
        if remaining <= 0:
            self.stopped_by = "time_budget"
            raise Stop
        rate = self.rate
        if rate is None or now - self.rate_at > _RATE_FRESH_S:
            return min(remaining, PROBE_S), now
        return remaining * rate, now

    def _timed_out(self, timeout: float | None, started: float) -> None:
        """A match given ``timeout`` CPU seconds at ``started`` timed out: stop if the wall
        budget is spent, else measure the CPU rate it got (the caller runs it again)."""
        now = time.monotonic()
        if self.deadline is None or timeout is None or now >= self.deadline:
            self.stopped_by = "time_budget"
            raise Stop from None
        elapsed = now - started
        self.rate = min(1.0, max(_MIN_RATE, timeout / elapsed)) if elapsed > 0 else 1.0
        self.rate_at = now


# --------------------------------------------------------------------------- helpers


def _count_newlines(data: bytes, start: int, end: int) -> int:
    """Newlines in ``data[start:end]``: numpy's vectorized count over a long range
    (``bytes.count`` of one byte is a scalar loop: 2 GB/s, ~4x slower than numpy's, whose
    call costs more on short ranges)."""
    if end - start < _NUMPY_COUNT_BYTES:
        return data.count(b"\n", start, end)
    view = numpy.frombuffer(data, numpy.uint8, end - start, start)
    return int(numpy.count_nonzero(view == 10))


def _longest_line(raw: bytes) -> int:
    """The length in bytes of the longest line in ``raw``."""
    newlines = numpy.flatnonzero(numpy.frombuffer(raw, numpy.uint8) == 10)
    if newlines.size == 0:
        return len(raw)
    edges = numpy.concatenate(([-1], newlines, [len(raw)]))
    return int((numpy.diff(edges) - 1).max())


def _shape_preview(text: str, offset: int, cut_left: bool, cut_right: bool) -> tuple[str, bool]:
    """The line for a preview: stripped, at most PREVIEW_CHARS around ``offset``, cuts marked."""
    stripped = text.lstrip()
    offset = max(0, offset - (len(text) - len(stripped)))
    stripped = stripped.rstrip()
    if len(stripped) > PREVIEW_CHARS:
        begin = max(0, min(offset - PREVIEW_CHARS // 4, len(stripped) - PREVIEW_CHARS))
        cut_left = cut_left or begin > 0
        cut_right = cut_right or begin + PREVIEW_CHARS < len(stripped)
        stripped = stripped[begin : begin + PREVIEW_CHARS]
    if not (cut_left or cut_right):
        return stripped, False
    return ("…" if cut_left else "") + stripped + ("…" if cut_right else ""), True
