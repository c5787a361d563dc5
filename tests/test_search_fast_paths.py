"""search_files' fast paths give what the general paths give.

- a file read whole is scanned by ``Scanner.scan_whole`` (no chunks, found from the walk's
  first match on): the same candidates, previews and stop as ``_scan_bytes`` on the same
  bytes;
- many candidates are handed to the collector's oldest generation (``gc.freeze()`` then
  ``gc.unfreeze()``): nothing stays frozen, and what someone froze on purpose stays so;
- an ASCII name is judged by its length alone only under an ASCII prefix: under a
  non-ASCII one, the path is measured in bytes, so no candidate has a path read_lines
  refuses;
- a large result is proved JSON by the road without being written (surely_json).
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutorial_lib.core.contracts import surely_json
from tutorial_lib.workspace.read import read_lines
from tutorial_lib.workspace.search import SearchLimits, search_files
from tutorial_lib.workspace.search_match import Scanner, Stop, compile_matcher

ALL = SearchLimits(max_results_override=10**9, time_budget_ms=None)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Lines of text with what previews care about: long lines, a byte order mark, CRs,
# invalid UTF-8, CJK, spaces around, the query once or more, a last line without newline.
PIECES = st.sampled_from(
    [b"needle", b"need", b"le", b" ", b"\t", b"\r", b"x" * 50, b"\xe4\xb8\xad" * 30, b"\xff", b"\n"]
)
FILES = st.builds(
    lambda bom, parts: (b"\xef\xbb\xbf" if bom else b"") + b"".join(parts),
    st.booleans(),
    st.lists(PIECES, max_size=60),
)


def scanner(limit: int) -> Scanner:
    return Scanner(limit=limit, limits=ALL, matcher=compile_matcher("needle", "literal", True))


def scanned(run: Any, limit: int) -> tuple[list[tuple[str, int, str, bool]], int, str | None]:
    """What a scan found, counted and why it stopped, whether it stopped or not."""
    found = scanner(limit)
    with contextlib.suppress(Stop):
        run(found)
    return found.found, found.matches, found.stopped_by


@SETTINGS
@given(data=FILES, limit=st.integers(1, 8))
def test_a_file_read_whole_is_scanned_as_the_chunked_scan_would(data: bytes, limit: int) -> None:
    first = data.find(b"needle")
    if first == -1:  # the walk never scans such a file
        return
    fast = scanned(lambda s: s.scan_whole("f.txt", data, first), limit)
    # the general scan, on the same bytes as one final chunk (shorter than requested)
    general = scanned(lambda s: s.scan(-1, "f.txt", data, len(data) + 1), limit)
    assert fast == general


def test_a_search_agrees_whole_and_in_chunks(tmp_path: Path) -> None:
    lines = [f"{'needle' if i % 3 == 0 else 'hay'} {i}" for i in range(3000)]
    (tmp_path / "f.txt").write_text("\n".join(lines), encoding="utf-8")  # no last newline
    whole = search_files(tmp_path, {"query": "needle"}, limits=ALL)["data"]
    small = SearchLimits(chunk_bytes=4096, max_results_override=10**9, time_budget_ms=None)
    chunked = search_files(tmp_path, {"query": "needle"}, limits=small)["data"]
    # the same lines; a preview differs only where a chunk ends inside the line (cut there)
    assert [c["line"] for c in whole["candidates"]] == list(range(1, 3001, 3))
    assert [c["line"] for c in chunked["candidates"]] == list(range(1, 3001, 3))
    assert [c["preview"] for c in whole["candidates"]] == [lines[i] for i in range(0, 3000, 3)]
    assert not any(c.get("preview_truncated") for c in whole["candidates"])


# --------------------------------------------------------------------------- the collector


@pytest.fixture()
def many_matches(tmp_path: Path) -> Path:
    for index in range(12):
        (tmp_path / f"f{index:02}.txt").write_text("needle\n" * 1000, encoding="utf-8")
    return tmp_path


def test_many_candidates_leave_nothing_frozen(many_matches: Path) -> None:
    enabled = gc.isenabled()
    data = search_files(many_matches, {"query": "needle"}, limits=ALL)["data"]
    assert data["total_matches"] == 12_000
    assert gc.get_freeze_count() == 0 and gc.isenabled() == enabled
    assert gc.is_tracked(data["candidates"][0])  # still the collector's to collect


@pytest.fixture()
def frozen_by_someone() -> Iterator[list[str]]:
    """An object frozen on purpose (with everything else tracked), as before a fork."""
    sentinel = ["frozen on purpose"]
    gc.freeze()
    try:
        yield sentinel
    finally:
        gc.unfreeze()


def test_what_someone_froze_stays_frozen(many_matches: Path, frozen_by_someone: list[str]) -> None:
    data = search_files(many_matches, {"query": "needle"}, limits=ALL)["data"]
    assert data["total_matches"] == 12_000
    assert gc.get_freeze_count() > 0
    # a frozen object is in none of the collector's generations
    assert not any(tracked is frozen_by_someone for tracked in gc.get_objects())


# --------------------------------------------------------------------------- long paths

CJK_DIR = "中" * 85  # 255 bytes in UTF-8: the longest name, 85 characters


def make_deep(root: Path, levels: int) -> None:
    """``levels`` nested CJK directories under ``root``, with ``a.txt`` at the bottom;
    made from descriptors, as the whole path may be longer than the system accepts."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(CJK_DIR, dir_fd=fd)
            inner = os.open(CJK_DIR, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        file_fd = os.open("a.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(file_fd, b"needle\n")
        os.close(file_fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("levels", [15, 16])
def test_a_path_too_long_in_bytes_under_a_non_ascii_directory_is_skipped(
    tmp_path: Path, levels: int
) -> None:
    """16 levels: 4,101 bytes but 1,381 characters, over read_lines' 4,096 bytes."""
    make_deep(tmp_path, levels)
    path = "/".join([CJK_DIR] * levels + ["a.txt"])
    data = search_files(tmp_path, {"query": "needle"}, limits=ALL)["data"]
    if len(path.encode("utf-8")) < 4096:
        assert [c["path"] for c in data["candidates"]] == [path]
        assert read_lines(tmp_path, {"path": path, "start": 1, "count": 1})["ok"] is True
    else:
        assert data["candidates"] == [] and data["files_skipped"]["other"] == 1


# --------------------------------------------------------------------------- the road


def test_a_large_result_is_proved_json_without_writing_it(many_matches: Path) -> None:
    result = search_files(many_matches, {"query": "needle"}, limits=ALL)
    assert result["ok"] and surely_json(result)
