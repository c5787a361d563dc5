"""SecretPolicy: which workspace files bear secrets, compiled once, the same for every caller.

The reviewer's cases first (a template that a task must read, stubs named like a module
about secrets), then the rules (deny beats allow, allow and exempt only take away what the
defaults marked, names ignore case, paths split on ``/`` and ``\\``), the construction
checks, and the property that ties the two questions together: a path is secret exactly
when one of its parts is.
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
import pickle
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.core.secrets import (
    DEFAULT_EXEMPT,
    DEFAULT_SECRET_PATTERNS,
    DEFAULT_SECRET_POLICY,
    DEFAULT_SECRET_REASONS,
    WELL_KNOWN_TEMPLATES,
    SecretPolicy,
)

POLICY = DEFAULT_SECRET_POLICY

#: Secret by default, with the default that marks each.
SECRET = [
    ".env",
    ".env.local",
    ".env.production",
    "config/credentials/x",  # a directory named credentials
    "credentials",  # AWS's file
    "home/.aws/credentials",
    "credentials.json",
    "gcloud/application_default_credentials.json",
    "deploy/server.key",
    "certs/tls.pem",
    "bundle.p12",
    "bundle.pfx",
    "release.keystore",
    "home/.ssh/id_rsa",
    "home/.ssh/id_ed25519",
    "home/.ssh/id_ecdsa_sk",
    "home/.ssh/known_hosts",  # beneath .ssh: keys may have any name there
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    "config/secrets.yml",
    ".streamlit/secrets.toml",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
]
#: Not secret by default: templates, public halves, source that is *about* secrets.
PLAIN = [
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    ".env.production.example",
    "home/.ssh.bak/notes.txt",  # a directory named like, not named, .ssh
    "id_rsa.pub",
    "home/.ssh2/id_ed25519.pub",
    "id_ed25519-cert.pub",
    "mypy/typeshed/stdlib/secrets.pyi",
    "jedi/typeshed/stubs/docker/docker/models/secrets.pyi",
    "secrets.py",
    "src/credentials.py",
    "tests/test_credentials.py",
    "credentials_parser.pyi",
    "client_credentials.py",
    "docs/secret-management.md",
    "envy.txt",
    "my.env",
    "keys.txt",
    "docs/pem.md",
    "rsa_id.txt",
    "app.py",
    ".",
    "",
]


@pytest.mark.parametrize("path", SECRET)
def test_the_defaults_mark_what_really_bears_secrets(path: str) -> None:
    assert POLICY.is_secret(path)
    why = POLICY.explain(path)
    assert why is not None and "matches the secret pattern" in why


@pytest.mark.parametrize("path", PLAIN)
def test_the_defaults_leave_templates_public_keys_and_source_alone(path: str) -> None:
    assert not POLICY.is_secret(path)
    assert POLICY.explain(path) is None


def test_the_reviewers_cases() -> None:
    # A task that must read the template is not refused; nothing marks it by default.
    assert not POLICY.is_secret(".env.example")
    # Type stubs of the stdlib's secrets module (43 such files were skipped before).
    assert not POLICY.is_secret("mypy/typeshed/stdlib/secrets.pyi")
    assert not POLICY.is_secret("credentials.py")


def test_every_template_is_exempt_and_every_default_has_a_reason() -> None:
    for template in WELL_KNOWN_TEMPLATES:
        if "*" not in template:
            assert not POLICY.is_secret(template), template
            assert POLICY.is_secret_name(template) is False
    assert set(WELL_KNOWN_TEMPLATES) <= set(DEFAULT_EXEMPT)
    assert tuple(DEFAULT_SECRET_REASONS) == DEFAULT_SECRET_PATTERNS
    assert all(len(reason) > 15 for reason in DEFAULT_SECRET_REASONS.values())
    assert SecretPolicy() == POLICY


@pytest.mark.parametrize(
    "path",
    [".ENV", ".Env.Local", "CONFIG/CREDENTIALS/x", "server.PEM", "ID_RSA", "Secrets.YML"],
)
def test_names_ignore_case(path: str) -> None:
    assert POLICY.is_secret(path)


@pytest.mark.parametrize("path", [".ENV.EXAMPLE", "ID_RSA.PUB", "SECRETS.PYI"])
def test_exceptions_ignore_case_too(path: str) -> None:
    assert not POLICY.is_secret(path)


@pytest.mark.parametrize(
    "path",
    ["config\\credentials\\x", "app\\.env", "a/b\\.env.local", "\\.ssh\\config", "a\\\\.env"],
)
def test_backslashes_separate_parts(path: str) -> None:
    assert POLICY.is_secret(path)


@pytest.mark.parametrize("path", ["config\\.env.example", "src\\credentials.py", "a\\b"])
def test_backslashes_separate_plain_parts_too(path: str) -> None:
    assert not POLICY.is_secret(path)


def test_allow_unmarks_a_default_and_only_a_default() -> None:
    policy = SecretPolicy(allow=("credentials", "dev.key"))
    assert not policy.is_secret("config/credentials/x")
    assert not policy.is_secret("certs/dev.key") and policy.is_secret("certs/prod.key")
    assert policy.is_secret(".env")  # the rest of the defaults still hold
    assert policy.is_secret("config/credentials/.env")  # a secret part beneath an allowed one


def test_deny_marks_and_beats_every_other_list() -> None:
    policy = SecretPolicy(deny=("*.vault", "prod-*", ".env.example"), allow=("prod-*",))
    assert policy.is_secret("deploy/app.VAULT")
    assert policy.is_secret("prod-db/readme.txt")  # deny wins over allow: fail closed
    assert policy.is_secret(".env.example")  # ... and over the exempt templates
    assert not policy.is_secret("deploy/app.txt")
    assert "operator's deny list" in (policy.explain("deploy/app.vault") or "")


def test_the_lists_can_be_replaced() -> None:
    nothing = SecretPolicy(defaults=())
    assert not nothing.is_secret(".env") and not nothing.is_secret("id_rsa")
    strict = SecretPolicy(exempt=())
    assert strict.is_secret(".env.example") and strict.is_secret("id_rsa.pub")
    only = SecretPolicy(defaults=(), deny=("[ab]?.cfg",))
    assert only.is_secret("x/a1.cfg") and not only.is_secret("x/c1.cfg")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"deny": ".env"}, "not one str"),
        ({"allow": b".env"}, "not one bytes"),
        ({"deny": 5}, "tuple of patterns"),
        ({"deny": (".env", 3)}, "must be a string"),
        ({"deny": ("",)}, "empty or blank"),
        ({"allow": ("  ",)}, "empty or blank"),
        ({"deny": ("config/prod.yaml",)}, "use 'prod.yaml'"),
        ({"deny": ("a\\b",)}, "path separator"),
    ],
)
def test_bad_patterns_are_refused_when_the_policy_is_built(
    kwargs: dict[str, object], words: str
) -> None:
    with pytest.raises(ValueError, match="SecretPolicy") as raised:
        SecretPolicy(**kwargs)  # type: ignore[arg-type]
    assert words in str(raised.value)


def test_lists_are_kept_as_tuples_so_the_policy_is_hashable() -> None:
    policy = SecretPolicy(deny=["*.vault"], allow=iter(["dev.key"]))  # type: ignore[arg-type]
    assert policy.deny == ("*.vault",) and policy.allow == ("dev.key",)
    assert hash(policy) == hash(SecretPolicy(deny=("*.vault",), allow=("dev.key",)))
    assert {policy, SecretPolicy(deny=("*.vault",), allow=("dev.key",))} == {policy}
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.deny = ()  # type: ignore[misc]


def test_copies_and_pickles_judge_alike() -> None:
    policy = SecretPolicy(deny=("*.vault",), allow=("credentials",))
    for other in (
        copy.deepcopy(policy),
        pickle.loads(pickle.dumps(policy)),
        dataclasses.replace(policy),
    ):
        assert other == policy
        for path in ("a.vault", "credentials/x", ".env", "b.txt"):
            assert other.is_secret(path) == policy.is_secret(path)


def test_explain_names_the_part_and_the_reason() -> None:
    why = POLICY.explain("app/config/.env.local")
    assert why is not None
    assert "'.env.local'" in why and "'.env.*'" in why and "dotenv" in why
    assert POLICY.explain("app/config/settings.py") is None


# --------------------------------------------------------------------------- properties

#: Name characters, wildcards' targets included: letters of both cases, digits, dots, the
#: characters of the default patterns, and a few non-ASCII letters (case folding).
NAME = st.text(
    alphabet=string.ascii_letters + string.digits + "._-~ " + "ßİıÉé", min_size=0, max_size=12
)
#: Names drawn near the defaults, so that the properties meet them often.
NEAR = st.sampled_from(
    [
        ".env",
        ".env.local",
        ".env.example",
        ".ENV.Example",
        "credentials",
        "Credentials.json",
        "id_rsa",
        "id_rsa.pub",
        "secrets.pyi",
        "secrets.yml",
        "x.pem",
        ".ssh",
        "a.TFSTATE",
    ]
)
PART = st.one_of(NAME, NEAR)
PATTERN = st.one_of(
    st.sampled_from(["*.vault", "credentials", "id_*", "*", "[ab]*", "?.env", "x*y"]),
    st.text(alphabet="ab.*?", min_size=1, max_size=5),
)
POLICIES = st.builds(
    SecretPolicy,
    deny=st.lists(PATTERN, max_size=3).map(tuple),
    allow=st.lists(PATTERN, max_size=3).map(tuple),
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(PART, max_size=6), separators=st.lists(st.sampled_from("/\\"), min_size=6))
def test_a_path_is_secret_when_one_of_its_parts_is(parts: list[str], separators: list[str]) -> None:
    path = "".join(part + separator for part, separator in zip(parts, separators, strict=False))
    names = [part for part in parts if part not in ("", ".")]
    assert POLICY.is_secret(path) == any(POLICY.is_secret_name(part) for part in names)
    assert (POLICY.explain(path) is None) == (not POLICY.is_secret(path))


@settings(max_examples=300, deadline=None)
@given(policy=POLICIES, name=PART)
def test_the_compiled_check_is_fnmatch_ignoring_case(policy: SecretPolicy, name: str) -> None:
    """The set, the endswith/startswith tuples and the one regex say what fnmatch says,
    pattern by pattern, on case-folded names, in the documented order."""

    def any_match(patterns: tuple[str, ...]) -> bool:
        folded = name.casefold()
        return any(fnmatch.fnmatchcase(folded, p.casefold()) for p in patterns)

    expected = any_match(policy.deny) or (
        any_match(policy.defaults) and not any_match((*policy.allow, *policy.exempt))
    )
    assert policy.is_secret_name(name) == expected
