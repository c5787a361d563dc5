"""Chapter 06's authorization station: the executor refuses the object, not the prompt.

A user asks for a task; the task has a *scope* (:class:`TaskScope`): which resources it
may touch (repositories, workspace path prefixes) and which *action classes* were granted,
each on its own:

- ``"read"``: read a file or a repository's data;
- ``"write"``: change something that can be changed back (a comment, a file);
- ``"delete"``: destroy something;
- ``"send"``: anything that leaves the task or takes effect for others: send, merge,
  deploy. Reading and sending are separate grants: a task that may read private data
  and may not send it out has removed one leg of the "lethal trifecta".

Sensitivity is part of the grant: a secret-bearing file (by the task's one
:class:`~tutorial_lib.core.secrets.SecretPolicy`, the same object search_files asks)
needs its own grant (``secrets_granted``), whatever the action.

Which class a tool belongs to, and where its resource is in the arguments, is declared by
the *operator*, per tool name (:class:`ToolAccess`, an :data:`AccessMap`), never read from
the tool: a tool's annotations are hints (``read_only=True`` buys no write a bypass), and a
tool without a declaration is refused (deny by default). The scope is frozen and the
station closes over it: no tool call can change it; only the user, by starting a task with
another scope.

:func:`authorization_station` turns scope and declarations into a
:class:`~tutorial_lib.core.road.Station` of the ``"authorization"`` slot. It sees the
*validated* arguments, so it checks what will really be touched: a model that picked the
wrong tool or the wrong repository (because a comment told it to) is refused all the same.
A refusal is ``permission_denied`` (``retry: after_authorization``; the road adds
``operation_state: not_applied``): its message says what was refused and why, and its
suggestion says to ask the user, never to try other arguments.

The station stands *before* the business check (:func:`authorize`): it decides on what
the arguments name (tool, action class, repository, host, the workspace path taken
lexically: normalized, no ``..`` out of the root, secret names), so a refused call opens
nothing and learns nothing (whether a file exists, is a FIFO, or is too large). A second
station, of the ``"resolution"`` slot (:func:`authorize_resolved`), checks the name the
call really touches after symlinks: first as the tool's ``resolve`` step found it by name,
before the business check opens anything, then (the road's ``recheck``) the name of what
the business check really opened (Linux), so a link swapped in between is seen too. A link
``notes.txt -> .env`` is refused as ``.env``. :func:`authorization_stations` gives both
stations; the host puts them on the road.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, get_args

from tutorial_lib.core.contracts import ContractError, HostConfigError
from tutorial_lib.core.road import PendingCall, Station
from tutorial_lib.core.secrets import DEFAULT_SECRET_POLICY, SecretPolicy
from tutorial_lib.core.tools import ToolSpec

__all__ = [
    "ACTION_CLASSES",
    "REFUSAL_RULES",
    "AccessMap",
    "ActionClass",
    "Resource",
    "ResourceSystem",
    "TaskScope",
    "ToolAccess",
    "authorization_stations",
    "authorize",
    "authorize_resolved",
    "declared_access",
    "github_access",
    "is_secret_path",
    "local_access",
    "normalize_workspace_path",
    "outbound_access",
    "workspace_access",
]

#: The action classes, each granted on its own (``"send"`` covers send, merge, deploy).
ActionClass = Literal["read", "write", "delete", "send"]
ACTION_CLASSES: tuple[ActionClass, ...] = get_args(ActionClass)

#: Where a resource lives: a GitHub repository, a path of the local workspace, the host an
#: outbound request goes to, or a tool's own local store (tasks, jobs: no resource of its
#: own to scope, so only the class grant decides).
ResourceSystem = Literal["github", "workspace", "outbound", "local"]

#: The rule a refusal broke, in the order :func:`authorize` checks them; a refusal's
#: ``error.log["rule"]`` (the operator's log, never the model's envelope) names one.
REFUSAL_RULES: tuple[str, ...] = (
    "undeclared_tool",
    "class_not_granted",
    "outside_scope",
    "secret_needs_grant",
)

#: The suggestion of every refusal: the boundary is the user's to move, not the model's.
ASK_THE_USER = (
    "this is outside what the user granted for this task: do not try other arguments or"
    " another tool; ask the user to grant it, or continue the task without it"
)


@dataclass(frozen=True)
class Resource:
    """What one call touches: ``name`` in ``system``, taken from argument ``field``."""

    system: ResourceSystem
    name: str
    field: str | None = None


@dataclass(frozen=True)
class ToolAccess:
    """The operator's declaration for one tool: its action class and its resource.

    ``locate(arguments)`` returns the :class:`Resource` a call with those (validated)
    arguments touches. Use :func:`github_access` or :func:`workspace_access`.
    """

    action: ActionClass
    locate: Callable[[Mapping[str, Any]], Resource] = field(compare=False)
    #: For people reading the declaration: where the resource is (``"github"``...) and
    #: which argument names it. ``locate`` is what the station uses.
    system: ResourceSystem | None = None
    argument: str | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTION_CLASSES:
            raise ValueError(f"unknown action class {self.action!r}; one of {ACTION_CLASSES}")


#: Tool name -> its declared access. A tool not in the map is refused.
AccessMap = Mapping[str, ToolAccess]


def declared_access(
    specs: Iterable[ToolSpec],
    *,
    leave_out: Iterable[str] = (),
    overrides: Mapping[str, ToolAccess] | None = None,
) -> AccessMap:
    """The operator's access map, derived from what each tool declares (``spec.access``),
    written once: every spec that declares its access, in the order given, but those in
    ``leave_out`` (the operator does not let the model run them: settings, approvals),
    with ``overrides`` replacing a declaration (or declaring a tool that declares none).
    Names in ``leave_out`` or ``overrides`` that no spec has are a mistake
    (:class:`~tutorial_lib.core.contracts.HostConfigError`).
    """
    specs = list(specs)
    names = [spec.name for spec in specs]
    overrides = dict(overrides or {})
    left_out = set(leave_out)
    unknown = sorted((left_out | set(overrides)) - set(names))
    if unknown:
        raise HostConfigError(f"access for tools that are not there: {unknown}; tools: {names}")
    found: dict[str, ToolAccess] = {}
    for spec in specs:
        access = overrides.get(spec.name, spec.access)
        if access is not None and spec.name not in left_out:
            found[spec.name] = access
    return MappingProxyType(found)


def github_access(action: ActionClass, argument: str = "repository") -> ToolAccess:
    """A tool of class ``action`` on the repository named by ``arguments[argument]``."""

    def locate(arguments: Mapping[str, Any]) -> Resource:
        return Resource("github", str(arguments[argument]), argument)

    return ToolAccess(action, locate, "github", argument)


def workspace_access(
    action: ActionClass, argument: str = "path", *, default: str | None = None
) -> ToolAccess:
    """A tool of class ``action`` on the workspace path ``arguments[argument]``.

    ``default`` is the path when the argument is left out (``"."``: the whole workspace);
    without one, a call that leaves it out touches nothing this map can name and is refused.
    """

    def locate(arguments: Mapping[str, Any]) -> Resource:
        value = arguments.get(argument, default)
        if value is None:
            raise ContractError(
                "permission_denied",
                f"'{argument}' is missing, so the path this call touches is unknown",
                field=argument,
                suggestion=ASK_THE_USER,
            )
        return Resource("workspace", str(value), argument)

    return ToolAccess(action, locate, "workspace", argument)


def outbound_access(action: ActionClass = "send", argument: str = "url") -> ToolAccess:
    """A tool of class ``action`` that sends to the host of the URL ``arguments[argument]``
    (its resource is the host, lower-case, without port or user info)."""

    def locate(arguments: Mapping[str, Any]) -> Resource:
        host = urllib.parse.urlsplit(str(arguments[argument])).hostname or ""
        return Resource("outbound", host.rstrip(".").lower(), argument)

    return ToolAccess(action, locate, "outbound", argument)


def local_access(action: ActionClass, store: str = "local") -> ToolAccess:
    """A tool of class ``action`` on its own local store (named ``store``): the scope holds
    it whenever the class is granted (there is no repository, path or host to name)."""

    def locate(arguments: Mapping[str, Any]) -> Resource:
        return Resource("local", store)

    return ToolAccess(action, locate, "local", None)


def normalize_workspace_path(path: str) -> str | None:
    """``path`` relative to the workspace root, normalized (``"."`` for the root), or None
    when it is absolute (or starts with a drive) or climbs out with ``..``: no scope
    holds such a path."""
    # "/" is the only separator: on POSIX a backslash is a character of a name, and the
    # sandbox opens "docs\\x" as one name in the root, not as "x" inside docs/
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":"):
        return None
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        return None
    return normal


def is_secret_path(path: str, policy: SecretPolicy = DEFAULT_SECRET_POLICY) -> bool:
    """Whether workspace ``path`` bears secrets by ``policy`` (one of its parts has a
    secret name; :meth:`~tutorial_lib.core.secrets.SecretPolicy.is_secret`)."""
    return policy.is_secret(path)


@dataclass(frozen=True)
class TaskScope:
    """What the user asked for: resources and grants of one task. Frozen: no call moves it.

    - ``repositories``: ``owner/name`` of the repositories the task may touch (GitHub
      names ignore case, and so does the check);
    - ``workspace_paths``: path prefixes of the workspace (``"docs"`` holds ``docs`` and
      ``docs/a.md``, not ``docs2``; ``"."`` holds the whole workspace);
    - ``grants``: the action classes granted, each on its own;
    - ``hosts``: the hosts an outbound request may go to (``"*"``: any host; only give it
      to a task with nothing private to lose);
    - ``secrets_granted``: whether secret-bearing files may be touched (their own grant);
    - ``secrets``: which files bear secrets (:class:`~tutorial_lib.core.secrets.SecretPolicy`:
      the library's defaults, the operator's ``deny`` and ``allow`` patterns); pass the
      same object to search_files' ``SearchLimits(secrets=...)``: one policy, one answer.
    """

    repositories: frozenset[str] = frozenset()
    workspace_paths: tuple[str, ...] = ()
    grants: frozenset[ActionClass] = frozenset()
    hosts: frozenset[str] = frozenset()
    secrets_granted: bool = False
    secrets: SecretPolicy = DEFAULT_SECRET_POLICY

    def __post_init__(self) -> None:
        unknown = set(self.grants) - set(ACTION_CLASSES)
        if unknown:
            raise ValueError(f"unknown action classes {sorted(unknown)}; one of {ACTION_CLASSES}")
        prefixes = []
        for prefix in self.workspace_paths:
            normal = normalize_workspace_path(prefix)
            if normal is None:
                raise ValueError(f"workspace path {prefix!r} is not inside the workspace")
            prefixes.append(normal)
        # frozen: the normalized forms are set once, here
        object.__setattr__(self, "repositories", frozenset(self.repositories))
        object.__setattr__(self, "workspace_paths", tuple(prefixes))
        object.__setattr__(self, "grants", frozenset(self.grants))
        object.__setattr__(self, "hosts", frozenset(h.rstrip(".").lower() for h in self.hosts))
        if not isinstance(self.secrets, SecretPolicy):
            raise ValueError(f"secrets must be a SecretPolicy, not {type(self.secrets).__name__}")

    def holds_repository(self, repository: str) -> bool:
        """Whether ``repository`` is one of the task's (ignoring case, as GitHub does)."""
        wanted = repository.casefold()
        return any(wanted == r.casefold() for r in self.repositories)

    def holds_host(self, host: str) -> bool:
        """Whether an outbound request may go to ``host`` (exact name, or ``"*"``)."""
        return "*" in self.hosts or (bool(host) and host.lower() in self.hosts)

    def holds_path(self, path: str) -> bool:
        """Whether workspace ``path`` lies under one of the task's path prefixes."""
        normal = normalize_workspace_path(path)
        if normal is None:
            return False
        return any(
            prefix == "." or normal == prefix or normal.startswith(prefix + "/")
            for prefix in self.workspace_paths
        )


