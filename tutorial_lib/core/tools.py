"""Tool declarations and a registry: what a model sees of a tool, and what runs it.

A :class:`ToolSpec` declares a tool once: what the model decides from (name, title,
description, argument schema, result schema), behaviour annotations with MCP's meanings
and defaults, and the two steps of the road that belong to the tool itself:

- ``check(context, args)``: the *business check*, what no schema can see (the file is
  inside the workspace, the PR exists...). It returns what it verified (an open file, a
  parsed value), which execution receives, or raises a ``ContractError``;
- ``execute(context, args, checked)``: the work. It returns the ``data`` of a success
  envelope, or raises a ``ContractError`` (with ``operation_state="unknown"`` when the
  outcome is not known);
- ``source(context, args, data)``: where that data came from (a workspace path, a REST
  path), the success envelope's ``source``. A tool that reads nothing declares none.

And the facts about a tool that other stations need, declared here once instead of in
tables keyed by its name:

- ``preview(context, args)``: the :class:`~tutorial_lib.core.confirmation.Question` a user
  sees before this call runs (what, where, the diff, the impact), for tools whose class
  needs confirmation; without one the host asks a plain question listing the arguments;
- ``untrusted_fields``: the result fields that carry free text written by others (file
  contents, comment bodies, titles): data to a model, never instructions;
- ``posted_text``: the arguments whose text this tool posts or sends for others to read
  (a comment body, a request body): what an output check must look at;
- ``resolve(context, args)``: the name a call really touches, found without opening
  anything (a workspace path after its symlinks). The road hands it to the
  ``"resolution"`` stations BEFORE the business check, so an in-scope link to an
  out-of-scope file is refused before anything about that file is looked at;
- ``adapt`` and ``adapted_schema``: a tool whose model-facing schema differs from the one
  its steps run on (chapter 08's vague interfaces: a default filled in silently). The
  road checks the model's arguments against ``input_schema``, adapts them, and checks the
  result against ``adapted_schema`` BEFORE any station: every station sees, and every
  approval binds, the arguments that really run;
- ``composes``: for a composite tool, the tools it calls. Their calls travel the host like
  the model's (authorized, logged): the host gives the composite's context a caller with
  ``context.with_caller(call)`` (see :class:`tutorial_lib.core.host.Host`).

Both see arguments the road already validated against ``input_schema``: a tool's own
steps never validate again. ``context`` is what a tool needs to reach the world (a workspace root, a
client, a store). It is given once, when the registry is built (:meth:`ToolSpec.bind`),
never on each call.

A :class:`Registry` enforces the naming rules (1-128 characters of ``A-Za-z0-9_.-``,
unique). Annotations are *hints* for clients and models, not guarantees: a tool that says
``read_only=True`` must still be read-only in its code, and a client must not trust the
hint from an untrusted server (MCP says the same).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tutorial_lib.core.arguments import ArgumentContract, ValueErrorTranslator
from tutorial_lib.core.contracts import TOOL_NAME_REGEX, ContractError, Source

if TYPE_CHECKING:  # authorization imports the road, which imports this module
    from tutorial_lib.core.authorization import ToolAccess

__all__ = [
    "GITHUB_READ_ONLY",
    "GITHUB_WRITE",
    "LOCAL_WRITE",
    "NAME_PATTERN",
    "Adapt",
    "Resolve",
    "Preview",
    "READ_ONLY_LOCAL",
    "Annotations",
    "BusinessCheck",
    "ErrorStyle",
    "Execute",
    "Registry",
    "SourceOf",
    "ToolSpec",
]

#: MCP's rule for tool names.
NAME_PATTERN = re.compile(TOOL_NAME_REGEX)

#: ``check(context, args) -> checked``: the business check; raises ContractError to refuse.
BusinessCheck = Callable[[Any, Mapping[str, Any]], Any]
#: ``execute(context, args, checked) -> data``: raises ContractError on failure.
Execute = Callable[[Any, Mapping[str, Any], Any], dict[str, Any]]
#: ``source(context, args, data) -> Source``: where a success's data came from.
SourceOf = Callable[[Any, Mapping[str, Any], dict[str, Any]], Source]
#: ``resolve(context, args) -> name``: the name a call really touches, found without
#: opening anything (a workspace path after its symlinks), or None when unknown.
Resolve = Callable[[Any, Mapping[str, Any]], "str | None"]
#: ``adapt(args) -> args``: turns the arguments a model sent to a tool's model-facing
#: schema into those of the schema its steps run on (see ``ToolSpec.adapt``).
Adapt = Callable[[Mapping[str, Any]], dict[str, Any]]
#: ``preview(context, args) -> Question``: what the user sees before the call runs.
Preview = Callable[[Any, Mapping[str, Any]], Any]
#: ``"rich"``: failures are contract envelopes. ``"bare"``: chapter 03's counter-example,
#: failures reduced to one upper-case word (see :mod:`tutorial_lib.examples.tasks`).
ErrorStyle = Literal["rich", "bare"]


@dataclass(frozen=True)
class Annotations:
    """Behaviour hints, with MCP's defaults (a tool that says nothing may write anything).

    - ``read_only``: the tool does not modify its environment (MCP ``readOnlyHint``,
      default false);
    - ``destructive``: a write may destroy or overwrite data (``destructiveHint``, default
      true; meaningful only when not read-only);
    - ``idempotent``: repeating a call with the same arguments has no further effect
      (``idempotentHint``, default false; meaningful only when not read-only);
    - ``open_world``: the tool reaches outside a closed world, e.g. the internet or a
      remote service (``openWorldHint``, default true).
    """

    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    open_world: bool = True

    def to_mcp(self) -> dict[str, bool]:
        """MCP's ``ToolAnnotations`` field names."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


