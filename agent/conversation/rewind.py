"""/undo and /rewind: plan, put the files back, journal the rewind, swap the conversation in.

The same steps serve the TUI and headless runs; only the question about files changed since
pleat wrote them differs (the TUI asks, headless keeps the user's version). The rewind record
replaces the live history on replay, as a compaction's does, so `--continue` resumes exactly
the rewound conversation; message ids keep counting past the highest ever used.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from agent.conversation.rewind_plan import (
    RewindPlan,
    RewindRefused,
    first_line,
    plan_rewind,
    turn_label,
)
from agent.turn.loop import Agent
from sessions.checkpoint_store import CheckpointMissing
from sessions.journal import now, replay_journal
from sessions.lineage import SCOPES, Scope, Turn, rewind_record
from sessions.store import Session
from tools.base import ToolError
from tools.file_restore import put_back
from tools.git_snapshots import GitSnapshotError

__all__ = [
    "RewindOutcome",
    "RewindPlan",
    "RewindRefused",
    "Rewinder",
    "first_line",
    "one_line",
    "turn_label",
]


# How /rewind is written, in its usage lines (TUI and headless).
REWIND_USAGE = "/rewind [N [files|conversation|both]]"
# A turn number as /rewind takes it: ASCII digits only (`"²".isdigit()` is true, int() refuses
# it), and at most six of them (no conversation has a million requests).
TURN_NUMBER = re.compile(r"[0-9]{1,6}")


def one_line(text: str) -> str:
    """A line naming a file, kept one line: a newline in a file name is shown as `\\n` (other
    control characters are the terminal sanitizer's to show)."""
    return text.replace("\n", "\\n")


def parse_rewind(arg: str) -> tuple[int, Scope] | None:
    """`N [scope]` as (N, scope), scope "both" by default; None when it is not that."""
    words = arg.split()
    if not 1 <= len(words) <= 2 or not TURN_NUMBER.fullmatch(words[0]):
        return None
    scope = next((s for s in SCOPES if s == (words[1] if len(words) > 1 else "both")), None)
    return None if scope is None else (int(words[0]), scope)


@dataclass
class RewindOutcome:
    """What a rewind did, for the front end to say."""

    plan: RewindPlan
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # changed since pleat wrote them: left as is
    failed: list[str] = field(default_factory=list)  # one line each: why not restored

    @property
    def prompt(self) -> str:
        """The request of the turn rewound (it goes back into the TUI's input)."""
        return self.plan.turn.prompt

    def summary(self, undo: bool) -> str:
        """One line: which turn, what went back."""
        plan = self.plan
        line = first_line(plan.turn.prompt)
        if undo:
            return f"undid turn {plan.number}: {line}"
        what = {"both": "files and conversation", "files": "files", "conversation": "conversation"}
        return f"rewound the {what[plan.scope]} to before turn {plan.number}: {line}"


@dataclass
class Rewinder:
    """Rewinds one open session and its agent."""

    agent: Agent
    session: Session

    async def turns(self) -> list[Turn]:
        """The user turns of the live conversation, folded ones included, oldest first."""
        await self.session.sync()
        replayed = await asyncio.to_thread(replay_journal, self.session.journal.path)
        return replayed.lineage.turns

    async def plan(self, number: int | None, scope: Scope) -> RewindPlan:
        """The rewind to turn `number` (None: the last). Raises RewindRefused."""
        if self.agent.checkpoints is None and scope != "conversation":
            raise RewindRefused("this session keeps no checkpoints: only the conversation rewinds")
        if (problem := await self.session.sync()) is not None:
            raise RewindRefused(problem)
        recorder = self.agent.checkpoints
        return await asyncio.to_thread(
            plan_rewind,
            self.session.journal.path,
            list(self.agent.history),
            number,
            scope,
            workspace=self.agent.context.workspace,
            store=self.session.checkpoints,
            git=recorder.git if recorder is not None else None,
            registry=self.agent.registry,
            extra_roots=self.agent.context.extra_roots,  # files written in added directories
        )

    async def apply(self, plan: RewindPlan, overwrite: Collection[str] = ()) -> RewindOutcome:
        """Put the files back (a conflict only when in `overwrite`), journal the rewind, and
        make the conversation before the turn the live one."""
        outcome = await asyncio.to_thread(self._restore, plan, set(overwrite))
        files = {"restored": outcome.restored, "removed": outcome.removed, "kept": outcome.kept}
        prompt = plan.turn.prompt
        self.session.record(
            rewind_record(plan.turn.id, plan.scope, prompt, now(), files, plan.history)
        )
        if (problem := await self.session.sync()) is not None:
            raise RewindRefused(problem)
        if plan.history is not None:
            self.agent.folds.drop_background_fold("the conversation was rewound")  # never applied
            self.agent.history = list(plan.history)
            if self.agent.compactor is not None:
                self.agent.compactor.tokens.reset_report()
        return outcome

    def _restore(self, plan: RewindPlan, overwrite: set[str]) -> RewindOutcome:
        outcome = RewindOutcome(plan)
        recorder = self.agent.checkpoints
        workspace = self.agent.context.workspace
        # Removals first, deepest first: a file pleat made where a directory stood (or files
        # in a directory where a file stood) go before the old file or directory comes back.
        removals = sorted(
            (r for r in plan.restores if r.target is None),
            key=lambda r: (-r.path.count("/"), r.path),
        )
        writes = [r for r in plan.restores if r.target is not None]
        for restore in removals + writes:
            if restore.conflict and restore.path not in overwrite:
                outcome.kept.append(restore.path)
                continue
            try:
                data = None
                if restore.target is not None and restore.target.startswith("git:"):
                    assert recorder is not None and recorder.git is not None
                    data = recorder.git.read(restore.target.removeprefix("git:"))
                elif restore.target is not None:
                    data = self.session.checkpoints.get(restore.target)
                put_back(
                    workspace,
                    restore.path,
                    data,
                    restore.mode,
                    made_dir=restore.made_dir,
                    extra_roots=self.agent.context.extra_roots,
                )
            except (ToolError, CheckpointMissing, GitSnapshotError) as error:
                outcome.failed.append(f"{restore.path}: {error}")
                continue
            (outcome.removed if restore.target is None else outcome.restored).append(restore.path)
        outcome.removed.sort()
        return outcome
