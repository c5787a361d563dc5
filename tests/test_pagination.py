"""Cursors: round trip, and every mutation, foreign key or other query is refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.core.contracts import ContractError
from tutorial_lib.github.pagination import CursorCodec, CursorQuery

KEY = b"k" * 32
QUERY = CursorQuery("example/shop", 128, "all", 10)
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def refused(codec: CursorCodec, token: object, query: CursorQuery = QUERY) -> ContractError:
    with pytest.raises(ContractError) as caught:
        codec.decode(token, query)
    error = caught.value
    assert error.code == "invalid_cursor"
    assert "without 'cursor'" in error.fields["suggestion"]
    return error


@given(after=st.integers(0, 2**53), offset=st.integers(0, 10**9))
def test_round_trip(after: int, offset: int) -> None:
    codec = CursorCodec(KEY)
    state = codec.decode(codec.encode(QUERY, after, offset), QUERY)
    assert (state.query, state.after_id, state.offset_hint) == (QUERY, after, offset)


def test_cursor_is_url_safe_and_short() -> None:
    token = CursorCodec(KEY).encode(QUERY, 1_700_000_042, 41)
    assert set(token) <= set(ALPHABET) and len(token) < 200


@settings(max_examples=300)
@given(data=st.data())
def test_any_mutation_is_refused(data: st.DataObject) -> None:
    codec = CursorCodec(KEY)
    token = codec.encode(QUERY, data.draw(st.integers(0, 2**40)), 7)
    kind = data.draw(st.sampled_from(["replace", "delete", "insert", "truncate", "append"]))
    i = data.draw(st.integers(0, len(token) - 1))
    char = data.draw(st.characters(codec="utf-8") | st.sampled_from(ALPHABET))
    mutated = {
        "replace": token[:i] + char + token[i + 1 :],
        "delete": token[:i] + token[i + 1 :],
        "insert": token[:i] + char + token[i:],
        "truncate": token[:i],
        "append": token + char,
    }[kind]
    if mutated != token:
        refused(codec, mutated)


def test_foreign_key_is_refused() -> None:
    token = CursorCodec(b"x" * 32).encode(QUERY, 5)
    assert "another server" in refused(CursorCodec(KEY), token).message


@pytest.mark.parametrize(
    "other",
    [
        CursorQuery("other/shop", 128, "all", 10),
        CursorQuery("example/shop", 129, "all", 10),
        CursorQuery("example/shop", 128, "unresolved", 10),
        CursorQuery("example/shop", 128, "all", 20),
    ],
)
def test_cursor_of_another_query_is_refused(other: CursorQuery) -> None:
    codec = CursorCodec(KEY)
    error = refused(codec, codec.encode(QUERY, 5), other)
    assert "another query" in error.message


@pytest.mark.parametrize("token", ["", "not a cursor", "a" * 2000, 42, None, "AAAA", "é"])
def test_garbage_is_refused(token: object) -> None:
    refused(CursorCodec(KEY), token)


def test_expiry() -> None:
    now = [1000.0]
    codec = CursorCodec(KEY, ttl_s=60, clock=lambda: now[0])
    token = codec.encode(QUERY, 5)
    assert codec.decode(token, QUERY).after_id == 5
    now[0] += 61
    assert "expired" in refused(codec, token).message


def test_short_keys_are_refused() -> None:
    with pytest.raises(ValueError):
        CursorCodec(b"short")
