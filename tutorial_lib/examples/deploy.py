"""A small deploy tool for chapter 07: one target the user must choose, one that needs more.

``deploy_release`` rolls a version of the shop out to one of two host groups: ``canary``
(a few hosts that take every release first, while the rest keep the current one) or
``all-hosts`` (every host at once). Which group is the user's decision (the chapter's
confirmation policy asks it, with no candidate preselected), and a rollout to all hosts
needs *formal* approval (a rollout plan signed off by the on-call lead) that no
confirmation in a chat session replaces. :class:`Deployments` records what was rolled out
where: the observable effect a test asserts on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.core.authorization import local_access
from tutorial_lib.core.confirmation import Question
from tutorial_lib.core.contracts import Source
from tutorial_lib.core.tools import Annotations, ToolSpec

__all__ = ["DEPLOY_SPEC", "HOST_GROUPS", "Deployments", "deploy_spec"]

#: The shop's host groups, in the order a question lists them.
HOST_GROUPS: tuple[str, ...] = ("canary", "all-hosts")

#: How a question names each group.
_GROUP_NAMES = {"canary": "the canary group", "all-hosts": "all hosts"}


@dataclass
class Deployments:
    """What was rolled out where, in order: ``(group, version)`` pairs."""

    done: list[tuple[str, str]] = field(default_factory=list)

    def deploy(self, group: str, version: str) -> int:
        """Record a rollout; return its number (1 for the first)."""
        self.done.append((group, version))
        return len(self.done)


DEPLOY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "group": {
            "type": "string",
            "enum": list(HOST_GROUPS),
            "description": "Which hosts get the release: 'canary' (a few hosts first) or"
            " 'all-hosts' (every host).",
        },
        "version": {
            "type": "string",
            "pattern": r"^v\d+\.\d+\.\d+$",
            "description": "The release tag, e.g. 'v2.4.1'.",
        },
    },
    "required": ["group", "version"],
    "additionalProperties": False,
}


def _deploy(context: Deployments, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    number = context.deploy(args["group"], args["version"])
    return {"group": args["group"], "version": args["version"], "deploy": number}


def _preview(context: Deployments, args: Mapping[str, Any]) -> Question:
    """All hosts need a rollout plan signed off by the on-call lead (formal approval: no
    click in a chat replaces it); the canary group asks, showing what changes."""
    group, version = args["group"], args["version"]
    if group == "all-hosts":
        return Question(
            text=f"Deploy {version} to all hosts?",
            formal="a rollout plan signed off by the on-call lead",
        )
    return Question(
        text=f"Deploy {version} to {_GROUP_NAMES[group]}?",
        shown={"impact": f"the canary hosts run {version} from now on; the others keep theirs"},
    )


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "deploy", "resource": args["group"]}


#: deploy_release, declared once.
DEPLOY_SPEC = ToolSpec(
    name="deploy_release",
    title="Roll a release of the shop out to a host group",
    description="Roll release 'version' of the shop out to one host group: 'canary' (a few"
    " hosts that take a release first) or 'all-hosts' (every host). Changes what those hosts"
    ' run. Example: {"group": "canary", "version": "v2.4.1"}',
    input_schema=DEPLOY_SCHEMA,
    annotations=Annotations(read_only=False, destructive=True, idempotent=True, open_world=True),
    access=local_access("send", "deployments"),
    execute=_deploy,
    preview=_preview,
    source=_source,
)


def deploy_spec(deployments: Deployments) -> ToolSpec:
    """``deploy_release`` bound to ``deployments``."""
    return DEPLOY_SPEC.bind(deployments)