#: Only reads the local workspace.
READ_ONLY_LOCAL = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
#: Changes local state, destroys nothing, the same call twice changes nothing more.
LOCAL_WRITE = Annotations(read_only=False, destructive=False, idempotent=True, open_world=False)
#: Read-only, but reaching a remote service.
GITHUB_READ_ONLY = Annotations(read_only=True, destructive=False, idempotent=True, open_world=True)
#: Creates something remote (not read-only), never destroys, idempotent with the same key.
GITHUB_WRITE = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)


def _no_check(context: Any, args: Mapping[str, Any]) -> None:
    return None


@dataclass(frozen=True)
class ToolSpec:
    """One tool, declared once: what the model sees, and the tool's own steps of the road.

    ``input_schema`` is a JSON Schema (draft 2020-12) object schema: the road's schema check
    validates against it, strictly (:class:`~tutorial_lib.core.arguments.ArgumentContract`),
    with ``value_error`` wording the tool's own value errors and ``object_message`` the
    "not an object" error. ``output_schema`` describes ``data`` of a success (None if not
    declared). ``check``, ``execute`` and ``source`` see validated arguments (see the
    module docstring); a spec without ``execute`` can be linted and exported but not called.
    ``context`` is bound with :meth:`bind` when the registry is built. ``preview``,
    ``untrusted_fields`` and ``posted_text`` are the facts other stations read (see the
    module docstring). ``access`` is what the tool declares it does and to what (its
    action class and where its resource is in the arguments): the operator's access map
    is derived from it (:func:`~tutorial_lib.core.authorization.declared_access`), and
    tools are selected by it, never by name. None: the tool declares nothing, so no map
    lets it run unless the operator writes its entry.
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: Annotations = field(default_factory=Annotations)
    output_schema: dict[str, Any] | None = None
    execute: Execute | None = field(default=None, compare=False, repr=False)
    check: BusinessCheck = field(default=_no_check, compare=False, repr=False)
    value_error: ValueErrorTranslator | None = field(default=None, compare=False, repr=False)
    source: SourceOf | None = field(default=None, compare=False, repr=False)
    error_style: ErrorStyle = "rich"
    preview: Preview | None = field(default=None, compare=False, repr=False)
    untrusted_fields: frozenset[str] = frozenset()
    posted_text: tuple[str, ...] = ()
    composes: tuple[str, ...] = ()
    access: ToolAccess | None = field(default=None, compare=False)
    resolve: Resolve | None = field(default=None, compare=False, repr=False)
    adapt: Adapt | None = field(default=None, compare=False, repr=False)
    adapted_schema: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    context: Any = field(default=None, compare=False, repr=False)
    #: The schema check, derived from ``input_schema`` (not an argument).
    arguments: ArgumentContract = field(init=False, compare=False, repr=False)
    #: The schema check of ``adapted_schema`` (None without an adaptation).
    adapted_arguments: ArgumentContract | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_PATTERN.fullmatch(self.name):
            raise ValueError(
                f"tool name {self.name!r} must be 1-128 characters of A-Z, a-z, 0-9, '_', '-', '.'"
            )
        if self.input_schema.get("type") != "object":
            raise ValueError(f"{self.name}: input_schema must be a JSON Schema of type 'object'")
        if not self.description.strip():
            raise ValueError(f"{self.name}: a tool needs a description")
        unknown = [a for a in self.posted_text if a not in self.input_schema.get("properties", {})]
        if unknown:
            raise ValueError(f"{self.name}: posted_text names no argument of it: {unknown}")
        object.__setattr__(self, "untrusted_fields", frozenset(self.untrusted_fields))
        object.__setattr__(self, "posted_text", tuple(self.posted_text))
        object.__setattr__(self, "composes", tuple(self.composes))
        if (self.adapt is None) != (self.adapted_schema is None):
            raise ValueError(f"{self.name}: give adapt and adapted_schema together")
        adapted = (
            None
            if self.adapted_schema is None
            else ArgumentContract(
                self.name, self.adapted_schema, self.value_error or _generic_value_error
            )
        )
        object.__setattr__(self, "adapted_arguments", adapted)
        contract = ArgumentContract(
            self.name,
            self.input_schema,
            self.value_error or _generic_value_error,
        )
        object.__setattr__(self, "arguments", contract)

    def bind(self, context: Any) -> ToolSpec:
        """This tool with ``context`` (workspace root, client, store...) for every call.

        The schema check is shared, not rebuilt: binding is cheap.
        """
        bound = copy.copy(self)
        object.__setattr__(bound, "context", context)
        return bound

    def with_error_style(self, style: ErrorStyle) -> ToolSpec:
        """This tool with its failures presented in ``style`` (successes unchanged)."""
        changed = copy.copy(self)
        object.__setattr__(changed, "error_style", style)
        return changed


def _generic_value_error(name: str, value: Any, error: Any) -> ContractError:
    """Fallback wording for a tool that declares no value translator."""
    keyword = str(error.validator)
    if keyword == "enum":
        return ContractError(
            "invalid_value",
            f"'{name}' must be one of the allowed values",
            field=name,
            received=value,
            allowed_values=list(error.validator_value),
        )
    code = "invalid_range" if keyword in ("minimum", "maximum") else "invalid_value"
    return ContractError(
        code,
        f"'{name}' is not accepted: {keyword} {error.validator_value!r}",
        field=name,
        received=value,
        expected=f"{keyword} {error.validator_value!r}",
    )


class Registry:
    """Tools by unique name, in registration order."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ToolSpec) -> ToolSpec:
        """Add ``spec``; a second tool with the same name is refused."""
        if spec.name in self._specs:
            raise ValueError(f"a tool named {spec.name!r} is already registered")
        self._specs[spec.name] = spec
        return spec

    def get(self, name: str) -> ToolSpec:
        """The spec called ``name``; a clear KeyError listing the known names otherwise."""
        try:
            return self._specs[name]
        except (KeyError, TypeError):
            raise KeyError(
                f"no tool named {name!r}; known tools: {', '.join(self._specs)}"
            ) from None

    @property
    def names(self) -> list[str]:
        """The registered names, in registration order."""
        return list(self._specs)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs
