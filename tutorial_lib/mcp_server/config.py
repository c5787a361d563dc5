"""What the operator decides when starting the server: root, GitHub, grants, scope.

Everything a call may touch is decided here, before the first request, from the command
line (or a ``--config`` file with the same keys), never by the client or the model:

- ``--root DIR``: the workspace ``read_lines`` and ``search_files`` see (required);
- ``--github URL``: a GitHub-compatible REST API for the ``github_pr_*`` tools, with the
  token read from the environment variable named by ``--token-env`` (``GITHUB_TOKEN``);
  without ``--github`` they run against the embedded emulator (:mod:`tutorial_lib.emulator`);
- ``--grant read|write|delete|send`` (repeatable): the action classes granted, each on its
  own (:data:`~tutorial_lib.core.authorization.ACTION_CLASSES`); ``read`` alone by default,
  and exactly the ones given otherwise (``--grant write`` does not imply ``read``);
- ``--repo OWNER/NAME`` (repeatable): the repositories the GitHub tools may touch (none by
  default: every GitHub call is refused until one is named);
- ``--path PREFIX`` (repeatable): the workspace path prefixes the workspace tools may
  touch (the whole root by default). Secret-bearing files are never granted.

:meth:`ServerConfig.scope` is the task scope the flags describe; with the access each
served tool declares (its action class and resource, chapter 06: the host's map is
derived from the specs, :func:`~tutorial_lib.core.authorization.declared_access`), it is
what the host's authorization station decides from.

This module does not import the MCP SDK: a bad flag is reported at once.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tutorial_lib.core.authorization import (
    ACTION_CLASSES,
    ActionClass,
    TaskScope,
)
from tutorial_lib.core.contracts import TutorialLibError
from tutorial_lib.github.reads import REPOSITORY_PROPERTY

__all__ = [
    "CONFIG_KEYS",
    "DEFAULT_TOKEN_ENV",
    "ConfigError",
    "ServerConfig",
    "build_parser",
    "load_config_file",
    "parse_config",
]

#: The environment variable the GitHub token is read from, unless ``--token-env`` says.
DEFAULT_TOKEN_ENV = "GITHUB_TOKEN"

#: The keys a ``--config`` file may have (the flags' names; lists for the repeatable ones).
CONFIG_KEYS: Mapping[str, type] = MappingProxyType(
    {"root": str, "github": str, "token_env": str, "grant": list, "repo": list, "path": list}
)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class ConfigError(TutorialLibError, ValueError):
    """A configuration the server refuses to start with (the message says why)."""


@dataclass(frozen=True)
class ServerConfig:
    """The server's configuration: where the tools look, and what the task may do.

    ``root`` is absolute; ``github`` is None for the embedded emulator; ``grants``,
    ``repositories`` and ``paths`` make the task scope (:meth:`scope`). Build it with
    :func:`parse_config` (command line) or directly (tests); it is checked when built.
    """

    root: Path
    github: str | None = None
    token_env: str = DEFAULT_TOKEN_ENV
    grants: frozenset[ActionClass] = frozenset({"read"})
    repositories: tuple[str, ...] = ()
    paths: tuple[str, ...] = (".",)
    #: Read the token from here instead of ``os.environ`` (tests).
    environ: Mapping[str, str] = field(
        default_factory=lambda: os.environ, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        root = Path(self.root).expanduser()
        if not root.is_dir():
            raise ConfigError(f"--root {str(self.root)!r} is not a directory")
        object.__setattr__(self, "root", root.resolve())
        if self.github is not None and not re.match(r"https?://[^/\s]+", self.github):
            raise ConfigError(f"--github {self.github!r} is not an http(s) URL")
        if not _ENV_NAME.fullmatch(self.token_env):
            raise ConfigError(f"--token-env {self.token_env!r} is not an environment variable name")
        unknown = sorted(set(self.grants) - set(ACTION_CLASSES))
        if unknown:
            raise ConfigError(f"--grant {unknown[0]!r}: one of {', '.join(ACTION_CLASSES)}")
        object.__setattr__(self, "grants", frozenset(self.grants))
        for repository in self.repositories:
            if not _is_repository(repository):
                raise ConfigError(f"--repo {repository!r} is not OWNER/NAME")
        object.__setattr__(self, "repositories", tuple(dict.fromkeys(self.repositories)))
        if not self.paths:
            raise ConfigError("give at least one --path (or leave it out: the whole root)")
        try:
            self.scope()
        except ValueError as exc:  # a path prefix outside the workspace
            raise ConfigError(f"--path: {exc}") from None

    def scope(self) -> TaskScope:
        """The task scope the flags describe (no secret-bearing file is ever granted)."""
        return TaskScope(
            repositories=frozenset(self.repositories),
            workspace_paths=tuple(self.paths),
            grants=self.grants,
        )

    def token(self) -> str | None:
        """The GitHub token for ``--github`` (None against the emulator, or when unset)."""
        if self.github is None:
            return None
        return self.environ.get(self.token_env) or None

    def summary(self) -> str:
        """One line for the operator (stderr at start): never the token itself."""
        github = "the embedded emulator" if self.github is None else self.github
        if self.github is not None:
            token = "set" if self.token() else "not set"
            github += f" (token from ${self.token_env}: {token})"
        return (
            f"tutorial-lib MCP server: root {self.root}; GitHub: {github}; grants:"
            f" {', '.join(c for c in ACTION_CLASSES if c in self.grants)};"
            f" repositories: {', '.join(self.repositories) or 'none'};"
            f" paths: {', '.join(self.scope().workspace_paths)}"
        )


def _is_repository(value: object) -> bool:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(REPOSITORY_PROPERTY).is_valid(value) and not any(
        part in (".", "..") for part in str(value).split("/")
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m tutorial_lib.mcp_server`` (and ``tutorial-lib-mcp``)."""
    parser = argparse.ArgumentParser(
        prog="tutorial-lib-mcp",
        description="Serve the course's tools (read_lines, search_files, github_pr_*) over"
        " the Model Context Protocol on stdio. Every call travels the course's host:"
        " schema, authorization, business check, confirmation, execution, envelope."
        " Read-only by default: grants come only from these flags.",
    )
    parser.add_argument("--root", help="the workspace directory read_lines and search_files see")
    parser.add_argument(
        "--github",
        metavar="URL",
        help="a GitHub-compatible REST API (e.g. https://api.github.com); default: the"
        " embedded emulator",
    )
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        help=f"the environment variable holding the GitHub token (default {DEFAULT_TOKEN_ENV})",
    )
    parser.add_argument(
        "--grant",
        action="append",
        choices=ACTION_CLASSES,
        help="grant an action class (repeatable); default: read only",
    )
    parser.add_argument(
        "--repo",
        action="append",
        metavar="OWNER/NAME",
        help="a repository the GitHub tools may touch (repeatable); default: none",
    )
    parser.add_argument(
        "--path",
        action="append",
        metavar="PREFIX",
        help="a workspace path prefix the workspace tools may touch (repeatable);"
        " default: the whole root",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="a JSON or TOML file with the same keys (root, github, token_env, grant, repo,"
        " path; a relative root is taken from the file's folder); flags given on the"
        " command line take precedence",
    )
    return parser


