"""Chapter 04's exercises: read every page within a budget; a signed, URL-safe cursor.

- ``read_all(list_page, max_pages)`` follows ``next_cursor`` through a
  :class:`FakeListing` (shaped like ``github_pr_list_comments``) until ``coverage`` is
  ``complete``, or stops honestly at the budget. :data:`READ_ALL_CASES` has one case per
  rule; its cursors can be made unguessable (``prefix``), so building ``"c2"`` by hand fails.
- ``make_cursor(position, key)`` / ``read_cursor(token, key)``: an HMAC-signed cursor.
  :func:`cursor_round_trip` joins the learner's two functions into one ``round_trip``
  checked by :data:`CURSOR_CASES` (every alteration refused, another key refused, a position
  of any size read back: 2**63 and 2**64 too), and
  :data:`CURSOR_TOKEN_CASES` checks the token itself as the security point it is: a
  string of URL-safe characters only, from which the key cannot be read back.

``READ_ALL_RULES``, ``MAKE_CURSOR_RULES`` and ``READ_CURSOR_RULES`` list every rule the
task text states, each with the visible case that fails an answer breaking only it
(tests/rules_04.py holds those answers).

References (``reference_*``) and seeded hidden cases (``*_hidden_cases``) compare a
learner's functions with them on generated inputs.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import random
import re
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.language import Text

__all__ = [
    "CURSOR_CASES",
    "CURSOR_TOKEN_CASES",
    "KEY",
    "MAKE_CURSOR_RULES",
    "OTHER_KEY",
    "READ_ALL_CASES",
    "READ_ALL_RULES",
    "READ_CURSOR_RULES",
    "FakeListing",
    "cursor_hidden_cases",
    "cursor_round_trip",
    "read_all_hidden_cases",
    "reference_make_cursor",
    "reference_read_all",
    "reference_read_cursor",
    "token_hidden_cases",
    "token_report",
]


@dataclass(frozen=True)
class FakeListing:
    """A fake list-comments tool: ``pages`` are the comment ids of each page.

    ``listing(cursor)`` returns an envelope shaped like ``github_pr_list_comments``: the
    first page for ``cursor=None``, page ``k`` (from 0) for ``f"{prefix}{k}"``; the last
    page says ``coverage: complete`` and ``next_cursor: None``.
    """

    pages: tuple[tuple[int, ...], ...]
    prefix: str = "c"

    @classmethod
    def of(cls, *pages: Sequence[int], prefix: str = "c") -> FakeListing:
        return cls(tuple(tuple(p) for p in pages), prefix)

    def __call__(self, cursor: str | None = None) -> dict[str, Any]:
        index = self._index(cursor)
        last = index == len(self.pages) - 1
        data = {
            "coverage": "complete" if last else "partial",
            "next_cursor": None if last else f"{self.prefix}{index + 1}",
            "comments": [{"comment_id": i} for i in self.pages[index]],
        }
        return {"schema_version": 1, "ok": True, "tool": "github_pr_list_comments", "data": data}

    def _index(self, cursor: str | None) -> int:
        if cursor is None:
            return 0
        if isinstance(cursor, str) and cursor.startswith(self.prefix):
            digits = cursor[len(self.prefix) :]
            if digits.isdigit() and 0 < int(digits) < len(self.pages):
                return int(digits)
        raise KeyError(f"unknown cursor {cursor!r}: pass back the next_cursor you received")

    def __repr__(self) -> str:
        prefix = "" if self.prefix == "c" else f", prefix={self.prefix!r}"
        return f"FakeListing({[list(p) for p in self.pages]}{prefix})"


def reference_read_all(list_page: Callable[..., Any], max_pages: int) -> dict[str, Any]:
    """The reference ``read_all``: follow cursors to ``complete`` or stop at the budget."""
    ids: list[Any] = []
    cursor, pages = None, 0
    while pages < max_pages:
        data = list_page(cursor)["data"]
        pages += 1
        ids += [comment["comment_id"] for comment in data["comments"]]
        cursor = data["next_cursor"]
        if data["coverage"] == "complete":
            return {
                "comment_ids": ids,
                "pages_read": pages,
                "coverage": "complete",
                "next_cursor": None,
            }
    return {"comment_ids": ids, "pages_read": pages, "coverage": "partial", "next_cursor": cursor}


def _result(ids: list[int], pages: int, coverage: str, cursor: str | None = None) -> dict[str, Any]:
    return {"comment_ids": ids, "pages_read": pages, "coverage": coverage, "next_cursor": cursor}


READ_ALL_CASES: tuple[Case, ...] = (
    Case(
        Text(zh="一页就读完", en="one page and done"),
        (FakeListing.of([1, 2]), 5),
        _result([1, 2], 1, "complete"),
        Text(
            zh="第一页的 coverage 已经是 complete：停下，next_cursor 为 None。",
            en="The first page's coverage is already complete: stop, with next_cursor None.",
        ),
    ),
    Case(
        Text(zh="三页读完", en="done in three pages"),
        (FakeListing.of([1], [2, 3], [4]), 5),
        _result([1, 2, 3, 4], 3, "complete"),
        Text(
            zh="把 next_cursor 原样传回 list_page，直到 coverage 为 complete。",
            en="Pass next_cursor back to list_page unchanged until coverage is complete.",
        ),
    ),
    Case(
        Text(zh="中间一页是空的", en="an empty page in the middle"),
        (FakeListing.of([1], [], [2]), 5),
        _result([1, 2], 3, "complete"),
        Text(
            zh="空页加游标不等于结尾：看 coverage，不看这一页有没有评论。",
            en="An empty page with a cursor is not the end: look at coverage, not at whether this"
            " page has comments.",
        ),
    ),
    Case(
        Text(zh="第一页是空的", en="the first page is empty"),
        (FakeListing.of([], [7]), 5),
        _result([7], 2, "complete"),
        Text(
            zh="第一页为空也不是结尾：coverage 还是 partial，继续读。",
            en="An empty first page is not the end either: coverage is still partial, so keep"
            " reading.",
        ),
    ),
    Case(
        Text(zh="没有任何评论", en="no comments at all"),
        (FakeListing.of([]), 5),
        _result([], 1, "complete"),
        Text(
            zh="空结果也是完整的结果：comment_ids 为空，coverage 是 complete。",
            en="An empty result is a complete result too: comment_ids is empty and coverage is"
            " complete.",
        ),
    ),
    Case(
        Text(zh="预算用尽", en="budget used up"),
        (FakeListing.of([1], [2], [3]), 2),
        _result([1, 2], 2, "partial", "c2"),
        Text(
            zh="读了 max_pages 页还没完：如实返回 partial 和下一次该用的游标。",
            en="max_pages pages read and still not done: honestly return partial and the cursor"
            " to use next.",
        ),
    ),
    Case(
        Text(zh="预算刚好够", en="the budget is just enough"),
        (FakeListing.of([1], [2]), 2),
        _result([1, 2], 2, "complete"),
        Text(
            zh="最后一页正好是第 max_pages 页时，结果是 complete。",
            en="When the last page is exactly page max_pages, the result is complete.",
        ),
    ),
    Case(
        Text(zh="预算用尽在一个空页上", en="budget used up on an empty page"),
        (FakeListing.of([1], [], [2]), 2),
        _result([1], 2, "partial", "c2"),
        Text(
            zh="两条规则同时出现：空页不是结尾，但预算到了就停下，返回 partial 和游标。",
            en="Two rules at once: an empty page is not the end, but once the budget is used up"
            " you stop and return partial with the cursor.",
        ),
    ),
    Case(
        Text(zh="评论 id 按读到的顺序", en="comment ids in the order read"),
        (FakeListing.of([5, 3], [9, 1]), 5),
        _result([5, 3, 9, 1], 2, "complete"),
        Text(
            zh="comment_ids 按页、按页内的顺序收集：不要排序，也不要去重。",
            en="Collect comment_ids page by page, in each page's order: do not sort them and do"
            " not remove duplicates.",
        ),
    ),
    Case(
        Text(zh="游标要原样传回", en="the cursor is passed back unchanged"),
        (FakeListing.of([1], [2], [3], prefix="q9Z_"), 5),
        _result([1, 2, 3], 3, "complete"),
        Text(
            zh="游标是不透明的：不要自己拼出下一页的游标，把收到的 next_cursor 原样传回。",
            en="A cursor is opaque: do not build the next page's cursor yourself; pass back the"
            " next_cursor you received, unchanged.",
        ),
    ),
)


def read_all_hidden_cases(seed: int = 0, count: int = 120) -> tuple[Case, ...]:
    """``count`` seeded listings and budgets; expected from :func:`reference_read_all`."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        pages = [
            [rng.randint(1, 999) for _ in range(rng.choice((0, 0, 1, 2, 3)))]
            for _ in range(rng.randint(1, 6))
        ]
        listing = FakeListing.of(*pages, prefix=rng.choice(("c", "page-", "Xq_")))
        budget = rng.randint(1, 7)
        cases.append(
            Case(
                Text(zh=f"生成的列表 {index + 1}", en=f"generated listing {index + 1}"),
                (listing, budget),
                reference_read_all(listing, budget),
                Text(
                    zh="和参考实现不一致：对照练习说明里的每条规则检查这个输入。",
                    en="Differs from the reference implementation: check this input against each"
                    " rule in the exercise's instructions.",
                ),
            )
        )
    return tuple(cases)


# ------------------------------------------------------------------------- cursors

KEY = b"server-secret-key-0123456789abcd"
OTHER_KEY = b"another-servers-key-0123456789ab"
_URL_SAFE = re.compile(r"[A-Za-z0-9_-]*")
_TAG_BYTES = 32


def _b64(blob: bytes) -> str:
    return base64.urlsafe_b64encode(blob).decode("ascii").rstrip("=")


def reference_make_cursor(position: int, key: bytes) -> str:
    """The reference: ``urlsafe_b64(HMAC-SHA256(key, payload) || payload)`` without '='."""
    payload = str(position).encode()
    return _b64(hmac.new(key, payload, hashlib.sha256).digest() + payload)


def reference_read_cursor(token: Any, key: bytes) -> int | None:
    """The position in an authentic cursor; None for any other text (never raises)."""
    if not isinstance(token, str) or not _URL_SAFE.fullmatch(token):
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None
    if _b64(raw) != token:  # another text for the same bytes is an altered cursor too
        return None
    tag, payload = raw[:_TAG_BYTES], raw[_TAG_BYTES:]
    if not payload or not hmac.compare_digest(tag, hmac.new(key, payload, hashlib.sha256).digest()):
        return None
    text = payload.decode("ascii", errors="replace")
    return int(text) if text.isdigit() else None


