"""/add-dir in the TUI: add a directory outside the workspace for this session, or list them
(agent/permissions/added_dirs.py checks it, agent/turn/added_dirs.py adds it)."""

from __future__ import annotations

import asyncio

from agent.permissions.added_dirs import checked_dirs
from agent.turn.added_dirs import add_directory
from tui.host import Host

# Said by /add-dir alone when none is added.
NONE_ADDED = (
    "No directory outside the workspace is added: /add-dir DIR adds one for this session "
    "(--add-dir DIR, or add_dirs in config.toml, for every run)."
)
# The quotes a path may be typed in (`/add-dir "~/my notes"`), taken off as a shell would.
QUOTES = ("'", '"')


async def add_dir(host: Host, text: str) -> None:
    """`/add-dir` lists the added directories; `/add-dir DIR` checks DIR and adds it: the model
    is told with the next prompt, and its sandboxed commands may write there."""
    agent = host.agent
    assert agent is not None
    wanted = text.strip()
    if len(wanted) > 1 and wanted[0] in QUOTES and wanted[-1] == wanted[0]:
        wanted = wanted[1:-1]
    if not wanted:
        roots = agent.context.extra_roots
        said = "\n".join(["added directories:", *map(str, roots)]) if roots else NONE_ADDED
        await host.conversation.add_notice(said)
        return
    found, problems = await asyncio.to_thread(checked_dirs, [wanted], host.workspace)
    if problems:
        await host.conversation.add_notice(f"/add-dir: {problems[0]}", "error")
        return
    if not found:
        await host.conversation.add_notice(f"/add-dir: {wanted} is in the workspace already")
        return
    directory = found[0]
    if directory in agent.context.extra_roots:
        await host.conversation.add_notice(f"/add-dir: {directory} is added already")
        return
    refused = add_directory(agent, directory)
    if refused is not None:
        await host.conversation.add_notice(f"/add-dir: {refused}", "error")
        return
    await host.conversation.add_notice(
        f"added {directory} for this session: the model may read and write it (told with your "
        "next prompt), and commands in the sandbox may write there"
    )
