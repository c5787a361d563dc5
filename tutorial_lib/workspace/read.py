"""The read tool ``read_lines``: declared once, called along the road like every tool.

    find the tool -> schema check (READ_LINES_SCHEMA) -> authorization
      -> resolution (resolve_path: the path after its symlinks, by name, nothing opened)
      -> business check (check_readable) -> recheck (the name of what it opened)
      -> confirmation -> execution (read_requested_lines) -> envelope

- schema check: the road validates against :data:`READ_LINES_SCHEMA`, worded by
  :func:`~tutorial_lib.workspace.read_schema.read_lines_value_error`
  (:func:`validate_with_schema` is the same check, callable alone);
- business check: what no schema can see: inside the workspace, exists, a regular file
  with one name (a hard link may be a file outside: refused unless
  ``ReadLimits(allow_hard_links=True)``), not too large.
  :func:`tutorial_lib.workspace.sandbox.open_beneath` opens the file race-free, and
  execution reads that very descriptor (no second lookup of the path);
- execution: one streaming pass over the file: the requested lines are collected, every
  newline is counted in 1 MiB chunks, so memory stays flat whatever the file size.

Lines are split on ``\\n`` only (a trailing ``\\r`` is dropped), the way ``wc -l`` and
editors count them; ``total_lines`` counts a last line without a newline too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy

from tutorial_lib.core.authorization import workspace_access
from tutorial_lib.core.contracts import ContractError, Envelope, Source
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import READ_ONLY_LOCAL, Registry, ToolSpec
from tutorial_lib.workspace.read_schema import (
    READ_LINES_DESCRIPTION,
    READ_LINES_SCHEMA,
    read_lines_value_error,
)
from tutorial_lib.workspace.sandbox import (
    Method,
    OpenedFile,
    open_beneath,
    resolve_name_beneath,
)

__all__ = [
    "READ_LINES_DATA_SCHEMA",
    "READ_LINES_SPEC",
    "ReadContext",
    "ReadLimits",
    "check_readable",
    "read_requested_lines",
    "read_lines",
    "read_lines_tool",
    "resolve_path",
    "validate_with_schema",
]

TOOL_NAME = "read_lines"
_CHUNK_BYTES = 1 << 20
_SNIFF_BYTES = 8192
_NEWLINE = ord("\n")


@dataclass(frozen=True)
class ReadLimits:
    """Server-side limits (not the model's to choose).

    ``max_file_bytes``: larger files are refused (``file_too_large``): counting lines is a
    full pass. ``max_line_chars``: a longer line is cut and marked ``"truncated": true``.
    ``allow_hard_links``: False (the default) refuses a regular file with more than one
    hard link (``permission_denied``): no path check can tell whether its other names lie
    outside the workspace (:func:`tutorial_lib.workspace.sandbox.hard_link_error`). Set it
    to True only for a workspace whose hard links you trust, e.g. a pnpm ``node_modules``
    linked from a store inside it.
    """

    max_file_bytes: int = 256 * 1024 * 1024
    max_line_chars: int = 4096
    allow_hard_links: bool = False


@dataclass(frozen=True)
class ReadContext:
    """What read_lines needs, bound when the registry is built: the workspace root, the
    limits, and (for tests and chapter 01's comparison) a forced open ``method``."""

    root: str | os.PathLike[str]
    limits: ReadLimits = ReadLimits()
    method: Method | None = None


def check_readable(context: ReadContext, args: Mapping[str, Any]) -> OpenedFile:
    """The business check: the file is inside the workspace, regular, has one name (unless
    hard links are allowed), not too large."""
    path, limits = args["path"], context.limits
    opened = open_beneath(
        context.root, path, method=context.method, allow_hard_links=limits.allow_hard_links
    )
    if opened.size_bytes > limits.max_file_bytes:
        opened.close()
        raise ContractError(
            "file_too_large",
            f"'{path}' has {opened.size_bytes} bytes; this tool reads files up to"
            f" {limits.max_file_bytes} bytes",
            field="path",
            received=path,
        )
    return opened


def read_requested_lines(
    context: ReadContext, args: Mapping[str, Any], opened: OpenedFile
) -> dict[str, Any]:
    """Execution: one pass over the opened file; the road closes it afterwards."""
    path = args["path"]
    max_chars = context.limits.max_line_chars
    try:
        with os.fdopen(opened.fd, "rb", buffering=0, closefd=False) as stream:
            scan = _scan(stream, path, args["start"], args["count"], max_chars)
    except OSError as exc:  # the storage failed mid-read (EIO and the like)
        raise ContractError(
            "temporary_unavailable",
            f"reading '{path}' failed mid-way; retry shortly",
            field="path",
            received=path,
        ) from exc
    lines = [_decode(n, raw, path, cut, max_chars) for n, raw, cut in scan.lines]
    return {
        "path": path,
        "start": args["start"],
        "lines": lines,
        "total_lines": scan.total_lines,
        "has_more": args["start"] - 1 + len(lines) < scan.total_lines,
    }


@dataclass(frozen=True)
class _Scan:
    lines: list[tuple[int, bytes, bool]]  # (number, raw bytes, cut?)
    total_lines: int


def _scan(stream: Any, path: str, start: int, count: int, max_line_chars: int) -> _Scan:
    """One pass: collect lines ``start .. start+count-1``, count all newlines, check binary."""
    end = start + count  # first line number NOT wanted
    # Bytes kept per line: a UTF-8 character has at most 4 bytes, plus room for a BOM (3)
    # and a trailing "\r" (1), which _decode strips before counting characters.
    keep = max_line_chars * 4 + 4
    number = 1  # number of the line the next byte belongs to
    collected: list[tuple[int, bytes, bool]] = []
    current = bytearray()
    cut = False
    last_byte = b""
    first = True
    # One reused buffer (a fresh 1 MiB bytes object per chunk costs page faults), viewed as
    # a numpy array: bytes.count(b"\n") is a scalar, branchy loop, about 4-5x slower than
    # `wc -l` on lines of varying length; numpy's vectorized compare-and-count matches it.
    buffer = bytearray(_CHUNK_BYTES)
    as_array = numpy.frombuffer(buffer, dtype=numpy.uint8)
    while size := stream.readinto(buffer):
        if first and buffer.find(b"\x00", 0, min(size, _SNIFF_BYTES)) != -1:
            raise _binary(path)
        first = False
        last_byte = bytes(buffer[size - 1 : size])
        newlines = int(numpy.count_nonzero(as_array[:size] == _NEWLINE))
        if number + newlines < start or number >= end:
            number += newlines  # nothing of the wanted range in this chunk: just count
            continue
        chunk = bytes(buffer[:size])  # only the chunk(s) holding the wanted lines are copied
        position = 0
        if number < start:  # jump to line `start` (it begins in this chunk); split walks in C
            position = len(chunk) - len(chunk.split(b"\n", start - number)[-1])
            number = start
        while True:
            newline = chunk.find(b"\n", position)
            piece = chunk[position:] if newline == -1 else chunk[position:newline]
            if start <= number < end:
                room = keep - len(current)
                if len(piece) > room:
                    cut = True
                current += piece[: max(room, 0)]
            if newline == -1:
                break
            if start <= number < end:
                collected.append((number, bytes(current), cut))
                current, cut = bytearray(), False
            number += 1
            position = newline + 1
            if number >= end:  # past the wanted range: the rest of the chunk is just counted
                number += chunk.count(b"\n", position)
                break
    ends_open = last_byte not in (b"", b"\n")  # a last line without a trailing newline
    total = number if ends_open else number - 1
    if ends_open and start <= number < end:
        collected.append((number, bytes(current), cut))
    return _Scan(collected, total)


def _decode(number: int, raw: bytes, path: str, cut: bool, max_chars: int) -> dict[str, Any]:
    if b"\x00" in raw:
        raise _binary(path)
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # a UTF-8 byte order mark is not part of the text
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut and exc.reason == "unexpected end of data":
            text = raw[: exc.start].decode("utf-8")  # the cut split the last character
        else:
            raise ContractError(
                "undecodable_text",
                f"line {number} of '{path}' is not valid UTF-8 (byte {exc.start + 1} of the"
                " line); this tool reads UTF-8 text only",
                field="path",
                received=path,
            ) from None
    # Characters, not bytes, decide: an ASCII line can exceed max_chars without being cut.
    cut = cut or len(text) > max_chars
    line: dict[str, Any] = {"number": number, "text": text[:max_chars] if cut else text}
    if cut:
        line["truncated"] = True
    return line


def _binary(path: str) -> ContractError:
    return ContractError(
        "binary_file",
        f"'{path}' contains NUL bytes: it is a binary file, not text",
        field="path",
        received=path,
        suggestion="read_lines reads text files only; choose a source or text file",
    )


#: JSON Schema of ``data`` in a successful read_lines result.
READ_LINES_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["path", "start", "lines", "total_lines", "has_more"],
    "additionalProperties": False,
    "properties": {
        "path": {"type": "string"},
        "start": {"type": "integer", "minimum": 1},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["number", "text"],
                "additionalProperties": False,
                "properties": {
                    "number": {"type": "integer", "minimum": 1},
                    "text": {"type": "string"},
                    "truncated": {"const": True},
                },
            },
        },
        "total_lines": {"type": "integer", "minimum": 0},
        "has_more": {"type": "boolean"},
    },
}


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "workspace", "resource": data["path"]}


