"""Which workspace files bear secrets: one policy, compiled once, asked per name.

Reading a place does not mean reading everything in it. A ``.env`` file, a private key or
a credential store is *sensitive*: a task may touch it only with its own grant (the
authorization station's ``secret_needs_grant``), and search_files skips such files
unopened unless the task has that grant. Both ask the same object, a
:class:`SecretPolicy`, so they can never disagree::

    >>> from tutorial_lib.core.secrets import DEFAULT_SECRET_POLICY as policy
    >>> policy.is_secret("config/.env.local"), policy.is_secret(".env.example")
    (True, False)
    >>> policy.is_secret("typeshed/stdlib/secrets.pyi")   # source that is *about* secrets
    False

**A path is secret when one of its parts is.** A part is a file or directory name; the
path ``config/credentials/db.txt`` is secret because its directory ``credentials`` is.
Names are compared ignoring case (``SERVER.PEM`` is ``server.pem``), with ``fnmatch``
patterns (``*`` any characters, ``?`` one, ``[abc]`` one of), one pattern per *name*: a
pattern never holds ``/``.

**Which names.** In this order, for one name:

1. ``deny`` (the operator's own patterns) matches: secret. Nothing un-marks it;
2. ``allow`` (the operator's) matches: not secret, even if a default would say so
   (``allow=("fixtures.key",)`` for a test key that is public on purpose);
3. ``exempt`` (the library's exceptions: templates committed with placeholder values,
   public halves of key pairs) matches: not secret;
4. ``defaults`` (:data:`DEFAULT_SECRET_PATTERNS`) matches: secret. Otherwise not.

So ``deny`` beats everything (when two lists disagree, the file stays shut: fail closed),
and ``allow`` and ``exempt`` only take away what the *defaults* marked. The defaults aim
at files that really carry secrets, by their conventional names; a source file that
merely talks about secrets (``secrets.py``, ``secrets.pyi``, ``credentials.py``,
``test_credentials.py``) is not one of them. Each default, and why, is in
:data:`DEFAULT_SECRET_REASONS`; :meth:`SecretPolicy.explain` says which part of a path,
which pattern and why. Judgement calls, each a line of ``deny`` or ``allow`` away:

- a *directory* named ``credentials`` is secret (Rails' ``config/credentials/``, AWS's
  file of that name), which also shuts Python packages of that name (two in this
  course's site-packages): ``allow=("credentials",)`` opens them;
- ``*.pem`` marks public CA bundles too (``cacert.pem``): a name cannot tell a certificate
  from a private key;
- ``.npmrc`` and ``.pypirc`` often hold only settings, but they are where the tools write
  tokens;
- ``*.env`` files other than ``secrets.env`` (Compose's ``app.env``) are left to the
  operator: ``deny=("*.env",)``.

**Cheap to ask.** The patterns are compiled when the policy is built: names without
wildcards go into a set, ``*suffix`` and ``prefix*`` patterns into tuples for
``str.endswith`` / ``str.startswith``, and the rest into one regular expression per list.
:meth:`SecretPolicy.is_secret_name` costs a fraction of a microsecond, which matters to a
directory walk that asks it for every entry. The policy is frozen and hashable (it is part
of a frozen ``TaskScope``); a bad pattern is refused when the policy is built
(``ValueError``), not when a file is first checked.

This module imports only the standard library.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "DEFAULT_EXEMPT",
    "DEFAULT_SECRET_PATTERNS",
    "DEFAULT_SECRET_POLICY",
    "DEFAULT_SECRET_REASONS",
    "PUBLIC_KEY_HALVES",
    "WELL_KNOWN_TEMPLATES",
    "SecretPolicy",
]

#: Every default secret pattern, with the reason it is one (shown to learners and in
#: refusals; the order is the order of :data:`DEFAULT_SECRET_PATTERNS`).
DEFAULT_SECRET_REASONS: Mapping[str, str] = MappingProxyType(
    {
        # dotenv
        ".env": "a dotenv file: the API keys, passwords and tokens of an application,"
        " kept out of version control by convention",
        ".env.*": "a dotenv file for one environment or machine (.env.local,"
        " .env.production); its templates (.env.example...) are exempt",
        # keys and certificates
        "*.pem": "PEM: TLS private keys (and certificates, which a name cannot tell apart)",
        "*.key": "a private key (server.key, Rails' master.key)",
        "*.p12": "PKCS#12: a certificate bundled with its private key",
        "*.pfx": "PKCS#12 under its Windows name: a certificate with its private key",
        "*.jks": "a Java keystore: private keys and their certificates",
        "*.keystore": "a Java or Android keystore (release signing keys)",
        "*.ppk": "a PuTTY private key",
        "id_rsa*": "an OpenSSH private key (id_rsa, id_rsa_work); its .pub half is exempt",
        "id_dsa*": "an OpenSSH private key (DSA); its .pub half is exempt",
        "id_ecdsa*": "an OpenSSH private key (ECDSA, id_ecdsa_sk); its .pub half is exempt",
        "id_ed25519*": "an OpenSSH private key (Ed25519, id_ed25519_sk); its .pub half is exempt",
        ".ssh": "SSH's own directory: private keys under any name, agent sockets",
        ".gnupg": "GnuPG's directory: the private keyring",
        # credential stores
        "credentials": "AWS's credentials file (~/.aws/credentials); a directory of that"
        " name (Rails' config/credentials/) holds keys",
        "credentials.json": "OAuth client secrets as Google's console downloads them, and"
        " many tools' token stores",
        "credentials.yaml": "a credential store in YAML",
        "credentials.yml": "a credential store in YAML",
        "credentials.toml": "a credential store in TOML (cargo's ~/.cargo/credentials.toml)",
        "credentials.db": "gcloud's store of OAuth tokens",
        "*_credentials.json": "gcloud's application_default_credentials.json and other"
        " service-account keys",
        ".git-credentials": "git's credential store: tokens in plain text",
        ".netrc": "logins and passwords per host, read by curl, git, ftp and pip",
        "_netrc": ".netrc under its Windows name",
        ".pgpass": "PostgreSQL passwords",
        ".pypirc": "PyPI upload passwords and tokens",
        ".npmrc": "npm configuration, often with a registry _authToken",
        ".htpasswd": "HTTP basic-auth password hashes (crackable offline)",
        "*.kdbx": "a KeePass password database",
        # secret stores by name
        "secrets.json": "a secrets file (ASP.NET user secrets, many apps)",
        "secrets.yaml": "a secrets file (Helm, Kubernetes manifests)",
        "secrets.yml": "a secrets file (Rails' config/secrets.yml)",
        "secrets.toml": "a secrets file (Streamlit's .streamlit/secrets.toml)",
        "secrets.env": "environment variables holding secrets (Docker, Compose)",
        # infrastructure state
        "*.tfstate": "Terraform state: every resource's attributes, database passwords and"
        " keys included, in plain text",
        "*.tfstate.backup": "Terraform's previous state: the same secrets",
    }
)

#: Names that bear secrets by convention (fnmatch patterns, one path part, ignoring case).
DEFAULT_SECRET_PATTERNS: tuple[str, ...] = tuple(DEFAULT_SECRET_REASONS)

#: dotenv templates: committed to version control, holding placeholders so that a
#: developer knows which variables to set. A task often must read them ("which settings
#: does this app need?"), and they hold nothing to leak. ``.env.dist`` is Symfony's older
#: name, ``.env.defaults`` and ``.env.schema`` those of dotenv-defaults and
#: dotenv-extended; ``.env.*.example`` and friends are per-environment templates
#: (``.env.production.example``).
WELL_KNOWN_TEMPLATES: tuple[str, ...] = (
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    ".env.defaults",
    ".env.schema",
    ".env.*.example",
    ".env.*.sample",
    ".env.*.template",
)

#: The public half of an SSH key pair (``id_rsa.pub``, ``id_ed25519-cert.pub``): published
#: on purpose (``authorized_keys``, a Git host), so not secret.
PUBLIC_KEY_HALVES: tuple[str, ...] = ("id_*.pub",)

#: What the defaults never mark: :data:`WELL_KNOWN_TEMPLATES` and :data:`PUBLIC_KEY_HALVES`.
DEFAULT_EXEMPT: tuple[str, ...] = (*WELL_KNOWN_TEMPLATES, *PUBLIC_KEY_HALVES)

_WILDCARDS = frozenset("*?[")


class _Patterns:
    """One list of fnmatch patterns, compiled: is a case-folded name matched by one?

    Exact names go into a set, ``*suffix`` and ``prefix*`` into tuples for
    ``endswith``/``startswith``, the rest into one regular expression.
    """

    __slots__ = ("exact", "general", "prefixes", "suffixes")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        exact: set[str] = set()
        prefixes: list[str] = []
        suffixes: list[str] = []
        general: list[str] = []
        for pattern in patterns:
            folded = pattern.casefold()
            if not _WILDCARDS & set(folded):
                exact.add(folded)
            elif folded.startswith("*") and not _WILDCARDS & set(folded[1:]):
                suffixes.append(folded[1:])
            elif folded.endswith("*") and not _WILDCARDS & set(folded[:-1]):
                prefixes.append(folded[:-1])
            else:
                general.append(fnmatch.translate(folded))
        self.exact = frozenset(exact)
        self.prefixes = tuple(prefixes)
        self.suffixes = tuple(suffixes)
        # fnmatch.translate anchors each pattern at both ends: one alternation suffices.
        self.general = re.compile("|".join(general)).match if general else None

    def matches(self, folded: str) -> bool:
        """Whether one of the patterns matches ``folded`` (a case-folded name)."""
        general = self.general  # endswith(()) and startswith(()) are False
        return (
            folded in self.exact
            or folded.endswith(self.suffixes)
            or folded.startswith(self.prefixes)
            or (general is not None and general(folded) is not None)
        )


def _patterns(name: str, value: object) -> tuple[str, ...]:
    """``value`` as a tuple of valid patterns, or a ValueError saying what is wrong."""
    if isinstance(value, (str, bytes)):
        raise ValueError(
            f"SecretPolicy.{name} must be a tuple of patterns, not one {type(value).__name__}"
            f" ({value!r}): write ({value!r},)"
        )
    if not isinstance(value, Iterable):
        raise ValueError(
            f"SecretPolicy.{name} must be a tuple of patterns (strings), not {type(value).__name__}"
        )
    patterns = tuple(value)
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise ValueError(
                f"SecretPolicy.{name}: every pattern must be a string, not"
                f" {type(pattern).__name__} ({pattern!r})"
            )
        if not pattern.strip():
            raise ValueError(f"SecretPolicy.{name}: a pattern may not be empty or blank")
        if "/" in pattern or "\\" in pattern:
            last = re.split(r"[/\\]", pattern.rstrip("/\\"))[-1] or pattern
            raise ValueError(
                f"SecretPolicy.{name}: {pattern!r} holds a path separator, but a pattern"
                f" matches one file or directory name (a path is secret when one of its"
                f" parts is): use {last!r}"
            )
    return patterns


def _first(folded: str, patterns: tuple[str, ...]) -> str | None:
    """The first of ``patterns`` matching the case-folded name ``folded`` (slow: for
    explanations only)."""
    for pattern in patterns:
        if fnmatch.fnmatchcase(folded, pattern.casefold()):
            return pattern
    return None


def _split(path: str) -> list[str]:
    """The parts of a workspace path (``/`` or ``\\`` between them; ``""`` and ``.`` dropped)."""
    return [part for part in re.split(r"[/\\]", path) if part not in ("", ".")]


@dataclass(frozen=True)
class SecretPolicy:
    """Which workspace files bear secrets, and so need their own grant.

    A path is secret when one of its parts (file or directory names) is; a name is secret
    when ``deny`` matches it, or when ``defaults`` does and neither ``allow`` nor
    ``exempt`` does (``fnmatch`` patterns, ignoring case; see the module's documentation)::

        >>> policy = SecretPolicy(deny=("*.tfstate.json",), allow=("dev.key",))
        >>> policy.is_secret("infra/prod.tfstate.json"), policy.is_secret("certs/dev.key")
        (True, False)

    - ``deny``: the operator's own secret patterns, on top of the defaults; they win over
      every other list;
    - ``allow``: the operator's patterns that are *not* secret even when a default matches
      (to open a directory such as ``credentials/``, allow its name);
    - ``defaults``: the library's list, :data:`DEFAULT_SECRET_PATTERNS` (replace it only to
      start from nothing: ``defaults=()``);
    - ``exempt``: what the defaults never mark, :data:`DEFAULT_EXEMPT` (dotenv templates,
      the ``.pub`` half of an SSH key); ``exempt=()`` marks them too.

    Patterns are checked and compiled when the policy is built: a pattern that is not a
    string, is blank or holds ``/`` is a ``ValueError``. Lists may be given as any
    iterable of strings; they are kept as tuples, so the policy is hashable.
    """

    deny: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    defaults: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    exempt: tuple[str, ...] = DEFAULT_EXEMPT
    # The compiled lists (not arguments, not compared): deny (None when empty), what
    # spares a default (allow + exempt), and the defaults.
    _deny: _Patterns | None = field(init=False, repr=False, compare=False)
    _spared: _Patterns = field(init=False, repr=False, compare=False)
    _defaults: _Patterns = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # frozen: the validated tuples and the compiled lists are set once, here
        for name in ("deny", "allow", "defaults", "exempt"):
            object.__setattr__(self, name, _patterns(name, getattr(self, name)))
        object.__setattr__(self, "_deny", _Patterns(self.deny) if self.deny else None)
        object.__setattr__(self, "_spared", _Patterns((*self.allow, *self.exempt)))
        object.__setattr__(self, "_defaults", _Patterns(self.defaults))

    def is_secret_name(self, name: str) -> bool:
        """Whether one path part, a file or directory ``name``, bears secrets.

        What a directory walk asks for every entry (the parts above were asked on the way
        down): ``is_secret(path)`` is ``any(is_secret_name(part) for part in parts)``.
        """
        folded = name.casefold()
        deny = self._deny
        if deny is not None and deny.matches(folded):
            return True
        # The defaults' check, written out: this line runs once per entry of a walk.
        d = self._defaults  # endswith(()) and startswith(()) are False
        if not (
            folded in d.exact
            or folded.endswith(d.suffixes)
            or folded.startswith(d.prefixes)
            or (d.general is not None and d.general(folded) is not None)
        ):
            return False
        return not self._spared.matches(folded)

    def is_secret(self, path: str) -> bool:
        """Whether workspace ``path`` (parts separated by ``/`` or ``\\``) bears secrets:
        whether any of its parts does (``.`` and empty parts are not names)."""
        return any(self.is_secret_name(part) for part in _split(path))

    def explain(self, path: str) -> str | None:
        """Why ``path`` is secret, in a sentence for a person (a refusal, a lesson), or None
        when it is not: which part, which pattern, and the pattern's reason.

        >>> print(DEFAULT_SECRET_POLICY.explain("deploy/id_ed25519"))
        its part 'id_ed25519' matches the secret pattern 'id_ed25519*' (a default: an OpenSSH private key (Ed25519, id_ed25519_sk); its .pub half is exempt)
        """  # noqa: E501
        for part in _split(path):
            if not self.is_secret_name(part):
                continue
            folded = part.casefold()
            denied = _first(folded, self.deny)
            if denied is not None:
                return (
                    f"its part {part!r} matches the secret pattern {denied!r} (the"
                    " operator's deny list)"
                )
            pattern = _first(folded, self.defaults)
            reason = DEFAULT_SECRET_REASONS.get(pattern or "")
            why = f"a default: {reason}" if reason else "a default"
            return f"its part {part!r} matches the secret pattern {pattern!r} ({why})"
        return None


#: The policy when the operator sets none: :data:`DEFAULT_SECRET_PATTERNS`, minus
#: :data:`DEFAULT_EXEMPT`.
DEFAULT_SECRET_POLICY = SecretPolicy()
