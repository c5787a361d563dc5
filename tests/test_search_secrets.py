"""search_files and secret-bearing files: skipped unopened, counted, refused as a path.

A secret-bearing file (``.env``, keys, anything under ``credentials/``...: the policy
``SearchLimits.secrets``, a :class:`tutorial_lib.core.secrets.SecretPolicy`) needs its own
grant (``SearchLimits.search_secrets``). Without it the walk never opens such a file (no
match, no preview, no byte read) and counts it in ``files_skipped.secret``; a ``path``
naming one is ``permission_denied``. Every secret file of these tests holds SECRET, which
must never appear in a result; the near misses (templates, public keys, source files
*about* secrets) are searched as usual.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import ENVELOPE_SCHEMA
from tutorial_lib.core.secrets import DEFAULT_SECRET_POLICY, SecretPolicy
from tutorial_lib.workspace import search_match
from tutorial_lib.workspace.search import (
    SEARCH_FILES_DATA_SCHEMA,
    SEARCH_FILES_SPEC,
    SKIP_REASONS,
    SearchLimits,
    search_files,
)

SECRET = "SECRET-MARKER-9b1d-only-in-secret-files"
WORD = "needle"
ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DATA = Draft202012Validator(SEARCH_FILES_DATA_SCHEMA)
GRANTED = SearchLimits(search_secrets=True)

#: Secret-bearing files of the workspace (each holds WORD and SECRET), by the rule that
#: makes them secret.
SECRET_FILES = (
    ".env",  # .env
    "config/.env.production",  # .env.*
    "app/.ENV.Local",  # .env.*, ignoring case
    "config/server.PEM",  # *.pem, ignoring case
    "deploy/app.key",  # *.key
    "home/id_rsa",  # id_rsa*
    "credentials.json",  # credentials.json
    "credentials/aws.txt",  # under a directory named like a secret
    "credentials/nested/deep.md",
    "config/credentials/x",
    "secrets.yaml",  # secrets.yaml
)
#: Near misses: not secret, searched as usual.
PLAIN_FILES = (
    "src/app.py",
    "envy.txt",
    "my.env",
    "keys.txt",
    "secret.txt",
    "docs/pem.md",
    ".env.example",  # a template: placeholders, committed on purpose
    "config/.env.sample",
    "home/id_rsa.pub",  # the public half of a key pair
    "typeshed/stdlib/secrets.pyi",  # source about secrets is not a secret
    "src/secrets.py",
    "src/credentials.py",
    "tests/test_credentials.py",
    "credentials-old/readme.txt",  # a directory named like, not named, credentials
)


def call(root: Path, args: Any, **kw: Any) -> dict[str, Any]:
    """search_files, with the envelope and data checked against their schemas."""
    result = search_files(root, args, **kw)
    assert not list(ENVELOPE.iter_errors(result)), result
    if result["ok"]:
        assert not list(DATA.iter_errors(result["data"])), result["data"]
    return result


def write(root: Path, path: str, content: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with every file of SECRET_FILES (holding SECRET) and PLAIN_FILES."""
    root = tmp_path / "ws"
    root.mkdir()
    for path in SECRET_FILES:
        write(root, path, f"{WORD} {SECRET}\n")
    for path in PLAIN_FILES:
        write(root, path, f"{WORD}\n")
    return root


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every ``os.open`` of the test as (name, flags): the proof that a file stayed shut."""
    calls: list[tuple[str, int]] = []
    real = os.open

    def recording(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        calls.append((os.fsdecode(path), flags))
        return real(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", recording)
    return calls


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every read of a searched file (the module's seam), by size."""
    sizes: list[int] = []
    real = search_match.read_chunk

    def counting(fd: int, size: int) -> bytes:
        chunk = real(fd, size)
        sizes.append(len(chunk))
        return chunk

    monkeypatch.setattr(search_match, "read_chunk", counting)
    return sizes


