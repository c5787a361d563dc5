"""Tool specifications and a registry: what a model sees of a tool, in one typed place.

A :class:`ToolSpec` holds everything the model decides from (name, title, description,
argument schema, result schema) plus behaviour annotations with MCP's meanings and
defaults, and the handler that executes a call. A :class:`Registry` enforces the naming
rules (1-128 characters of ``A-Za-z0-9_.-``, unique) and calls tools by name.

Annotations are *hints* for clients and models, not guarantees: a tool that says
``read_only=True`` must still be read-only in its code, and a client must not trust the
hint from an untrusted server (MCP says the same).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Annotations", "Registry", "ToolSpec", "NAME_PATTERN", "bound_handler"]

#: MCP's rule for tool names.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")

Handler = Callable[..., dict[str, Any]]


def bound_handler(function: Callable[[Any, Any], dict[str, Any]], context: Any) -> Handler:
    """A ``handler(root, args)`` that calls ``function(context, args)``.

    For tools that talk to a service (a client, a cursor key...) instead of a workspace:
    the pipeline passes ``root``, which they ignore.
    """

    def handler(root: Any, args: Any) -> dict[str, Any]:
        return function(context, args)

    return handler


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


#: Annotations of a tool that only reads the local workspace.
READ_ONLY_LOCAL = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)


@dataclass(frozen=True)
class ToolSpec:
    """One tool as a model sees it, plus the handler that runs it.

    ``input_schema`` is a JSON Schema (draft 2020-12) object schema; ``output_schema``
    describes ``data`` of a success envelope (None if not declared). ``handler`` is called
    as ``handler(root, args)`` and returns a result envelope.
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: Annotations = field(default_factory=Annotations)
    output_schema: dict[str, Any] | None = None
    handler: Handler | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_PATTERN.fullmatch(self.name):
            raise ValueError(
                f"tool name {self.name!r} must be 1-128 characters of A-Z, a-z, 0-9, '_', '-', '.'"
            )
        if self.input_schema.get("type") != "object":
            raise ValueError(f"{self.name}: input_schema must be a JSON Schema of type 'object'")
        if not self.description.strip():
            raise ValueError(f"{self.name}: a tool needs a description")


class Registry:
    """Tools by unique name, in registration order."""

    def __init__(self, specs: list[ToolSpec] | tuple[ToolSpec, ...] = ()) -> None:
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
        return list(self._specs)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs
