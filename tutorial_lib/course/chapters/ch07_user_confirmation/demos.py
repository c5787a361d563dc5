"""Chapter 07's desk on screen: the chapter's road, and its confirmation widgets.

:func:`open_desk` starts what the chapter's cells share (and what its browser test
clicks through): the emulator and the road of :mod:`tutorial_lib.worlds.desk`
(:func:`~tutorial_lib.worlds.desk.open_emulator`, :func:`~tutorial_lib.worlds.desk.desk_host`),
the ``deploy_release`` tool's record, and :meth:`Desk.widget`, the question as a
:class:`~tutorial_lib.course.confirm_widgets.ConfirmationWidget`. Everything but the
widget is library logic and lives in the world; this module only puts it on screen.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tutorial_lib.course.confirm_widgets import ConfirmationWidget, describe_envelope
from tutorial_lib.examples.deploy import Deployments
from tutorial_lib.language import tr
from tutorial_lib.worlds.desk import (
    REPOSITORIES,
    EmulatorDesk,
    ManualClock,
    desk_host,
    open_emulator,
)

__all__ = ["Desk", "open_desk"]


@dataclass(kw_only=True)
class Desk(EmulatorDesk):
    """Chapter 07's desk: the emulator, the deploy tool's record, the confirmation flow."""

    deployments: Deployments

    def widget(self, request_id: str) -> ConfirmationWidget:
        """The question on screen; an acceptance runs the approved call once."""

        def after(envelope: Mapping[str, Any]) -> str:
            counts = tr("，", ", ").join(f"{repo}: {self.comments(repo)}" for repo in REPOSITORIES)
            result = describe_envelope(envelope)
            return tr(
                f"{result}；模拟器里的评论数 {counts}",
                f"{result}; comments in the emulator: {counts}",
            )

        return ConfirmationWidget(self.flow, request_id, run=self.run, after=after)


def open_desk(*, faults: str | None = None, ttl_s: float = 300.0, session: str = "S07") -> Desk:
    """A fresh desk. ``faults``: a chapter 05 fault script for the emulator (e.g.
    ``"commit_then_timeout:0.8"``: the first POST is stored, its answer lost)."""
    stack = contextlib.ExitStack()
    store, client = open_emulator(stack, faults)
    clock = ManualClock()
    deployments = Deployments()
    desk = Desk(store=store, clock=clock, deployments=deployments, _stack=stack)
    desk.host = desk_host(client, deployments, clock, session=session, ttl_s=ttl_s)
    return desk