def file_opens(calls: list[tuple[str, int]]) -> list[str]:
    """The names opened as files (not as directories, which are only listed)."""
    return [name for name, flags in calls if not flags & os.O_DIRECTORY]


# --------------------------------------------------------------------------- the walk


def test_secret_files_are_skipped_unopened_and_counted(
    ws: Path, opened: list[tuple[str, int]], reads: list[int]
) -> None:
    result = call(ws, {"query": WORD})
    data = result["data"]
    assert sorted(c["path"] for c in data["candidates"]) == sorted(PLAIN_FILES)
    assert data["files_searched"] == len(PLAIN_FILES)
    assert data["files_skipped"] == {
        "binary": 0,
        "too_large": 0,
        "symlink": 0,
        "hard_link": 0,
        "secret": len(SECRET_FILES),
        "other": 0,
    }
    assert SECRET not in json.dumps(result, ensure_ascii=False)
    names = [Path(path).name for path in SECRET_FILES]
    assert {Path(path).name for path in PLAIN_FILES} <= set(file_opens(opened))  # it sees
    assert not set(file_opens(opened)) & set(names), "a secret file was opened"
    assert len(reads) == len(PLAIN_FILES), "one read per plain file, none of a secret"


def test_files_beneath_a_secret_directory_are_skipped(
    ws: Path, opened: list[tuple[str, int]]
) -> None:
    # Plain names beneath credentials/: secret by their directory alone.
    write(ws, "credentials/plain.txt", f"{WORD} {SECRET}\n")
    write(ws, "a/CREDENTIALS/b/notes.txt", f"{WORD} {SECRET}\n")
    data = call(ws, {"query": WORD})["data"]
    paths = [c["path"] for c in data["candidates"]]
    assert not [p for p in paths if "credentials" in p.lower().split("/")[:-1]]
    assert "credentials-old/readme.txt" in paths  # named like, not named, credentials
    assert data["files_skipped"]["secret"] == len(SECRET_FILES) + 2
    assert not {"plain.txt", "notes.txt", "aws.txt", "deep.md"} & set(file_opens(opened))
    # The directory is listed (to count what it holds), never read as a file.
    assert ("credentials", os.O_DIRECTORY) in [(n, f & os.O_DIRECTORY) for n, f in opened]


def test_the_walk_agrees_with_the_policy(ws: Path) -> None:
    data = call(ws, {"query": WORD}, limits=SearchLimits(max_results_override=1000))["data"]
    found = {c["path"] for c in data["candidates"]}
    for path in (*SECRET_FILES, *PLAIN_FILES):
        assert (path not in found) == DEFAULT_SECRET_POLICY.is_secret(path), path


def test_the_operators_deny_list_adds_to_the_defaults(ws: Path) -> None:
    write(ws, "infra/prod.VAULT", f"{WORD} {SECRET}\n")
    limits = SearchLimits(secrets=SecretPolicy(deny=("*.vault", "docs")))
    result = call(ws, {"query": WORD}, limits=limits)
    paths = [c["path"] for c in result["data"]["candidates"]]
    assert "infra/prod.VAULT" not in paths and "docs/pem.md" not in paths
    assert result["data"]["files_skipped"]["secret"] == len(SECRET_FILES) + 2
    assert SECRET not in json.dumps(result, ensure_ascii=False)


def test_the_operators_allow_list_unmarks_a_default(ws: Path) -> None:
    """A task that must read credentials/ (fixtures, say) without any other secret."""
    limits = SearchLimits(secrets=SecretPolicy(allow=("credentials",)))
    data = call(ws, {"query": WORD}, limits=limits)["data"]
    paths = {c["path"] for c in data["candidates"]}
    assert {"credentials/aws.txt", "credentials/nested/deep.md"} <= paths
    assert "config/credentials/x" in paths
    assert ".env" not in paths and "deploy/app.key" not in paths
    assert data["files_skipped"]["secret"] == len(SECRET_FILES) - 3
    assert call(ws, {"query": WORD, "path": "credentials"}, limits=limits)["ok"]