def _replace(token: str, index: int) -> str:
    new = "A" if token[index] != "A" else "B"
    return token[:index] + new + token[index + 1 :]


def _alter(token: str, how: str) -> Any:
    if how == "flip_last":
        return _replace(token, len(token) - 1)
    if how == "flip_first":
        return _replace(token, 0)
    if how == "truncate":
        return token[:-4]
    if how.startswith("truncate_"):  # cut n characters: the length may stop being valid base64
        return token[: -int(how.removeprefix("truncate_"))]
    if how == "append":
        return token + "AA"
    if how == "garbage":
        return "%%%not-base64%%%"
    if how == "empty":
        return ""
    if how == "same_bytes":
        return _same_bytes(token)
    return token


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _same_bytes(token: str) -> str:
    """Another text that a lenient base64 decoder reads as the same bytes.

    When the unpadded length leaves a partial group (length % 4 is 2 or 3), the last
    character carries bits that no byte uses; toggling the lowest of them changes the text
    but not the bytes. Without such bits (or outside base64) the last character changes.
    """
    last = token[-1:]
    if len(token) % 4 in (2, 3) and last and last in _ALPHABET:
        return token[:-1] + _ALPHABET[_ALPHABET.index(last) ^ 1]
    return _replace(token, len(token) - 1)


def cursor_round_trip(
    make_cursor: Callable[[int, bytes], Any], read_cursor: Callable[[Any, bytes], Any]
) -> Callable[..., Any]:
    """Join the learner's two functions into ``round_trip(position, how, read_key)``.

    It makes a cursor with :data:`KEY`, alters it as ``how`` says and reads it back with
    ``read_key``. ``how="every_char"`` changes each character in turn and returns the
    list of ``(index, value)`` that ``read_cursor`` did *not* refuse (expected: ``[]``).
    """

    def round_trip(position: int, how: str = "none", read_key: bytes = KEY) -> Any:
        token = make_cursor(position, KEY)
        if how == "every_char":
            accepted = []
            for index in range(len(token)):
                value = read_cursor(_replace(token, index), read_key)
                if value is not None:
                    accepted.append((index, value))
            return accepted
        return read_cursor(_alter(token, how), read_key)

    return round_trip