#: read_lines, declared once: for registries (bound with :func:`read_lines_tool`),
#: linters and exports.
def resolve_path(context: ReadContext, args: Mapping[str, Any]) -> str | None:
    """The resolve step: the workspace name ``args["path"]`` leads to after its symlinks,
    found by name (nothing opened), for the authorization's resolution station."""
    return resolve_name_beneath(context.root, args["path"])


READ_LINES_SPEC = ToolSpec(
    name=TOOL_NAME,
    title="Read lines of a workspace file",
    description=READ_LINES_DESCRIPTION,
    input_schema=READ_LINES_SCHEMA,
    annotations=READ_ONLY_LOCAL,
    access=workspace_access("read"),
    output_schema=READ_LINES_DATA_SCHEMA,
    check=check_readable,
    execute=read_requested_lines,
    source=_source,
    value_error=read_lines_value_error,
    untrusted_fields=frozenset({"lines[].text"}),
    resolve=resolve_path,
)


def read_lines_tool(
    root: str | os.PathLike[str], *, limits: ReadLimits = ReadLimits(), method: Method | None = None
) -> ToolSpec:
    """read_lines bound to the workspace ``root``: ready for a :class:`Registry`."""
    return READ_LINES_SPEC.bind(ReadContext(root, limits, method))


def read_lines(
    root: str | os.PathLike[str],
    args: Any,
    *,
    limits: ReadLimits = ReadLimits(),
    method: Method | None = None,
) -> Envelope:
    """Read ``args["count"]`` lines from ``args["start"]`` (1-based) of a text file in ``root``.

    ``args`` is the raw argument object a model sent: ``{"path", "start", "count"}``.
    Returns the result envelope; on success ``data`` holds ``path``, ``start``, ``lines``
    (``[{"number", "text"}]`` with real line numbers), ``total_lines`` and ``has_more``.
    Reading past the end succeeds with no lines. Bad input of any kind returns a failure
    envelope with one code from :data:`tutorial_lib.core.contracts.CATALOGUE`; nothing raises.

    A direct call is the same tool on the same road: a host of one tool
    (:class:`tutorial_lib.core.host.Host`).
    """
    tool = read_lines_tool(root, limits=limits, method=method)
    return Host(Registry([tool])).call(TOOL_NAME, args)


def validate_with_schema(args: Any) -> ContractError | None:
    """The road's schema check for read_lines, alone: the first contract error, or None."""
    return READ_LINES_SPEC.arguments.validate(args)
