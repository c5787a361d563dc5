"""The MCP server's configuration (tutorial_lib.mcp_server.config): flags, files, scope.

Grants come only from the operator: flags or a ``--config`` file (JSON or TOML, the same
keys), read-only and no repository by default; every bad value is a clear usage error.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest

from tutorial_lib.core.authorization import TaskScope
from tutorial_lib.mcp_server.config import (
    ConfigError,
    ServerConfig,
    load_config_file,
    parse_config,
)
from tutorial_lib.mcp_server.tools import open_tools


def test_the_defaults_are_read_only_the_whole_root_and_no_repository(tmp_path: Path) -> None:
    config = parse_config(["--root", str(tmp_path)], environ={"GITHUB_TOKEN": "t0ken"})
    assert config.root == tmp_path.resolve()
    assert config.github is None and config.token() is None  # the emulator needs none
    assert config.scope() == TaskScope(workspace_paths=(".",), grants=frozenset({"read"}))
    assert config.summary().endswith("grants: read; repositories: none; paths: .")


def test_flags_make_the_scope(tmp_path: Path) -> None:
    config = parse_config(
        ["--root", str(tmp_path), "--grant", "read", "--grant", "write", "--repo",
         "example/shop", "--repo", "example/shop", "--path", "docs/", "--path", "src"]
    )  # fmt: skip
    scope = config.scope()
    assert scope.grants == {"read", "write"}
    assert scope.repositories == {"example/shop"}
    assert scope.workspace_paths == ("docs", "src")
    assert not scope.secrets_granted
    # each class on its own: write alone does not grant read
    alone = parse_config(["--root", str(tmp_path), "--grant", "write"])
    assert alone.grants == {"write"}


def test_the_token_comes_from_the_named_variable_and_never_shows(tmp_path: Path) -> None:
    argv = ["--root", str(tmp_path), "--github", "https://api.github.com", "--token-env", "GH"]
    config = parse_config(argv, environ={"GH": "secret-token-value"})
    assert config.token() == "secret-token-value"
    assert "secret-token-value" not in config.summary() + repr(config)
    assert "token from $GH: set" in config.summary()
    assert parse_config(argv, environ={}).token() is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "--root is required"),
        (["--root", "/no/such/dir"], "is not a directory"),
        (["--grant", "admin"], "invalid choice: 'admin'"),
        (["--repo", "shop"], "--repo 'shop' is not OWNER/NAME"),
        (["--repo", "example/.."], "is not OWNER/NAME"),
        (["--repo=-bad/shop"], "is not OWNER/NAME"),
        (["--path", "../elsewhere"], "is not inside the workspace"),
        (["--path", "/etc"], "is not inside the workspace"),
        (["--github", "ftp://example.com"], "is not an http(s) URL"),
        (["--token-env", "NOT-A-NAME"], "is not an environment variable name"),
        (["--config", "/no/such/file.json"], "cannot be read"),
    ],
)
def test_a_bad_flag_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    root = [] if not flags or flags[0] == "--root" else ["--root", str(tmp_path)]
    with pytest.raises(SystemExit) as stopped:
        parse_config([*root, *flags])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: tutorial-lib-mcp") and message in err, err


SETTINGS = {"grant": ["read", "write"], "repo": ["example/shop"], "path": ["docs"]}


@pytest.mark.skipif(sys.version_info < (3, 11), reason="TOML needs tomllib (Python 3.11)")
def test_a_json_and_a_toml_file_give_the_same_configuration(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    as_json = tmp_path / "server.json"
    as_json.write_text(json.dumps({"root": str(tmp_path), **SETTINGS}), encoding="utf-8")
    as_toml = tmp_path / "server.toml"
    as_toml.write_text(
        f'root = "{tmp_path}"\ngrant = ["read", "write"]\nrepo = ["example/shop"]\n'
        'path = ["docs"]\n',
        encoding="utf-8",
    )
    from_json = parse_config(["--config", str(as_json)])
    assert from_json == parse_config(["--config", str(as_toml)])
    assert from_json.scope().grants == {"read", "write"}
    # a flag on the command line wins over the file's value
    assert parse_config(["--config", str(as_json), "--grant", "read"]).grants == {"read"}
    # a relative root is taken from the file's folder, wherever the server is started
    (tmp_path / "conf").mkdir()
    relative = tmp_path / "conf" / "server.json"
    relative.write_text(json.dumps({"root": "..", **SETTINGS}), encoding="utf-8")
    assert parse_config(["--config", str(relative)]) == from_json


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"root": ".", "grants": ["write"]}, "unknown key 'grants'"),
        ({"root": ".", "grant": "write"}, "'grant' must be a list of strings"),
        ({"root": ".", "repo": [1]}, "'repo' must be a list of strings"),
        ({"root": 3}, "'root' must be a string"),
        (["root"], "must hold an object"),
    ],
)
def test_a_bad_config_file_is_refused(tmp_path: Path, content: object, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config_file(path)


def test_a_config_file_with_a_bad_grant_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"root": str(tmp_path), "grant": ["admin"]}), encoding="utf-8")
    with pytest.raises(SystemExit):
        parse_config(["--config", str(path)])
    assert "--grant 'admin': one of read, write, delete, send" in capsys.readouterr().err


def test_the_operator_declares_every_class(tmp_path: Path) -> None:
    """The host's access map is what each served tool declares (issue 37: facts from
    specs, written once)."""
    with contextlib.ExitStack() as stack:
        tools = open_tools(ServerConfig(root=tmp_path), stack)
        access = tools.host.access
    assert access is not None and list(access) == tools.registry.names
    classes = {name: entry.action for name, entry in access.items()}
    assert classes["github_pr_create_comment"] == classes["github_pr_edit_comment"] == "write"
    assert classes["github_pr_delete_comment"] == "delete"
    assert classes["github_pr_merge"] == "send"
    reads = {name for name, action in classes.items() if action == "read"}
    assert len(reads) == 8
    with pytest.raises(ConfigError, match="give at least one --path"):
        ServerConfig(root=tmp_path, paths=())
