"""Property tests for read_lines: any JSON-like arguments, any text file, both open methods.

1. Whatever ``args`` a model sends, read_lines returns (never raises) an envelope that
   validates against the envelope's own JSON Schema and serializes without NaN; both open
   methods give the same envelope; the outside secret never appears.
2. The hand-written and the jsonschema validators agree on (code, field) for every ``args``.
3. For valid arguments on a generated text file, the lines, ``total_lines`` and ``has_more``
   match a reference defined on the text itself (:func:`reference_lines`), also when the
   file is read in tiny chunks (every line and character then straddles a chunk edge).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import CATALOGUE, ENVELOPE_SCHEMA
from tutorial_lib.workspace import read as files
from tutorial_lib.workspace.read import ReadLimits, read_lines, validate_with_schema
from tutorial_lib.workspace.read_schema import MAX_COUNT, validate_manually
from tutorial_lib.workspace.sandbox import Method, openat2_available

SECRET = "SECRET-MARKER-c07e5a11-never-in-a-result"
METHODS: tuple[Method, ...] = ("openat2", "walk") if openat2_available() else ("walk",)
ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
SETTINGS = settings(
    max_examples=150,
    deadline=None,  # file I/O timing varies; speed is the benchmark's business
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small workspace with the classic ways out; returns its root (module-scoped:
    hypothesis runs many examples per test, and the tree is never modified)."""
    base = tmp_path_factory.mktemp("props")
    root = base / "ws"
    (root / "src").mkdir(parents=True)
    (root / "dir").mkdir()
    (base / "ws_evil").mkdir()
    (base / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (base / "ws_evil" / "x.txt").write_text(SECRET + "\n", encoding="utf-8")
    (root / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (root / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    (root / "blob").write_bytes(b"\x00\x01\x02")
    os.mkfifo(root / "pipe")
    for name, target in {
        "link_in": "notes.txt",
        "src_link": "src",
        "out_rel": "../secret.txt",
        "out_abs": str(base / "secret.txt"),
        "out_dir": "..",
        "loop_a": "loop_b",
        "loop_b": "loop_a",
    }.items():
        os.symlink(target, root / name)
    return root


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second root for generated files, so the sandbox tree above stays fixed."""
    return tmp_path_factory.mktemp("generated")


# --------------------------------------------------------------------------- strategies

# Surrogate-free Unicode: what a JSON string can hold once decoded to valid text.
TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
INTEGERS = st.one_of(
    st.integers(min_value=-3, max_value=MAX_COUNT + 3),  # around every bound
    st.integers(),
    st.integers(min_value=-(10**300), max_value=10**300),  # huge, still JSON-parseable
    st.sampled_from([2**31, 2**53 + 1, 2**63, -(2**63), 2**64]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    INTEGERS,
    st.floats(),  # NaN and both infinities included
    TEXT,
    st.sampled_from(["", " ", "\x00", "1", "notes.txt\x00", "../secret.txt"]),
)
PARTS = st.one_of(
    st.sampled_from(
        [
            "..",
            ".",
            "",
            "ws",
            "ws_evil",
            "x.txt",
            "secret.txt",
            "notes.txt",
            "src",
            "app.py",
            "src_link",
            "link_in",
            "out_rel",
            "out_abs",
            "out_dir",
            "loop_a",
            "dir",
            "pipe",
            "blob",
        ]
    ),
    TEXT,
)
KNOWN_PATHS = st.sampled_from(
    [
        "notes.txt",
        "link_in",
        "src/app.py",
        "src_link/app.py",
        "./notes.txt",
        "src/../notes.txt",
        "src",
        "dir",
        "pipe",
        "blob",
        "loop_a",
        "out_rel",
        "out_abs",
        "out_dir/secret.txt",
        "../ws_evil/x.txt",
    ]
)
PATHS = st.one_of(
    KNOWN_PATHS,
    st.builds(
        lambda lead, parts: lead + "/".join(parts),
        st.sampled_from(["", "", "", "/", "./"]),
        st.lists(PARTS, min_size=1, max_size=6),
    ),
    TEXT,
)
KEYS = st.one_of(st.sampled_from(["path", "start", "count"]), TEXT)
JSON_LIKE = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=4),
    ),
    max_leaves=12,
)
NEAR_VALID = st.fixed_dictionaries(
    {"path": st.one_of(PATHS, JSON_LIKE), "start": INTEGERS, "count": INTEGERS},
    optional={"extra": JSON_LIKE, "Count": INTEGERS},
)
VALID = st.fixed_dictionaries(
    {
        "path": st.one_of(KNOWN_PATHS, PATHS),
        "start": st.integers(1, 5),
        "count": st.integers(1, MAX_COUNT),
    }
)
ARGS = st.one_of(
    JSON_LIKE,
    st.dictionaries(KEYS, JSON_LIKE, max_size=5),
    NEAR_VALID,
    NEAR_VALID.flatmap(  # the same, with some required keys dropped
        lambda d: st.sets(st.sampled_from(sorted(d))).map(
            lambda drop: {k: v for k, v in d.items() if k not in drop}
        )
    ),
    VALID,
)


def check_envelope(result: dict[str, Any]) -> None:
    """What every result must satisfy, for any input."""
    ENVELOPE.validate(result)
    dumped = json.dumps(result, allow_nan=False)  # raises on NaN or an unserializable value
    assert SECRET not in dumped, f"ESCAPE: {dumped[:300]}"
    if not result["ok"]:
        assert result["error"]["code"] in CATALOGUE
        assert result["error"]["operation_state"] == "not_applied"


def verdict(error: Any) -> tuple[str, str | None] | None:
    """(code, field) of a validator's answer, None for valid arguments."""
    return None if error is None else (error.code, error.fields.get("field"))


# --------------------------------------------------------------------------- 1 and 2


@SETTINGS
@given(args=ARGS)
def test_any_args_give_a_valid_envelope_and_both_methods_agree(tree: Path, args: Any) -> None:
    results = [read_lines(tree, args, method=method) for method in METHODS]
    for result in results:
        check_envelope(result)
    # The walk and openat2 implement one contract: same input, same envelope.
    assert all(json.dumps(r) == json.dumps(results[0]) for r in results), results
    first = results[0]
    event("ok" if first["ok"] else first["error"]["code"])  # --hypothesis-show-statistics


@SETTINGS
@given(path=st.one_of(KNOWN_PATHS, PATHS), start=st.integers(1, 5))
def test_any_path_stays_in_the_sandbox_and_both_methods_agree(
    tree: Path, path: str, start: int
) -> None:
    # the file-system half of the test above: every argument valid except perhaps the path
    args = {"path": path, "start": start, "count": MAX_COUNT}
    results = [read_lines(tree, args, method=method) for method in METHODS]
    for result in results:
        check_envelope(result)
    assert all(json.dumps(r) == json.dumps(results[0]) for r in results), results
    first = results[0]
    if first["ok"]:  # only the two inside files can be read, whatever the route
        texts = [line["text"] for line in first["data"]["lines"]]
        assert texts in (["first", "second", "third"][start - 1 :], ["print('hello')"][start - 1 :])
    event("ok" if first["ok"] else first["error"]["code"])


@SETTINGS
@given(args=ARGS)
def test_manual_and_schema_validators_agree(args: Any) -> None:
    manual, schema = validate_manually(args), validate_with_schema(args)
    assert verdict(manual) == verdict(schema), (manual, schema)


@SETTINGS
@given(args=ARGS)
def test_schema_errors_are_what_read_lines_returns(tree: Path, args: Any) -> None:
    # station 1 decides first: a schema error is the envelope's error, unchanged
    error = validate_with_schema(args)
    result = read_lines(tree, args)
    if error is not None:
        assert not result["ok"]
        assert (result["error"]["code"], result["error"].get("field")) == verdict(error)


# --------------------------------------------------------------------------- 3: the lines


def reference_lines(content: str) -> list[str]:
    """The lines of ``content`` as read_lines defines them, computed on text, not bytes.

    - split on "\\n" only ("\\r", U+2028, U+0085 and friends are ordinary characters);
    - a final "\\n" ends the last line instead of starting an empty one, so a last line
      without a newline still counts, and an empty file has 0 lines;
    - one "\\r" right before the "\\n" (a CRLF ending) is not part of the line;
    - a byte order mark at the very start of the file is not part of line 1 (but a file
      holding only a BOM has one, empty, line: the BOM is a byte of the file).
    """
    if content == "":
        return []
    parts = content.split("\n")
    if parts[-1] == "":
        parts.pop()
    lines = [part[:-1] if part.endswith("\r") else part for part in parts]
    if lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


# Characters that stress the splitting: line breaks of other kinds, a BOM, 2-4 byte chars.
LINE_CHARS = st.one_of(
    st.sampled_from(["a", "b", " ", "\r", "\t", "\ufeff", "é", "€", "😀", "\u2028", "\x85"]),
    st.characters(codec="utf-8", exclude_characters="\x00"),
)
LINE = st.text(LINE_CHARS, max_size=20).filter(lambda s: "\n" not in s)
CONTENT = st.one_of(
    st.builds(
        lambda bom, lines, eol, trailing: (
            ("\ufeff" if bom else "") + eol.join(lines) + (eol if trailing and lines else "")
        ),
        st.booleans(),
        st.lists(LINE, max_size=12),
        st.sampled_from(["\n", "\r\n"]),
        st.booleans(),
    ),
    st.text(st.one_of(LINE_CHARS, st.just("\n")), max_size=80),
)


@SETTINGS
@given(
    content=CONTENT,
    start=st.one_of(st.integers(1, 16), st.integers(1, 10**12)),
    count=st.integers(1, MAX_COUNT),
    max_line_chars=st.one_of(st.just(4096), st.integers(1, 12)),
    chunk_bytes=st.one_of(st.just(1 << 20), st.integers(1, 16)),
    method=st.sampled_from(METHODS),
)
def test_lines_match_the_reference(
    scratch: Path,
    content: str,
    start: int,
    count: int,
    max_line_chars: int,
    chunk_bytes: int,
    method: Method,
) -> None:
    path = scratch / "generated.txt"
    path.write_bytes(content.encode("utf-8"))
    limits = ReadLimits(max_line_chars=max_line_chars)
    with mock.patch.object(files, "_CHUNK_BYTES", chunk_bytes):
        result = read_lines(
            scratch,
            {"path": "generated.txt", "start": start, "count": count},
            limits=limits,
            method=method,
        )
    check_envelope(result)
    assert result["ok"], result
    data = result["data"]
    reference = reference_lines(content)
    wanted = reference[start - 1 : start - 1 + count]
    expected = []
    for number, text in enumerate(wanted, start=start):
        line: dict[str, Any] = {"number": number, "text": text[:max_line_chars]}
        if len(text) > max_line_chars:
            line["truncated"] = True
        expected.append(line)
    assert data["lines"] == expected
    assert data["total_lines"] == len(reference)
    assert data["has_more"] is (start - 1 + len(wanted) < len(reference))
    assert data["start"] == start and data["path"] == "generated.txt"


@SETTINGS
@given(
    content=st.binary(max_size=300),
    start=st.integers(1, 12),
    count=st.integers(1, MAX_COUNT),
    method=st.sampled_from(METHODS),
)
def test_any_bytes_give_text_or_one_content_code(
    scratch: Path, content: bytes, start: int, count: int, method: Method
) -> None:
    (scratch / "bytes.bin").write_bytes(content)
    args = {"path": "bytes.bin", "start": start, "count": count}
    result = read_lines(scratch, args, method=method)
    check_envelope(result)
    if result["ok"]:
        for line in result["data"]["lines"]:
            line["text"].encode("utf-8")  # real text: no lone surrogates
        assert b"\x00" not in content
    else:
        expected = "binary_file" if b"\x00" in content else "undecodable_text"
        assert result["error"]["code"] == expected
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return  # undecodable somewhere: only the requested lines decide (checked above)
    if "\x00" not in text:  # valid text must be read, and counted like the reference
        assert result["ok"] and result["data"]["total_lines"] == len(reference_lines(text))


def test_reference_lines_examples() -> None:
    # the reference itself, pinned on the cases the docstring names
    assert reference_lines("") == []
    assert reference_lines("\n") == [""]
    assert reference_lines("a") == ["a"]
    assert reference_lines("a\r\nb") == ["a", "b"]
    assert reference_lines("a\r\r\n") == ["a\r"]
    assert reference_lines("\ufeff") == [""]
    assert reference_lines("\ufeffx\n\ufeffy\n") == ["x", "\ufeffy"]
    assert reference_lines("a\u2028b\x85c\n") == ["a\u2028b\x85c"]
