"""read_lines: unit tests and an attack suite, run over both open methods (openat2, walk).

Every test builds its workspace in ``tmp_path``::

    tmp_path/secret.txt          outside: holds SECRET, which no result may ever contain
    tmp_path/outside_dir/s.txt   an outside directory (SECRET again)
    tmp_path/ws_evil/x.txt       a sibling whose name extends the root's (SECRET again)
    tmp_path/ws/...              the root

Every call goes through :meth:`Workspace.read`, which checks what must hold for ANY result:
the envelope validates against its own JSON Schema and serializes without NaN; it never
contains SECRET; no message shows an absolute path of ``tmp_path``; a failure says
``operation_state == "not_applied"`` (read_lines never changes anything).
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import CATALOGUE, ENVELOPE_SCHEMA
from tutorial_lib.core.contracts import dumps as contracts_dumps
from tutorial_lib.workspace import read as files
from tutorial_lib.workspace.read import ReadLimits, read_lines, validate_with_schema
from tutorial_lib.workspace.read_schema import MAX_COUNT, READ_LINES_EXAMPLES, validate_manually
from tutorial_lib.workspace.sandbox import Method, openat2_available

SECRET = "SECRET-MARKER-4b1d9f0e-never-in-a-result"
INSIDE = "inside content"
NOTES = "first\nsecond\nthird\n"
PRICING_LINES = [f"# pricing.rb line {n}" for n in range(1, 61)]

METHODS = [
    pytest.param(
        "openat2",
        marks=pytest.mark.skipif(not openat2_available(), reason="kernel without openat2"),
    ),
    "walk",
]
ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DEFAULT_LIMITS = ReadLimits()
HANG_SECONDS = 10.0  # far above any honest call; only a blocked open() gets near it


# --------------------------------------------------------------------------- helpers


def args_for(path: Any, start: Any = 1, count: Any = MAX_COUNT) -> dict[str, Any]:
    """The argument object a model would send."""
    return {"path": path, "start": start, "count": count}


def check_invariants(result: dict[str, Any], base: Path, *, echoes_base: bool = False) -> None:
    """What every result must satisfy, whatever the input (see the module docstring)."""
    ENVELOPE.validate(result)
    dumped = json.dumps(result, allow_nan=False, ensure_ascii=False)
    assert SECRET not in dumped, f"ESCAPE: the secret leaked into {dumped[:300]}"
    assert result["tool"] == "read_lines"
    if result["ok"]:
        return
    error = result["error"]
    assert error["code"] in CATALOGUE
    assert error["operation_state"] == "not_applied"
    for absolute in {str(base), os.path.realpath(base)}:
        for key in ("message", "suggestion"):
            assert absolute not in error.get(key, ""), f"{key} shows a machine path: {error}"
        if not echoes_base:  # only ``received`` may echo an absolute path we sent ourselves
            assert absolute not in dumped, dumped


def run_with_timeout(call: Callable[[], Any], seconds: float = HANG_SECONDS) -> Any:
    """Run ``call`` in a daemon thread; fail (instead of hanging the suite) if it blocks."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise AssertionError(f"HANG: the call did not return within {seconds} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


@dataclass
class Workspace:
    """A root ``ws`` beside an outside secret, read with one open method."""

    base: Path
    root: Path
    method: Method

    def read(
        self, args: Any, *, limits: ReadLimits = DEFAULT_LIMITS, echoes_base: bool = False
    ) -> dict[str, Any]:
        """read_lines with this workspace's method, the invariants checked on the result."""
        result = read_lines(self.root, args, limits=limits, method=self.method)
        check_invariants(result, self.base, echoes_base=echoes_base)
        return result

    def ok(self, path: str, start: int = 1, count: int = MAX_COUNT, **kw: Any) -> dict[str, Any]:
        """``data`` of a call that must succeed."""
        result = self.read(args_for(path, start, count), **kw)
        assert result["ok"], result
        return result["data"]

    def texts(self, path: str, start: int = 1, count: int = MAX_COUNT, **kw: Any) -> list[str]:
        """Just the texts of the returned lines."""
        return [line["text"] for line in self.ok(path, start, count, **kw)["lines"]]

    def fails(self, path: Any, code: str, field: str | None = "path", **kw: Any) -> dict[str, Any]:
        """The ``error`` of a call on ``path`` that must fail with exactly ``code``/``field``."""
        result = self.read(args_for(path), **kw)
        assert not result["ok"], result
        error = result["error"]
        assert (error["code"], error.get("field")) == (code, field), error
        return error


