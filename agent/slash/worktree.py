"""/worktree: the git worktrees pleat made in this repository (`pleat --worktree`, sub-agents
with `isolation: worktree`), each with its branch, its directory and whether it changed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from agent.events import CommandOutput, SessionEvent
from agent.slash.context import CommandContext, Failed, Refused
from agent.terminal_text import visible
from tools.git_worktrees import WorktreeError, changes, main_checkout, pleat_worktrees


def worktree_lines(workspace: Path) -> list[str]:
    """One line per worktree pleat made in `workspace`'s repository (a heading first), the
    one `workspace` is marked. Raises WorktreeError."""
    repo = main_checkout(workspace)
    found = pleat_worktrees(repo)
    if not found:
        return [f"No worktrees made by pleat in {repo} (pleat --worktree NAME makes one)."]
    here = workspace.resolve()
    lines = [f"Worktrees pleat made in {repo}:"]
    for worktree in found:
        try:
            state = changes(worktree).describe()
        except WorktreeError as error:
            state = f"not readable: {error}"
        state = state if state == "clean" else f"changed: {state}"
        mark = "  (this session)" if here.is_relative_to(worktree.path) else ""
        lines.append(f"- {worktree.name}  branch {worktree.branch}  {state}  {worktree.path}{mark}")
    return [visible(line) for line in lines]


async def worktree(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """The worktrees pleat made here: name, branch, changed or clean, path."""
    if arg.strip():
        raise Refused("/worktree takes nothing: it lists the worktrees pleat made here")
    try:
        lines = await asyncio.to_thread(worktree_lines, ctx.workspace)
    except WorktreeError as error:
        raise Failed(visible(str(error))) from None
    yield CommandOutput("\n".join(lines))