def test_a_template_is_searched_and_may_be_named(ws: Path) -> None:
    """The reviewer's case: a task that must read .env.example (which settings does the
    app need?) is not refused, while .env beside it stays shut."""
    data = call(ws, {"query": WORD, "path": ".env.example"})["data"]
    assert [(c["path"], c["line"]) for c in data["candidates"]] == [(".env.example", 1)]
    assert data["files_skipped"]["secret"] == 0


def test_the_limits_take_a_policy_only() -> None:
    with pytest.raises(ValueError, match="SecretPolicy"):
        SearchLimits(secrets=("*.vault",))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SearchLimits(secret_patterns=("*.vault",))  # type: ignore[call-arg]


def test_the_secret_grant_searches_them(ws: Path) -> None:
    data = call(ws, {"query": SECRET}, limits=GRANTED)["data"]
    assert sorted(c["path"] for c in data["candidates"]) == sorted(SECRET_FILES)
    assert data["files_skipped"]["secret"] == 0
    assert data["files_searched"] == len(SECRET_FILES) + len(PLAIN_FILES)


def test_no_match_says_what_was_skipped(tmp_path: Path) -> None:
    write(tmp_path, ".env", f"{WORD}\n")
    data = call(tmp_path, {"query": WORD})["data"]
    assert data["candidates"] == [] and data["total_matches"] == 0
    assert data["files_searched"] == 0 and data["files_skipped"]["secret"] == 1
    assert "files_skipped" in data["suggestion"]


# --------------------------------------------------------------------------- a secret path


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        "config/.env.production",
        "app/.env.local",
        "./config/../.env",  # normalized before the check
        "credentials",  # a secret directory
        "credentials/aws.txt",
        "CREDENTIALS/missing.txt",  # refused whether it exists or not
        "config/credentials/x",
        "no/such/dir/id_rsa",
    ],
)
def test_a_secret_path_is_refused_before_anything_is_opened(
    ws: Path, opened: list[tuple[str, int]], path: str
) -> None:
    result = call(ws, {"query": WORD, "path": path})
    assert not result["ok"]
    error = result["error"]
    assert (error["code"], error["field"], error["retry"]) == (
        "permission_denied",
        "path",
        "after_authorization",
    )
    assert error["received"] == path
    assert "grant" in error["suggestion"] and "ask the user" in error["suggestion"]
    assert "matches the secret pattern" in error["message"]  # which part, which pattern
    assert SECRET not in json.dumps(result, ensure_ascii=False)
    assert opened == [], "refused before the workspace was opened"


def test_a_secret_path_is_searched_with_the_grant(ws: Path) -> None:
    data = call(ws, {"query": SECRET, "path": "credentials"}, limits=GRANTED)["data"]
    assert [c["path"] for c in data["candidates"]] == [
        "credentials/aws.txt",
        "credentials/nested/deep.md",
    ]
    data = call(ws, {"query": SECRET, "path": ".env"}, limits=GRANTED)["data"]
    assert [(c["path"], c["line"]) for c in data["candidates"]] == [(".env", 1)]


def test_a_plain_path_with_the_workspace_patterns(ws: Path) -> None:
    limits = SearchLimits(secrets=SecretPolicy(deny=("src",)))
    result = call(ws, {"query": WORD, "path": "src/app.py"}, limits=limits)
    assert result["error"]["code"] == "permission_denied"
    assert call(ws, {"query": WORD, "path": "src/app.py"})["ok"]


# --------------------------------------------------------------------------- the contract


def test_the_contract_names_the_secret_skip() -> None:
    assert "secret" in SKIP_REASONS
    skipped = SEARCH_FILES_DATA_SCHEMA["properties"]["files_skipped"]
    assert "secret" in skipped["required"]
    assert "secret-bearing" in SEARCH_FILES_SPEC.description
