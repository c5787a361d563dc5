"""Rule tables of chapter 04's exercises (see tests/rule_harness.py): for each rule, an
answer a learner could write that breaks only that rule.

The cursor exercise has two functions. ``make_cursor`` is checked on its own (the token
cases) and, for the rule that the position is encoded whole, through a round trip with the
reference ``read_cursor``; ``read_cursor`` is checked through ``round_trip``, as in the
notebook, joined with the reference ``make_cursor`` (or, for the key rule, with the
learner's own checksum-based ``make_cursor``: the pair a learner would write; likewise for
the range rules, a pair that packs the position into 8 bytes with ``struct``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import struct
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.course.chapters.ch04_paged_summaries.cases import (
    CURSOR_CASES,
    CURSOR_TOKEN_CASES,
    MAKE_CURSOR_RULES,
    READ_ALL_CASES,
    READ_ALL_RULES,
    READ_CURSOR_RULES,
    cursor_hidden_cases,
    cursor_round_trip,
    read_all_hidden_cases,
    reference_make_cursor,
    reference_read_all,
    reference_read_cursor,
    token_hidden_cases,
)
from tutorial_lib.course.checks import Case

# ---------------------------------------------------------------------- read_all


def _read_all(flaw: str) -> Callable[..., dict[str, Any]]:
    def read_all(list_page: Callable[..., Any], max_pages: int) -> dict[str, Any]:
        ids: list[Any] = []
        cursor, pages, counted = None, 0, 0
        while pages < max_pages or (flaw == "one_more" and pages == max_pages):
            data = list_page(cursor)["data"]
            pages += 1
            counted += bool(data["comments"]) if flaw == "count_nonempty" else 1
            ids += [comment["comment_id"] for comment in data["comments"]]
            if flaw == "build_cursor":
                cursor = f"c{pages}" if data["next_cursor"] else None
            else:
                cursor = data["next_cursor"]
            if flaw == "budget_first" and pages == max_pages:
                break
            if flaw == "empty_is_end" and not data["comments"]:
                return _done(ids, counted, flaw)
            if data["coverage"] == "complete" and flaw != "ignore_complete":
                return _done(ids, counted, flaw)
        if flaw == "ignore_complete" and cursor is None:
            return _done(ids, counted, flaw)
        return {
            "comment_ids": sorted(ids) if flaw == "sorted" else ids,
            "pages_read": counted,
            "coverage": "partial",
            "next_cursor": None if flaw == "hide_cursor" else cursor,
        }

    return read_all


def _done(ids: list[Any], pages: int, flaw: str) -> dict[str, Any]:
    return {
        "comment_ids": sorted(ids) if flaw == "sorted" else ids,
        "pages_read": pages,
        "coverage": "complete",
        "next_cursor": None,
    }


READ_ALL_MUTANTS = {
    "按顺序收集 comment_id": _read_all("sorted"),
    "游标原样传回": _read_all("build_cursor"),
    "complete 时停下": _read_all("ignore_complete"),
    "空页还有游标就继续": _read_all("empty_is_end"),
    "读满 max_pages 页就停": _read_all("one_more"),
    "预算用尽时如实报告": _read_all("hide_cursor"),
    "最后一页正好是第 max_pages 页": _read_all("budget_first"),
    "pages_read 数的是读过的页": _read_all("count_nonempty"),
}

# --------------------------------------------------------------------- make_cursor


def _b64(blob: bytes) -> str:
    return base64.urlsafe_b64encode(blob).decode().rstrip("=")


def _sign(position: int, key: bytes) -> bytes:
    payload = str(position).encode()
    return hmac.new(key, payload, hashlib.sha256).digest() + payload


def _with_key(encode: Callable[[bytes], bytes]) -> Callable[[int, bytes], str]:
    """A cursor that carries the key, encoded, after the position (``"<position>.<key>"``)."""

    def make_cursor(position: int, key: bytes) -> str:
        return _b64(_sign(position, key) + b"." + encode(key))

    return make_cursor


MAKE_CURSOR_MUTANTS = {
    "位置完整地编码进游标": lambda position, key: reference_make_cursor(position % 2**32, key),
    "只用 URL 安全的字符": lambda position, key: (
        base64.b64encode(_sign(position, key)).decode().rstrip("=")
    ),
    "去掉末尾的 =": lambda position, key: base64.urlsafe_b64encode(_sign(position, key)).decode(),
    "密钥不在游标里（原文）": _with_key(lambda key: key),
    "密钥不在游标里（base64）": _with_key(base64.b64encode),
    "密钥不在游标里（十六进制）": _with_key(lambda key: key.hex().encode()),
    "密钥不在游标里（URL 编码）": _with_key(lambda key: urllib.parse.quote(key).encode()),
}


def _with_reference_reader(cases: Sequence[Case]) -> tuple[Case, ...]:
    """Round-trip cases that call a ``make_cursor`` with the reference ``read_cursor``."""

    def via(make_cursor: Callable[..., Any], *args: Any) -> Any:
        return cursor_round_trip(make_cursor, reference_read_cursor)(*args)

    return tuple(replace(case, via=via) for case in cases)


# --------------------------------------------------------------------- read_cursor

_URL_SAFE = re.compile(r"[A-Za-z0-9_-]*")


def _read_cursor(flaw: str) -> Callable[[Any, bytes], Any]:
    def read_cursor(token: Any, key: bytes) -> Any:
        if flaw == "no_try":  # the alphabet is checked, the length is not
            if not _URL_SAFE.fullmatch(token):
                return None
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        elif flaw == "length_only":  # the length is checked, the alphabet is not
            if len(token) % 4 == 1:
                return None
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        else:
            try:
                raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            except (binascii.Error, ValueError):
                return None
        if flaw != "no_canonical" and _b64(raw) != token:
            return None
        tag, payload = raw[:32], raw[32:]
        expected = hmac.new(key, payload, hashlib.sha256).digest()
        if flaw == "half_tag":
            tag, expected = tag[:16], expected[:16]
        if not payload or not hmac.compare_digest(tag, expected):
            return None
        text = payload.decode("ascii", errors="replace")
        if not text.isdigit():
            return None
        if flaw == "text":
            return text
        if flaw == "zero_is_none":
            return int(text) or None
        return int(text)

    return read_cursor


def _checksum_make(position: int, key: bytes) -> str:
    payload = str(position).encode()
    return _b64(hashlib.sha256(payload).digest() + payload)


def _checksum_read(token: Any, key: bytes) -> Any:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None
    if _b64(raw) != token:
        return None
    tag, payload = raw[:32], raw[32:]
    if not payload or not hmac.compare_digest(tag, hashlib.sha256(payload).digest()):
        return None
    text = payload.decode("ascii", errors="replace")
    return int(text) if text.isdigit() else None


def _fixed_width(fmt: str) -> Callable[..., Any]:
    """``round_trip`` of a learner's pair that packs the position with ``struct`` ``fmt``
    (8 bytes: ``">q"`` signed, ``">Q"`` unsigned) instead of writing its digits; correct
    otherwise, so it breaks only the range rule that ``fmt`` cannot hold."""

    def make_cursor(position: int, key: bytes) -> str:
        payload = struct.pack(fmt, position)  # struct.error past the format's range
        return _b64(hmac.new(key, payload, hashlib.sha256).digest() + payload)

    def read_cursor(token: Any, key: bytes) -> Any:
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            return None
        if _b64(raw) != token:
            return None
        tag, payload = raw[:32], raw[32:]
        expected = hmac.new(key, payload, hashlib.sha256).digest()
        if len(payload) != 8 or not hmac.compare_digest(tag, expected):
            return None
        return struct.unpack(fmt, payload)[0]

    return cursor_round_trip(make_cursor, read_cursor)


def _trip(read_cursor: Callable[..., Any]) -> Callable[..., Any]:
    return cursor_round_trip(reference_make_cursor, read_cursor)


READ_CURSOR_MUTANTS = {
    "签名正确时返回位置（int）": _trip(_read_cursor("text")),
    "位置没有上限（2**63 及以上）": _fixed_width(">q"),
    "位置没有上限（2**64 及以上）": _fixed_width(">Q"),
    "位置 0 也是位置": _trip(_read_cursor("zero_is_none")),
    "改哪一个字符都算": _trip(_read_cursor("half_tag")),
    "解码出同样字节的另一种写法也是改动": _trip(_read_cursor("no_canonical")),
    "截断时返回 None": _trip(_read_cursor("no_try")),
    "不是合法的编码时返回 None": _trip(_read_cursor("length_only")),
    "换了密钥时返回 None": cursor_round_trip(_checksum_make, _checksum_read),
}

EXERCISES: list[Exercise] = [
    Exercise(
        name="04.read_all",
        rules=READ_ALL_RULES,
        visible=READ_ALL_CASES,
        hidden=lambda: read_all_hidden_cases(),
        reference=reference_read_all,
        mutants=READ_ALL_MUTANTS,
    ),
    Exercise(
        name="04.make_cursor",
        rules=MAKE_CURSOR_RULES,
        visible=CURSOR_TOKEN_CASES + _with_reference_reader(CURSOR_CASES),
        hidden=lambda: token_hidden_cases() + _with_reference_reader(cursor_hidden_cases()),
        reference=reference_make_cursor,
        mutants=MAKE_CURSOR_MUTANTS,
    ),
    Exercise(
        name="04.read_cursor",
        rules=READ_CURSOR_RULES,
        visible=CURSOR_CASES,
        hidden=lambda: cursor_hidden_cases(),
        reference=cursor_round_trip(reference_make_cursor, reference_read_cursor),
        mutants=READ_CURSOR_MUTANTS,
    ),
]