def authorize(scope: TaskScope, access: AccessMap, call: PendingCall) -> None:
    """Let ``call`` through, or raise ``permission_denied`` saying what and why.

    In order: the tool has a declaration; its class is granted; its resource is in the
    scope; a secret-bearing file has its own grant. It reads only the arguments (no I/O),
    never the tool's annotations. When ``call.checked`` names the file the business check
    really opened, that name is checked too (:func:`authorize_resolved`).
    """
    name = call.tool.name
    declared = access.get(name)
    if declared is None:
        raise ContractError(
            "permission_denied",
            f"'{name}' has no declared access for this task, so it is refused",
            suggestion=ASK_THE_USER,
            log={"rule": "undeclared_tool"},
        )
    if declared.action not in scope.grants:
        raise ContractError(
            "permission_denied",
            f"{declared.action} is not granted for this task"
            f" ('{name}' is declared as {declared.action})",
            suggestion=ASK_THE_USER,
            log={"rule": "class_not_granted"},
        )
    resource = declared.locate(call.arguments)
    if resource.system == "github":
        _check_repository(scope, resource)
    elif resource.system == "outbound":
        if not scope.holds_host(resource.name):
            raise _refusal(
                f"host '{resource.name}' is not one this task may send to",
                resource,
                "outside_scope",
            )
    elif resource.system == "workspace":
        _check_path(scope, resource)
        authorize_resolved(scope, access, call)