CURSOR_CASES: tuple[Case, ...] = (
    Case(
        Text(zh="原样读回", en="read back unchanged"),
        (1700000042,),
        1700000042,
        Text(
            zh="make_cursor 和 read_cursor 要互为逆运算。",
            en="make_cursor and read_cursor must undo each other.",
        ),
    ),
    Case(
        Text(zh="位置 0 也能读回", en="position 0 reads back too"),
        (0,),
        0,
        Text(
            zh="0 是合法的位置：不要用 `if not position` 判断。",
            en="0 is a valid position: do not test it with `if not position`.",
        ),
    ),
    Case(
        Text(zh="很大的位置", en="a large position"),
        (2**62 + 5,),
        2**62 + 5,
        Text(
            zh="位置可以很大：编码时不要截断它。",
            en="A position can be large: do not truncate it when encoding.",
        ),
    ),
    Case(
        Text(
            zh="位置 2**63（有符号 64 位整数装不下）",
            en="position 2**63 (too big for a signed 64-bit integer)",
        ),
        (2**63,),
        2**63,
        Text(
            zh=(
                "位置没有上限：2**63 超出了有符号 64 位整数的范围（struct 的 'q'、"
                "to_bytes(8, signed=True)），装不下就抛异常或读回负数。"
            ),
            en="A position has no upper limit: 2**63 is beyond the range of a signed 64-bit"
            " integer (struct's 'q', to_bytes(8, signed=True)); an encoding that cannot hold it"
            " raises or reads back a negative number.",
        ),
    ),
    Case(
        Text(
            zh="位置 2**64（64 位整数装不下）", en="position 2**64 (too big for a 64-bit integer)"
        ),
        (2**64,),
        2**64,
        Text(
            zh=(
                "位置没有上限：2**64 连无符号 64 位整数（struct 的 'Q'、to_bytes(8)）也装不下，"
                "编码不能假定位置只有 8 个字节。"
            ),
            en="A position has no upper limit: 2**64 does not fit even in an unsigned 64-bit"
            " integer (struct's 'Q', to_bytes(8)); the encoding cannot assume that a position"
            " takes only 8 bytes.",
        ),
    ),
    Case(
        Text(zh="改了最后一个字符", en="last character changed"),
        (1700000042, "flip_last"),
        None,
        Text(
            zh="任何改动都要让签名对不上：返回 None。",
            en="Any change must make the signature fail to match: return None.",
        ),
    ),
    Case(
        Text(
            zh="换一种写法，解码出同样的字节", en="another spelling that decodes to the same bytes"
        ),
        (170000004, "same_bytes"),
        None,
        Text(
            zh=(
                "base64 末尾字符可能有几位不用：改了它，宽松的解码仍得到同样的字节。"
                "解码后再编码一次，和收到的文本不同就拒绝。"
            ),
            en="The last base64 character may carry a few unused bits: change them and a lenient"
            " decoder still gives the same bytes. Encode again after decoding, and refuse the"
            " cursor if that differs from the text you received.",
        ),
    ),
    Case(
        Text(zh="改了第一个字符", en="first character changed"),
        (1700000042, "flip_first"),
        None,
        Text(
            zh="签名要覆盖整个载荷，改哪一处都不行。",
            en="The signature must cover the whole payload: a change anywhere must fail.",
        ),
    ),
    Case(
        Text(zh="逐个改每一个字符", en="every character changed in turn"),
        (1700000042, "every_char"),
        [],
        Text(
            zh="列出的是改了以后仍被接受的位置：签名（HMAC）必须覆盖位置本身，签名本身也要校验。",
            en="Listed are the character indexes where a changed cursor was still accepted: the"
            " signature (HMAC) must cover the position itself, and the signature itself must be"
            " verified too.",
        ),
    ),
    Case(
        Text(zh="截断", en="truncated"),
        (1700000042, "truncate"),
        None,
        Text(
            zh="长度不对或签名不完整：返回 None，不要抛异常。",
            en="A wrong length or an incomplete signature: return None, do not raise.",
        ),
    ),
    Case(
        Text(zh="截断 3 个字符", en="3 characters cut off"),
        (1700000042, "truncate_3"),
        None,
        Text(
            zh="截断后的长度可能不是合法的 base64 长度：解码失败也是截断，返回 None，不要抛异常。",
            en="After truncation the length may not be a valid base64 length: a failed decode is"
            " a truncation too; return None, do not raise.",
        ),
    ),
    Case(
        Text(zh="多了字符", en="extra characters"),
        (1700000042, "append"),
        None,
        Text(zh="多出来的内容也是改动。", en="Extra content is a change too."),
    ),
    Case(
        Text(zh="不是合法编码", en="not a valid encoding"),
        (1700000042, "garbage"),
        None,
        Text(
            zh="解码失败时返回 None，不要抛异常。",
            en="When decoding fails, return None; do not raise.",
        ),
    ),
    Case(
        Text(zh="空字符串", en="empty string"),
        (1700000042, "empty"),
        None,
        Text(
            zh="空字符串不是游标：返回 None。", en="An empty string is not a cursor: return None."
        ),
    ),
    Case(
        Text(zh="换了密钥", en="another key"),
        (1700000042, "none", OTHER_KEY),
        None,
        Text(
            zh="别的服务签发的游标不能通过校验：签名要用 key 算（HMAC），不能只是一个校验和。",
            en="A cursor issued by another service must not pass the check: compute the signature"
            " with key (HMAC), not as a mere checksum.",
        ),
    ),
)


#: The three questions :func:`token_report` answers about a token (a report shows each in
#: the current language; the same objects key the expected and the learner's answers).
_IS_STRING = Text(zh="是字符串", en="is a string")
_URL_SAFE_ONLY = Text(
    zh="只用 URL 安全的字符（A-Z a-z 0-9 - _）",
    en="uses URL-safe characters only (A-Z a-z 0-9 - _)",
)
_KEY_UNREADABLE = Text(zh="从游标里读不出密钥", en="the key cannot be read from the cursor")


def token_report(key: bytes) -> Callable[[Any], dict[Text, bool]]:
    """A ``key`` for a token made with ``key``: string? URL-safe? key unreadable?"""

    def report(token: Any) -> dict[Text, bool]:
        text = token if isinstance(token, str) else ""
        return {
            _IS_STRING: isinstance(token, str),
            _URL_SAFE_ONLY: bool(text) and bool(_URL_SAFE.fullmatch(text)),
            _KEY_UNREADABLE: isinstance(token, str) and not _reveals(text, key),
        }

    return report


def _key_forms(key: bytes) -> set[bytes]:
    """``key`` as it could be carried: plain, hex (either case), base64 (standard or URL-safe,
    with or without '='), URL-encoded (``quote`` and ``quote_plus``)."""
    return {
        key,
        key.hex().encode(),
        key.hex().upper().encode(),
        base64.b64encode(key),
        base64.b64encode(key).rstrip(b"="),
        base64.urlsafe_b64encode(key),
        base64.urlsafe_b64encode(key).rstrip(b"="),
        urllib.parse.quote(key, safe="").encode(),
        urllib.parse.quote_plus(key).encode(),
    }


def _reveals(token: str, key: bytes) -> bool:
    """Whether ``key`` can be read from ``token``: in any of its encoded forms, in the
    token's text or in what the token decodes to (base64, hex or URL-decoding)."""
    blobs = [token.encode("utf-8", errors="replace"), token.encode("latin-1", errors="replace")] + [
        decode(token) for decode in (_loose_b64, _loose_std_b64, _loose_hex, _unquoted)
    ]
    return any(form in blob for form in _key_forms(key) for blob in blobs if blob)


def _unquoted(token: str) -> bytes:
    return urllib.parse.unquote_to_bytes(token)