def make_tree(base: Path) -> Path:
    """The shared attack tree (see the module docstring); returns the root."""
    root = base / "ws"
    (root / "src").mkdir(parents=True)
    (root / "lib" / "cart").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / "dir").mkdir()
    (base / "ws_evil").mkdir()
    (base / "outside_dir").mkdir()
    (base / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (base / "ws_evil" / "x.txt").write_text(SECRET + " (evil twin)\n", encoding="utf-8")
    (base / "outside_dir" / "s.txt").write_text(SECRET + " (outside dir)\n", encoding="utf-8")
    (root / "notes.txt").write_text(NOTES, encoding="utf-8")
    (root / "inside.txt").write_text(INSIDE + "\n", encoding="utf-8")
    (root / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    pricing = "\n".join(PRICING_LINES) + "\n"
    (root / "lib" / "cart" / "pricing.rb").write_text(pricing, encoding="utf-8")
    links = {
        # inside: followed
        "link_in": "notes.txt",
        "src_link": "src",
        "lib_link": "lib",
        "chain1": "chain2",
        "chain2": "link_in",
        "sub/up": "../notes.txt",
        "loopdir": ".",
        # outside: refused
        "out_rel": "../secret.txt",
        "out_abs": str(base / "secret.txt"),
        "out_chain1": "out_chain2",
        "out_chain2": "out_rel",
        "out_dotdot": "sub/../../secret.txt",
        "sub/out_deep": "../../secret.txt",
        "out_dir": "../outside_dir",
        "out_dir_abs": str(base / "outside_dir"),
        "dev_zero": "/dev/zero",
        "dev_zero_rel": "../" * 40 + "dev/zero",
        "evil": "../ws_evil/x.txt",
        "abs_in": str(root / "notes.txt"),  # absolute, though it names an inside file
        # broken
        "loop_a": "loop_b",
        "loop_b": "loop_a",
        "self_loop": "self_loop",
        "dangling": "missing.txt",
    }
    for name, target in links.items():
        os.symlink(target, root / name)
    return root


@pytest.fixture(params=METHODS)
def ws(tmp_path: Path, request: pytest.FixtureRequest) -> Workspace:
    """The attack tree in tmp_path, read with each open method in turn."""
    return Workspace(base=tmp_path, root=make_tree(tmp_path), method=request.param)


# --------------------------------------------------------------------------- arguments

ARGUMENT_CASES = [
    # (id, args, code, field)
    ("not an object", ["notes.txt", 1, 2], "invalid_type", None),
    ("null args", None, "invalid_type", None),
    ("a string", '{"path": "notes.txt"}', "invalid_type", None),
    ("count missing", {"path": "notes.txt", "start": 1}, "missing_field", "count"),
    ("start missing", {"path": "notes.txt", "count": 1}, "missing_field", "start"),
    ("all missing", {}, "missing_field", "path"),
    ("extra field", {**args_for("notes.txt"), "encoding": "utf-8"}, "unknown_field", "encoding"),
    ("two extras", {**args_for("notes.txt"), "zz": 1, "aa": 2}, "unknown_field", "aa"),
    ("line 0", args_for("notes.txt", 0), "invalid_range", "start"),
    ("negative start", args_for("notes.txt", -1), "invalid_range", "start"),
    ("negative count", args_for("notes.txt", 1, -5), "invalid_range", "count"),
    ("count 0", args_for("notes.txt", 1, 0), "invalid_range", "count"),
    ("count over cap", args_for("notes.txt", 1, MAX_COUNT + 1), "invalid_range", "count"),
    ("start as string", args_for("notes.txt", "1"), "invalid_type", "start"),
    ("count as string", args_for("notes.txt", 1, "2"), "invalid_type", "count"),
    ("true start", args_for("notes.txt", True), "invalid_type", "start"),
    ("false count", args_for("notes.txt", 1, False), "invalid_type", "count"),
    ("float start", args_for("notes.txt", 1.5), "invalid_type", "start"),
    ("whole float", args_for("notes.txt", 1, 2.0), "invalid_type", "count"),
    ("nan start", args_for("notes.txt", float("nan")), "invalid_type", "start"),
    ("inf count", args_for("notes.txt", 1, float("inf")), "invalid_type", "count"),
    ("null start", args_for("notes.txt", None), "invalid_type", "start"),
    ("list path", args_for(["notes.txt"]), "invalid_type", "path"),
    ("number path", args_for(7), "invalid_type", "path"),
    ("empty path", args_for(""), "invalid_path", "path"),
    ("whitespace path", args_for(" \t\n"), "invalid_path", "path"),
    ("nbsp path", args_for("\u00a0\u3000"), "invalid_path", "path"),
    ("NUL byte", args_for("notes.txt\x00.png"), "invalid_path", "path"),
    ("only NUL", args_for("\x00"), "invalid_path", "path"),
    ("lone surrogate", args_for("notes\ud800.txt"), "invalid_path", "path"),
    ("path over 4096 chars", args_for("a" * 4097), "invalid_path", "path"),
    ("path over PATH_MAX bytes", args_for("é/" * 1400 + "x"), "invalid_path", "path"),
    ("component over NAME_MAX", args_for("a" * 300), "invalid_path", "path"),
]


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [pytest.param(a, c, f, id=i) for i, a, c, f in ARGUMENT_CASES],
)
def test_bad_arguments_get_one_predictable_code(
    ws: Workspace, args: Any, code: str, field: str | None
) -> None:
    result = ws.read(args)
    assert not result["ok"]
    assert (result["error"]["code"], result["error"].get("field")) == (code, field)


def test_huge_numbers_meet_the_contracts_bounds(ws: Workspace) -> None:
    # JSON allows any integer; the contract caps start at 2**53 - 1 (exact in every JSON tool)
    data = ws.ok("notes.txt", 2**53 - 1, MAX_COUNT)
    assert data["lines"] == [] and data["total_lines"] == 3 and data["has_more"] is False
    assert ws.read(args_for("notes.txt", 10**300))["error"]["code"] == "invalid_range"
    ws.read(args_for("notes.txt", -(10**300)))  # invariants only
    assert ws.read(args_for("notes.txt", 1, 10**300))["error"]["code"] == "invalid_range"


# --------------------------------------------------------------------------- the shared table


@pytest.mark.parametrize("example", READ_LINES_EXAMPLES, ids=lambda e: e.name)
def test_manual_and_schema_validation_agree_on_the_table(example: Any) -> None:
    for validate in (validate_manually, validate_with_schema):
        error = validate(example.args)
        got = None if error is None else (error.code, error.fields.get("field"))
        assert got == example.verdict, (validate.__name__, error)


@pytest.mark.parametrize("example", READ_LINES_EXAMPLES, ids=lambda e: e.name)
def test_read_lines_returns_the_tables_verdict(ws: Workspace, example: Any) -> None:
    result = ws.read(example.args)
    if example.verdict is None:
        assert result["ok"], result
    else:
        assert not result["ok"]
        assert (result["error"]["code"], result["error"].get("field")) == example.verdict


# --------------------------------------------------------------------------- paths and links

OUTSIDE_PATHS = [
    "../secret.txt",
    "src/../../secret.txt",
    "./../secret.txt",
    "a/b/../../../secret.txt",
    "src_link/../../secret.txt",
    "../ws_evil/x.txt",  # the prefix sibling: "ws_evil" starts with "ws"
    "../ws/notes.txt",  # climbs out, even if it would come back in
    "../outside_dir/s.txt",
    "out_rel",
    "out_abs",
    "out_chain1",
    "out_dotdot",
    "sub/out_deep",
    "out_dir",
    "out_dir/s.txt",
    "out_dir_abs/s.txt",
    "dev_zero",
    "dev_zero_rel",
    "evil",
    "abs_in",  # the documented decision: absolute link targets are refused
]


@pytest.mark.parametrize("path", OUTSIDE_PATHS)
def test_ways_out_are_outside_workspace(ws: Workspace, path: str) -> None:
    error = ws.fails(path, "outside_workspace")
    assert error["retry"] == "never"


@pytest.mark.parametrize("path", ["/etc/passwd", "//etc/passwd", "/"])
def test_absolute_paths_are_refused(ws: Workspace, path: str) -> None:
    ws.fails(path, "absolute_path_not_allowed")


def test_absolute_path_to_the_root_itself_is_refused(ws: Workspace) -> None:
    # the model might paste the full path of a workspace file: still refused, never opened
    ws.fails(str(ws.root / "notes.txt"), "absolute_path_not_allowed", echoes_base=True)
    ws.fails(str(ws.base / "secret.txt"), "absolute_path_not_allowed", echoes_base=True)


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("loop_a", "invalid_path"),
        ("self_loop", "invalid_path"),
        ("loopdir/" * 41 + "notes.txt", "invalid_path"),  # 41 links: over the kernel's 40
        ("dangling", "not_found"),
        ("missing.txt", "not_found"),
        ("no/such/dir/file.txt", "not_found"),
        ("notes.txt/x", "not_found"),  # a file used as a directory
        ("dir", "not_a_file"),
        ("dir/", "not_a_file"),
        ("src", "not_a_file"),
        ("src_link", "not_a_file"),
        (".", "not_a_file"),
        ("src/..", "not_a_file"),
    ],
)
def test_broken_paths_and_directories(ws: Workspace, path: str, code: str) -> None:
    ws.fails(path, code)


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("link_in", "notes.txt"),
        ("chain1", "notes.txt"),
        ("sub/up", "notes.txt"),
        ("src_link/app.py", "src/app.py"),
        ("lib_link/cart/pricing.rb", "lib/cart/pricing.rb"),
        ("src/../notes.txt", "notes.txt"),
        ("./notes.txt", "notes.txt"),
        ("lib//cart/./pricing.rb", "lib/cart/pricing.rb"),
        ("loopdir/loopdir/notes.txt", "notes.txt"),
    ],
)
def test_inside_links_and_paths_are_followed(ws: Workspace, path: str, target: str) -> None:
    # the documented decision: a link that stays inside reads exactly like its target
    for start in (1, 2, 40):
        got, want = ws.ok(path, start, 5), ws.ok(target, start, 5)
        assert got["path"] == path and want["path"] == target
        for key in ("start", "lines", "total_lines", "has_more"):
            assert got[key] == want[key]