def authorize_resolved(scope: TaskScope, access: AccessMap, call: PendingCall) -> None:
    """Refuse a workspace call whose path really leads outside the scope or to a secret
    name: ``call.resolved`` (the name found by the tool's ``resolve`` step, before the
    business check opens anything) and ``call.checked.resolved_name`` (the name of what it
    really opened, after symlinks). Nothing to check when neither is known."""
    declared = access.get(call.tool.name)
    if declared is None:
        return
    resource = declared.locate(call.arguments)
    if resource.system != "workspace":
        return
    requested = normalize_workspace_path(resource.name)
    opened = getattr(call.checked, "resolved_name", None)
    for name in (call.resolved, opened):
        if isinstance(name, str) and name != requested:
            _check_path(scope, Resource("workspace", name, resource.field), via=resource.name)


def _refusal(message: str, resource: Resource, rule: str) -> ContractError:
    return ContractError(
        "permission_denied",
        message,
        field=resource.field,
        received=resource.name,
        suggestion=ASK_THE_USER,
        log={"rule": rule},
    )


def _check_repository(scope: TaskScope, resource: Resource) -> None:
    if not scope.holds_repository(resource.name):
        raise _refusal(
            f"repository {resource.name} is outside this task's scope", resource, "outside_scope"
        )