def _loose_b64(token: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return b""


def _loose_std_b64(token: str) -> bytes:
    try:
        return base64.b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return b""


def _loose_hex(token: str) -> bytes:
    try:
        return bytes.fromhex(token)
    except ValueError:
        return b""


_TOKEN_POSITIONS = (1700000042, 0, 987654321987)

CURSOR_TOKEN_CASES: tuple[Case, ...] = tuple(
    Case(
        Text(
            zh=f"游标是 URL 安全的不透明字符串（位置 {position}）",
            en=f"the cursor is a URL-safe opaque string (position {position})",
        ),
        (position, KEY),
        {_IS_STRING: True, _URL_SAFE_ONLY: True, _KEY_UNREADABLE: True},
        Text(
            zh=(
                "游标会出现在 URL 和日志里：用 base64.urlsafe_b64encode 并去掉末尾的 '='（它在"
                " URL 里要转义）；密钥只用来算签名，绝不能放进游标，哪怕编码过。"
            ),
            en="A cursor appears in URLs and logs: use base64.urlsafe_b64encode and strip the"
            " trailing '=' (it must be escaped in a URL); the key only computes the signature"
            " and must never go into the cursor, not even encoded.",
        ),
        key=token_report(KEY),
    )
    for position in _TOKEN_POSITIONS
)


#: Positions where a fixed-size encoding stops: 64 bits signed, then unsigned.
_BOUNDARIES = (2**63, 2**64)


def cursor_hidden_cases(seed: int = 0, count: int = 72) -> tuple[Case, ...]:
    """``count`` seeded positions and keys, altered in every way; expected from the reference.

    Each case calls ``round_trip`` (made with :func:`cursor_round_trip`) for a random key;
    the expected value is what the reference functions give for the same change. Then the
    range: each position one below, at and one above 2**63 and 2**64, and one seeded
    position between 2**64 and 2**128, read back as it is and with its last character
    changed (14 more cases).
    """
    rng = random.Random(seed)
    hows = (
        "none",
        "every_char",
        "truncate",
        "truncate_1",
        "truncate_2",
        "truncate_3",
        "append",
        "same_bytes",
        "flip_first",
        "flip_last",
        "garbage",
        "other_key",
    )
    cases = []
    for index in range(count):
        position = rng.choice((0, rng.randint(1, 10**6), rng.randint(10**9, 2**63)))
        how = hows[index % len(hows)]
        reference = cursor_round_trip(reference_make_cursor, reference_read_cursor)
        read_key = OTHER_KEY if how == "other_key" else KEY
        args = (position, "none" if how == "other_key" else how, read_key)
        cases.append(
            Case(
                Text(
                    zh=f"生成的游标 {index + 1}（{how}）",
                    en=f"generated cursor {index + 1} ({how})",
                ),
                args,
                reference(*args),
                Text(
                    zh="和参考实现不一致：原样读回要得到位置，任何改动或别的密钥都要得到 None。",
                    en="Differs from the reference implementation: an unchanged cursor reads back"
                    " as its position; any change, or another key, gives None.",
                ),
            )
        )
    reference = cursor_round_trip(reference_make_cursor, reference_read_cursor)
    near = [edge + step for edge in _BOUNDARIES for step in (-1, 0, 1)]
    for position in [*near, rng.randint(2**64, 2**128)]:
        for how in ("none", "flip_last"):
            cases.append(
                Case(
                    Text(
                        zh=f"生成的游标 {len(cases) + 1}（{how}，2**63、2**64 附近）",
                        en=f"generated cursor {len(cases) + 1} ({how}, around 2**63, 2**64)",
                    ),
                    (position, how, KEY),
                    reference(position, how, KEY),
                    Text(
                        zh=(
                            "和参考实现不一致：位置没有上限，2**63、2**64 及以上也要原样读回；"
                            "改动过的照样得到 None。"
                        ),
                        en="Differs from the reference implementation: a position has no upper"
                        " limit, so 2**63, 2**64 and above must read back unchanged; a changed"
                        " cursor still gives None.",
                    ),
                )
            )
    return tuple(cases)


def token_hidden_cases(seed: int = 0, count: int = 40) -> tuple[Case, ...]:
    """``count`` seeded random keys and positions for ``make_cursor`` (see :func:`token_report`)."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        key = bytes(rng.randrange(256) for _ in range(32))
        position = rng.randint(0, 2**40)
        report = token_report(key)
        cases.append(
            Case(
                Text(
                    zh=f"生成的密钥与位置 {index + 1}", en=f"generated key and position {index + 1}"
                ),
                (position, key),
                report(reference_make_cursor(position, key)),
                Text(
                    zh="游标只用 URL 安全的字符，且读不出密钥。",
                    en="A cursor uses URL-safe characters only, and the key cannot be read from"
                    " it.",
                ),
                key=report,
            )
        )
    return tuple(cases)


READ_ALL_RULES: tuple[Rule, ...] = load_rules("04", "READ_ALL_RULES", READ_ALL_CASES)


MAKE_CURSOR_RULES: tuple[Rule, ...] = load_rules("04", "MAKE_CURSOR_RULES", ())


READ_CURSOR_RULES: tuple[Rule, ...] = load_rules("04", "READ_CURSOR_RULES", CURSOR_CASES)
