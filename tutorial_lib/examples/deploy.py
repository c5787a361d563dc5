"""A small deploy tool for chapter 07: one target the user must choose, one that needs more.

``deploy_release`` deploys a version of the shop to ``staging`` or ``production``. Which
environment is the user's decision (the chapter's confirmation policy asks it, with no
candidate preselected), and a production deploy needs *formal* approval (a change
request) that no confirmation in a chat session replaces. :class:`Deployments` records
what was deployed where: the observable effect a test asserts on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.core.confirmation import Question
from tutorial_lib.core.contracts import Source
from tutorial_lib.core.tools import Annotations, ToolSpec

__all__ = ["DEPLOY_SPEC", "ENVIRONMENTS", "Deployments", "deploy_spec"]

#: The environments of the shop, in the order a question lists them.
ENVIRONMENTS: tuple[str, ...] = ("staging", "production")


@dataclass
class Deployments:
    """What was deployed where, in order: ``(environment, version)`` pairs."""

    done: list[tuple[str, str]] = field(default_factory=list)

    def deploy(self, environment: str, version: str) -> int:
        """Record a deploy; return its number (1 for the first)."""
        self.done.append((environment, version))
        return len(self.done)


DEPLOY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "environment": {
            "type": "string",
            "enum": list(ENVIRONMENTS),
            "description": "Where to deploy: 'staging' or 'production'.",
        },
        "version": {
            "type": "string",
            "pattern": r"^v\d+\.\d+\.\d+$",
            "description": "The release tag, e.g. 'v2.4.1'.",
        },
    },
    "required": ["environment", "version"],
    "additionalProperties": False,
}


def _deploy(context: Deployments, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    number = context.deploy(args["environment"], args["version"])
    return {"environment": args["environment"], "version": args["version"], "deploy": number}


def _preview(context: Deployments, args: Mapping[str, Any]) -> Question:
    """Production needs a change request approved on the release board (formal approval:
    no click in a chat replaces it); any other environment asks, showing what changes."""
    environment, version = args["environment"], args["version"]
    if environment == "production":
        return Question(
            text=f"Deploy {version} to production?",
            formal="a change request approved on the release board",
        )
    return Question(
        text=f"Deploy {version} to {environment}?",
        shown={"impact": f"everyone using {environment} runs {version} from now on"},
    )


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "deploy", "resource": args["environment"]}


#: deploy_release, declared once.
DEPLOY_SPEC = ToolSpec(
    name="deploy_release",
    title="Deploy a release of the shop",
    description="Deploy release 'version' of the shop to one environment ('staging' or"
    " 'production'). Changes what users of that environment run. Example:"
    ' {"environment": "staging", "version": "v2.4.1"}',
    input_schema=DEPLOY_SCHEMA,
    annotations=Annotations(read_only=False, destructive=True, idempotent=True, open_world=True),
    execute=_deploy,
    preview=_preview,
    source=_source,
)


def deploy_spec(deployments: Deployments) -> ToolSpec:
    """``deploy_release`` bound to ``deployments``."""
    return DEPLOY_SPEC.bind(deployments)
