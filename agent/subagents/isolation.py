"""A sub-agent whose definition says `isolation: worktree` works in a git worktree of its own
(tools/git_worktrees.py: `.pleat/worktrees/agent-<hex>` on the branch `pleat/agent-<hex>`, from
the workspace's HEAD): its files, commands and sandbox are rooted there. When it ends, the
worktree and its branch are removed if it changed nothing; otherwise both are kept, and its
result says where and on which branch, as Claude Code's does."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from agent.subagents.definitions import WORKTREE, AgentDefinition
from tools.base import ToolError, ToolOutput
from tools.git_worktrees import (
    Worktree,
    WorktreeError,
    changes,
    create_worktree,
    made_up_name,
    remove_worktree,
    workspace_in,
)
from tools.sandbox.policy import Sandbox

# How a sub-agent's worktree is named before its random part.
AGENT_PREFIX = "agent-"


async def open_worktree(
    definition: AgentDefinition | None, workspace: Path
) -> tuple[Worktree, Path] | None:
    """The sub-agent's own worktree when its definition asks for one, and where in it to work
    (`workspace`'s place in the checkout); None: it works in the workspace. Raises ToolError
    with one line when one cannot be made."""
    if definition is None or definition.isolation != WORKTREE:
        return None
    name = made_up_name(AGENT_PREFIX)
    try:
        worktree, _reused = await asyncio.to_thread(create_worktree, workspace, name)
    except WorktreeError as error:
        raise ToolError(
            f"isolation: worktree: cannot make the sub-agent's worktree: {error}"
        ) from None
    return worktree, await asyncio.to_thread(workspace_in, worktree, workspace)


def sandbox_in(sandbox: Sandbox | None, place: Path) -> Sandbox | None:
    """The parent's sandbox, rooted at `place` in the worktree (its git metadata writable)."""
    return None if sandbox is None else dataclasses.replace(sandbox, workspace=place)


def _settle(worktree: Worktree) -> str:
    where = f"worktree {worktree.path} (branch {worktree.branch})"
    try:
        found = changes(worktree)
        if found.any:
            return f"[isolation: its work is kept in the {where}: {found.describe()}]"
        remove_worktree(worktree)
    except WorktreeError as error:
        return f"[isolation: its {where} is left as it is: {error}]"
    return f"[isolation: it changed nothing; its {where} was removed]"


async def settle_worktree(worktree: Worktree | None) -> str | None:
    """Remove the worktree and its branch when the sub-agent changed nothing in it; the line
    its result ends with (None: it had no worktree)."""
    return None if worktree is None else await asyncio.to_thread(_settle, worktree)


def reported(output: ToolOutput, worktree: Worktree | None, line: str | None) -> ToolOutput:
    """The sub-agent's result with the line about its worktree, and its branch in the meta."""
    if worktree is None or line is None:
        return output
    meta = {**output.meta, "worktree": str(worktree.path), "branch": worktree.branch}
    return dataclasses.replace(output, text=f"{output.text}\n\n{line}", meta=meta)