# --------------------------------------------------------------------------- special files


def test_fifo_is_not_a_file_and_does_not_hang(ws: Workspace) -> None:
    fifo = ws.root / "pipe"
    os.mkfifo(fifo)
    os.symlink("pipe", ws.root / "pipe_link")
    try:
        for path in ("pipe", "pipe_link"):
            result = run_with_timeout(lambda p=path: ws.read(args_for(p)))
            assert result["error"]["code"] == "not_a_file", result
    finally:
        # If a reader were stuck in open(), a non-blocking writer would release it.
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            assert exc.errno == errno.ENXIO  # no reader waiting: nothing was stuck


def test_fifo_with_a_writer_is_not_a_file(ws: Workspace) -> None:
    fifo = ws.root / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer open
    writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(writer, f"{SECRET}\n".encode())  # data waiting in the pipe is never read
        result = run_with_timeout(lambda: ws.read(args_for("pipe")))
        assert result["error"]["code"] == "not_a_file"
    finally:
        os.close(writer)
        os.close(reader)


def test_socket_is_not_a_file(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # bind by a relative name: an AF_UNIX address is limited to 108 bytes
    monkeypatch.chdir(ws.root)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind("sock")
        server.listen(1)
        result = run_with_timeout(lambda: ws.read(args_for("sock")))
        assert result["error"]["code"] == "not_a_file"
    finally:
        server.close()


def test_device_file_is_not_a_file(ws: Workspace) -> None:
    device = ws.root / "zero"
    try:  # /dev/zero's numbers: an endless stream if it were ever read
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    os.symlink("zero", ws.root / "zero_link")
    for path in ("zero", "zero_link"):
        result = run_with_timeout(lambda p=path: ws.read(args_for(p)))
        assert result["error"]["code"] == "not_a_file", result


# --------------------------------------------------------------------------- content checks


def test_file_over_the_size_cap(ws: Workspace) -> None:
    (ws.root / "ten.txt").write_bytes(b"123456789\n")
    limits = ReadLimits(max_file_bytes=10)
    assert ws.texts("ten.txt", limits=limits) == ["123456789"]  # exactly the cap: fine
    (ws.root / "eleven.txt").write_bytes(b"1234567890\n")
    error = ws.fails("eleven.txt", "file_too_large", limits=limits)
    assert error["retry"] == "never"


@pytest.mark.parametrize(
    "content",
    [
        b"text\x00more\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "hi\n".encode("utf-16"),  # UTF-16 carries NULs
        b"a" * 8000 + b"\x00",  # a NUL inside the first 8 KiB
    ],
    ids=["nul", "png", "utf16", "nul-at-8000"],
)
def test_binary_files(ws: Workspace, content: bytes) -> None:
    (ws.root / "blob").write_bytes(content)
    # like every file-level error, binary_file names the argument that led to the file
    ws.fails("blob", "binary_file", field="path")


def test_nul_in_a_requested_line_after_the_sniff_window_is_binary(ws: Workspace) -> None:
    (ws.root / "late.bin").write_bytes(b"x\n" * 5000 + b"late\x00nul\n")
    result = ws.read(args_for("late.bin", 5001, 1))
    assert (result["error"]["code"], result["error"].get("field")) == ("binary_file", "path")


@pytest.mark.parametrize(
    "content",
    [b"caf\xe9\n", b"ok\n\xff\xfe\xfd\n", b"\xc3\x28\n", b"\xed\xa0\x80\n"],
    ids=["latin1", "ff-fe", "bad-continuation", "encoded-surrogate"],
)
def test_undecodable_text(ws: Workspace, content: bytes) -> None:
    (ws.root / "bad.txt").write_bytes(content)
    ws.fails("bad.txt", "undecodable_text")


def test_file_that_vanishes_before_the_call(ws: Workspace) -> None:
    path = ws.root / "gone.txt"
    path.write_text("here\n", encoding="utf-8")
    assert ws.texts("gone.txt") == ["here"]
    path.unlink()
    ws.fails("gone.txt", "not_found")


def test_directory_that_vanishes_before_the_call(ws: Workspace) -> None:
    shutil.rmtree(ws.root / "src")
    ws.fails("src/app.py", "not_found")
    ws.fails("src_link/app.py", "not_found")  # the link dangles now


# --------------------------------------------------------------------------- permission


@pytest.mark.parametrize("method", METHODS)
def test_permission_denied(method: Method, unprivileged: Callable[..., Any]) -> None:
    # tmp_path sits in a 0700 directory; the unprivileged child needs a traversable base.
    base = Path(tempfile.mkdtemp(prefix="read_lines_perm_"))
    try:
        base.chmod(0o755)
        root = base / "ws"
        (root / "locked_dir").mkdir(parents=True)
        (root / "readable.txt").write_text("fine\n", encoding="utf-8")
        (root / "locked.txt").write_text(SECRET + "\n", encoding="utf-8")
        (root / "locked_dir" / "x.txt").write_text(SECRET + "\n", encoding="utf-8")
        root.chmod(0o755)
        (root / "locked.txt").chmod(0o000)
        (root / "locked_dir").chmod(0o000)

        def read(path: str) -> dict[str, Any]:
            return unprivileged(read_lines, str(root), args_for(path), method=method)

        control = read("readable.txt")
        assert control["ok"] and control["data"]["lines"] == [{"number": 1, "text": "fine"}]
        for path in ("locked.txt", "locked_dir/x.txt"):
            result = read(path)
            check_invariants(result, base)
            assert (result["error"]["code"], result["error"]["field"]) == (
                "permission_denied",
                "path",
            ), result
            assert result["error"]["retry"] == "after_authorization"
    finally:
        for locked in (base / "ws" / "locked_dir", base / "ws" / "locked.txt"):
            if locked.exists():
                locked.chmod(0o700)  # a non-root owner could not remove them otherwise
        shutil.rmtree(base)


# --------------------------------------------------------------------------- lines


def write(ws: Workspace, name: str, content: bytes | str) -> str:
    """Write a file in the root; return its relative path."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    (ws.root / name).write_bytes(data)
    return name


def test_real_one_based_numbers(ws: Workspace) -> None:
    data = ws.ok("lib/cart/pricing.rb", 40, 5)
    assert [line["number"] for line in data["lines"]] == [40, 41, 42, 43, 44]
    assert [line["text"] for line in data["lines"]] == PRICING_LINES[39:44]
    assert data["start"] == 40 and data["total_lines"] == 60 and data["has_more"] is True


@pytest.mark.parametrize("trailing_newline", [True, False])
@pytest.mark.parametrize(
    ("start", "count", "numbers", "has_more"),
    [
        (1, 5, [1, 2, 3, 4, 5], False),  # exactly the whole file
        (1, 4, [1, 2, 3, 4], True),
        (4, 1, [4], True),
        (5, 1, [5], False),  # the last line
        (5, 20, [5], False),  # fewer than asked at the end
        (6, 1, [], False),  # just past the end
        (10_000, 20, [], False),  # far past the end
    ],
)
def test_has_more_and_past_the_end(
    ws: Workspace,
    trailing_newline: bool,
    start: int,
    count: int,
    numbers: list[int],
    has_more: bool,
) -> None:
    content = "\n".join(f"L{n}" for n in range(1, 6)) + ("\n" if trailing_newline else "")
    data = ws.ok(write(ws, "five.txt", content), start, count)
    assert [line["number"] for line in data["lines"]] == numbers
    assert [line["text"] for line in data["lines"]] == [f"L{n}" for n in numbers]
    assert data["total_lines"] == 5 and data["has_more"] is has_more


@pytest.mark.parametrize(
    ("content", "lines"),
    [
        (b"", []),
        (b"\n", [""]),
        (b"\n\n", ["", ""]),
        (b"no newline", ["no newline"]),
        (b"a\r\nb\r\n", ["a", "b"]),
        (b"a\r\nb", ["a", "b"]),
        (b"a\r\r\n", ["a\r"]),  # only the \r of the line ending goes
        (b"a\rb\n", ["a\rb"]),  # a lone \r is not a line break
        (b"\xef\xbb\xbfbom\nnext\n", ["bom", "next"]),
        (b"\xef\xbb\xbf\r\n", [""]),
        (b"x\n\xef\xbb\xbfkept\n", ["x", "\ufeffkept"]),  # a BOM only counts at the start
        ("één\u2028twee\x85\n".encode(), ["één\u2028twee\x85"]),  # only \n splits
    ],
    ids=lambda v: repr(v)[:30],
)
def test_line_splitting(ws: Workspace, content: bytes, lines: list[str]) -> None:
    data = ws.ok(write(ws, "f.txt", content))
    assert [line["text"] for line in data["lines"]] == lines
    assert [line["number"] for line in data["lines"]] == list(range(1, len(lines) + 1))
    assert data["total_lines"] == len(lines) and data["has_more"] is False


def test_empty_file(ws: Workspace) -> None:
    data = ws.ok(write(ws, "empty.txt", b""), 1, 1)
    assert data == {
        "path": "empty.txt",
        "start": 1,
        "lines": [],
        "total_lines": 0,
        "has_more": False,
    }


@pytest.mark.parametrize(
    "line",
    [
        "abcdefghijkl",  # ASCII: longer in chars, too short in bytes for the byte cut
        "é" * 30,  # 2-byte characters
        "😀" * 10,  # 4-byte characters (with a BOM, the BOM's bytes must not eat the room)
        "a" + "é" * 30,  # the byte cut lands inside a 2-byte character
        "ab" + "€" * 30,  # ... inside a 3-byte character
        "abc" + "😀" * 30,  # ... inside a 4-byte character
        "😀" * 5 + "\r",  # exactly the cap, then CRLF: not truncated
    ],
    ids=["ascii", "2-byte", "4-byte", "split-2", "split-3", "split-4", "cap-then-cr"],
)
@pytest.mark.parametrize("bom", [False, True])
def test_long_lines_are_cut_and_marked(ws: Workspace, line: str, bom: bool) -> None:
    limits = ReadLimits(max_line_chars=5)
    content = ("\ufeff" if bom else "") + line + "\nshort\n"
    data = ws.ok(write(ws, "wide.txt", content), limits=limits)
    first, second = data["lines"]
    full = line.removesuffix("\r")
    assert first["text"] == full[:5]
    first["text"].encode("utf-8")  # valid text: no surrogate halves, no replacement chars
    assert "\ufffd" not in first["text"]
    assert first.get("truncated", False) is (len(full) > 5)
    assert second == {"number": 2, "text": "short"}  # the next line is untouched
    assert data["total_lines"] == 2


def test_long_line_across_chunks(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # tiny chunks put every line boundary and multi-byte character across a chunk edge
    monkeypatch.setattr(files, "_CHUNK_BYTES", 7)
    lines = ["α" * 40, "short", "βγ" * 3, "", "end"]
    path = write(ws, "chunky.txt", "\n".join(lines) + "\n")
    data = ws.ok(path, limits=ReadLimits(max_line_chars=8))
    assert [line["text"] for line in data["lines"]] == [line[:8] for line in lines]
    assert [bool(line.get("truncated")) for line in data["lines"]] == [True] + [False] * 4
    assert ws.texts(path, 3, 2) == ["βγβγβγ", ""]


def test_windows_across_real_chunk_boundaries(ws: Workspace) -> None:
    # ~2.6 MiB with the real 1 MiB chunks: windows before, across and after chunk edges
    lines = [f"{n:06d} " + "x" * (n % 97) for n in range(1, 50_001)]
    path = write(ws, "big.txt", "\n".join(lines) + "\n")
    edges = [1, 2]
    offset = 0
    for number, line in enumerate(lines, start=1):  # the lines a chunk edge falls into
        offset += len(line) + 1
        if offset // files._CHUNK_BYTES != (offset - len(line) - 1) // files._CHUNK_BYTES:
            edges += [number - 20, number - 1, number, number + 1]
    edges += [len(lines) - 19, len(lines), len(lines) + 1]
    for start in edges:
        data = ws.ok(path, start, MAX_COUNT)
        assert [line["text"] for line in data["lines"]] == lines[start - 1 : start + 19]
        assert [line["number"] for line in data["lines"]][:1] == ([start] if data["lines"] else [])
        assert data["total_lines"] == 50_000


def test_results_echo_arguments(ws: Workspace) -> None:
    data = ws.ok("notes.txt", 2, 1)
    assert data == {
        "path": "notes.txt",
        "start": 2,
        "lines": [{"number": 2, "text": "second"}],
        "total_lines": 3,
        "has_more": True,
    }


# --------------------------------------------------------------------------- the race


def point_link(root: Path, target: str, tmp_name: str = "link.tmp") -> None:
    """Atomically make ``root/link`` point at ``target``: a new link renamed over the old."""
    os.symlink(target, root / tmp_name)
    os.replace(root / tmp_name, root / "link")


class Flipper:
    """A thread flipping ``root/link`` between an inside file and ``outside``, flat out."""

    def __init__(self, root: Path, outside: str) -> None:
        self.root, self.outside = root, outside
        self.flips = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        # Yield the GIL at random moments: on one core the two threads otherwise fall into
        # lockstep, and the reader might only ever see one of the two states.
        rng = random.Random(3)
        while not self._stop.is_set():
            for target in ("inside.txt", self.outside):
                point_link(self.root, target)
                self.flips += 1
                if rng.random() < 0.05:
                    time.sleep(0)

    def wait_for_a_flip(self) -> None:
        """Return once the link has been replaced at least once more (at most 1 s)."""
        seen, deadline = self.flips, time.monotonic() + 1.0
        while self.flips == seen and time.monotonic() < deadline:
            time.sleep(0)  # let the flipper thread take the GIL

    def __enter__(self) -> Flipper:
        point_link(self.root, "inside.txt")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(HANG_SECONDS)
        assert not self._thread.is_alive(), "the flipper thread did not stop"


def outside_target(base: Path, kind: str) -> str:
    """The outside secret as a relative or an absolute link target."""
    return "../secret.txt" if kind == "relative" else str(base / "secret.txt")


class FlipperProcess:
    """Another process flipping ``root/link`` between an inside file and ``outside``, flat
    out, as an attacker sharing the machine would. A process, not a thread: the reads never
    wait for the flipper to hand back the GIL, so a busy machine slows both sides alike
    instead of starving the reader (a thread flipper gave 95 reads a second under load)."""

    SCRIPT = (
        "import os, sys\n"
        "root, outside = sys.argv[1], sys.argv[2]\n"
        "tmp, link = os.path.join(root, 'flip.tmp'), os.path.join(root, 'link')\n"
        "flips = 0\n"
        "print('flipping', flush=True)\n"
        "try:\n"
        "    while True:\n"
        "        for target in ('inside.txt', outside):\n"
        "            os.symlink(target, tmp)\n"
        "            os.replace(tmp, link)\n"
        "            flips += 1\n"
        "except KeyboardInterrupt:\n"
        "    print(flips, flush=True)\n"
    )

    def __init__(self, root: Path, outside: str) -> None:
        self.root, self.outside = root, outside
        self.flips = 0

    def __enter__(self) -> FlipperProcess:
        point_link(self.root, "inside.txt")
        self._process = subprocess.Popen(
            [sys.executable, "-c", self.SCRIPT, str(self.root), self.outside],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        assert self._process.stdout.readline() == "flipping\n"
        return self

    def __exit__(self, *exc: object) -> None:
        self._process.send_signal(signal.SIGINT)
        out, _ = self._process.communicate(timeout=HANG_SECONDS)
        self.flips = int(out.strip() or 0)


MIN_READS = 3000
MAX_READS = 30_000  # only if one outcome were still missing after MIN_READS


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_symlink_swap_race_never_escapes(ws: Workspace, kind: str) -> None:
    """Counts decide: at least MIN_READS reads, and more until both outcomes were seen (the
    race ran); no read may escape or raise. Only a read that blocks fails by time
    (HANG_SECONDS: a blocked open, never a slow machine)."""
    outcomes: Counter[str] = Counter()
    exceptions: list[str] = []
    args = args_for("link", 1, 1)
    with FlipperProcess(ws.root, outside_target(ws.base, kind)) as flipper:
        reads = 0
        while reads < MIN_READS or (
            reads < MAX_READS and not (outcomes["ok"] and outcomes["outside_workspace"])
        ):
            reads += 1
            try:
                result = run_with_timeout(lambda: read_lines(ws.root, args, method=ws.method))
            except AssertionError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted, then asserted to be zero
                exceptions.append(repr(exc))
                continue
            dumped = json.dumps(result, allow_nan=False)
            if SECRET in dumped:
                outcomes["ESCAPE"] += 1
            elif result["ok"]:
                assert result["data"]["lines"] == [{"number": 1, "text": INSIDE}], result
                outcomes["ok"] += 1
            else:
                check_invariants(result, ws.base)
                code = result["error"]["code"]
                outcomes[code if code == "outside_workspace" else f"other:{code}"] += 1
    summary = (
        f"race[{ws.method}, {kind}]: reads={reads} ok={outcomes['ok']}"
        f" outside_workspace={outcomes['outside_workspace']}"
        f" other={sum(v for k, v in outcomes.items() if k.startswith('other:'))}"
        f" escapes={outcomes['ESCAPE']} exceptions={len(exceptions)} flips={flipper.flips}"
    )
    print(summary)
    assert outcomes["ESCAPE"] == 0, summary
    assert exceptions == [], exceptions[:3]
    # A rename racing a lookup may make openat2 answer EAGAIN; after bounded retries that
    # is "temporary_unavailable", a documented transient code. Nothing else is acceptable.
    others = {k for k in outcomes if k.startswith("other:")}
    assert others <= {"other:temporary_unavailable"}, summary
    assert outcomes["ok"] and outcomes["outside_workspace"], f"the race never flipped: {summary}"
    assert flipper.flips > 0


def naive_read(root: Path, path: str, between_check_and_open: Callable[[], None]) -> str:
    """The classic, WRONG reader: resolve and check, then open the original path.

    Between the check and the open, the link can change; open() follows it again.
    """
    full = root / path
    if not full.resolve().is_relative_to(root.resolve()):
        return "refused"
    between_check_and_open()
    with open(full, encoding="utf-8") as stream:
        return stream.read()


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_naive_reader_leaks_with_a_swap_between_check_and_open(tmp_path: Path, kind: str) -> None:
    # Deterministic: the hook performs the swap exactly in the gap, every time.
    root = make_tree(tmp_path)
    outside = outside_target(tmp_path, kind)
    point_link(root, "inside.txt")
    assert naive_read(root, "link", lambda: None) == INSIDE + "\n"
    point_link(root, outside)
    assert naive_read(root, "link", lambda: None) == "refused"  # the check itself works ...
    point_link(root, "inside.txt")
    leaked = naive_read(root, "link", lambda: point_link(root, outside))
    assert SECRET in leaked  # ... but what it checked is not what it opens
    # read_lines has no gap: the check is the open, so the same state is simply refused.
    methods: tuple[Method, ...] = ("openat2", "walk") if openat2_available() else ("walk",)
    for method in methods:
        point_link(root, "inside.txt")
        assert read_lines(root, args_for("link"), method=method)["ok"]
        point_link(root, outside)
        result = read_lines(root, args_for("link"), method=method)
        assert result["error"]["code"] == "outside_workspace"
        check_invariants(result, tmp_path)


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_naive_reader_leaks_under_the_same_race(tmp_path: Path, kind: str) -> None:
    # For contrast, the same flipper as above. Left alone, the naive reader leaks only now
    # and then (0.2-5 % of calls on this 2-core machine, under load or on one core maybe
    # never), so its gap is given the length a preempted process gives it: the hook waits
    # until the flipper has replaced the link once more. After a check that saw the
    # inside file, the next replacement points outside, so about half of the passing
    # checks leak, whatever the load: 500 attempts cannot all miss.
    root = make_tree(tmp_path)
    attempts, leaks = 0, 0
    with Flipper(root, outside_target(tmp_path, kind)) as flipper:
        while attempts < 500 and not leaks:
            attempts += 1
            try:
                text = naive_read(root, "link", flipper.wait_for_a_flip)
            except OSError:  # the naive reader has no error contract at all
                continue
            leaks += SECRET in text
    assert leaks, f"the naive reader did not leak in {attempts} attempts"
    print(f"naive[{kind}]: first leak after {attempts} attempts")


@pytest.mark.parametrize("field", ["start", "count"])
def test_integers_too_long_to_print_are_an_error_not_an_exception(
    ws: Workspace, field: str
) -> None:
    # Python refuses to repr ints over 4300 digits; read_lines must still answer.
    args = {"path": "notes.txt", "start": 1, "count": 1} | {field: 10**5000}
    result = ws.read(args)
    assert (result["error"]["code"], result["error"]["field"]) == ("invalid_range", field)
    json.dumps(result, allow_nan=False)


def test_a_lone_surrogate_is_echoed_as_valid_utf8(ws: Workspace) -> None:
    result = ws.read(args_for("bad\ud800name.txt", 1, 1))
    assert result["error"]["code"] == "invalid_path"
    contracts_dumps(result).encode("utf-8")  # would raise UnicodeEncodeError if echoed raw