def load_config_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The settings of a JSON (``.json``) or TOML (any other name) file, checked: only
    :data:`CONFIG_KEYS`, each of its type (lists of strings for the repeatable ones)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--config {str(path)!r} cannot be read: {exc}") from None
    try:
        if file.suffix.lower() == ".json":
            loaded: Any = json.loads(text)
        else:
            loaded = _toml(text)
    except ValueError as exc:  # json.JSONDecodeError and tomllib.TOMLDecodeError
        raise ConfigError(f"--config {str(path)!r} is not valid: {exc}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"--config {str(path)!r} must hold an object of settings")
    for key, value in loaded.items():
        kind = CONFIG_KEYS.get(key)
        if kind is None:
            raise ConfigError(
                f"--config: unknown key {key!r}; the keys are {', '.join(CONFIG_KEYS)}"
            )
        if not isinstance(value, kind) or (
            isinstance(value, list) and not all(isinstance(v, str) for v in value)
        ):
            wanted = "a list of strings" if kind is list else "a string"
            raise ConfigError(f"--config: {key!r} must be {wanted}")
    return dict(loaded)


def _toml(text: str) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(text)
    raise ValueError("TOML needs Python 3.11 or later; use a .json file")


def parse_config(
    argv: Sequence[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """The configuration of a command line: flags first, then the ``--config`` file, then
    the defaults. Exits with argparse's usage message (status 2) on a bad flag or file."""
    parser = build_parser()
    args = parser.parse_args(argv)
    settings: dict[str, Any] = {}
    try:
        if args.config is not None:
            settings = load_config_file(args.config)
            if "root" in settings:  # a relative root is the file's, not the caller's
                settings["root"] = str(Path(args.config).parent / settings["root"])
        for key in CONFIG_KEYS:
            value = getattr(args, key)
            if value is not None:
                settings[key] = value
        if settings.get("root") is None:
            parser.error("--root is required (on the command line or in the --config file)")
        return ServerConfig(
            root=Path(settings["root"]),
            github=settings.get("github"),
            token_env=settings.get("token_env", DEFAULT_TOKEN_ENV),
            grants=frozenset(settings.get("grant", ["read"])),
            repositories=tuple(settings.get("repo", ())),
            paths=tuple(settings.get("path", (".",))),
            environ=os.environ if environ is None else environ,
        )
    except ConfigError as exc:
        parser.error(str(exc))