def _check_path(scope: TaskScope, resource: Resource, *, via: str | None = None) -> None:
    """``via``: the requested name, when ``resource`` is the name a symlink led to."""
    name = f"'{resource.name}'" if via is None else f"'{via}' leads to '{resource.name}', which"
    if not scope.holds_path(resource.name):
        where = f"path {name}" if via is None else name
        raise _refusal(f"{where} is outside this task's scope", resource, "outside_scope")
    if not scope.secrets_granted and scope.secrets.is_secret(resource.name):
        raise _refusal(
            f"{name} is a secret-bearing file: it needs its own grant",
            resource,
            "secret_needs_grant",
        )


def authorization_stations(
    scope: TaskScope, access: AccessMap, *, name: str = "task_scope"
) -> tuple[Station, Station]:
    """The two stations of one task's authorization: on what the arguments name (slot
    ``"authorization"``, before any I/O) and on what the business check resolved (slot
    ``"resolution"``). The host builds them; ``access`` is copied, so changing the
    caller's mapping afterwards changes nothing.
    """
    frozen: AccessMap = MappingProxyType(dict(access))

    def named(call: PendingCall) -> None:
        authorize(scope, frozen, PendingCall(call.tool, call.arguments))

    def resolved(call: PendingCall) -> None:
        authorize_resolved(scope, frozen, call)

    return (
        Station(name, "authorization", named),
        Station(f"{name}_resolved", "resolution", resolved),
    )
