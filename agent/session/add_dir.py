"""/add-dir for any front end: add a directory outside the workspace for this session, or list
them (agent/permissions/added_dirs.py checks it, agent/turn/added_dirs.py adds it); the answer
is one line for the front end to show."""

from __future__ import annotations

from pathlib import Path

from agent.permissions.added_dirs import checked_dirs
from agent.turn.added_dirs import add_directory
from agent.turn.loop import Agent

# Said by /add-dir alone when none is added.
NONE_ADDED = (
    "No directory outside the workspace is added: /add-dir DIR adds one for this session "
    "(--add-dir DIR, or add_dirs in config.toml, for every run)."
)
# The quotes a path may be typed in (`/add-dir "~/my notes"`), taken off as a shell would.
QUOTES = ("'", '"')


def add_dir(agent: Agent, text: str, workspace: Path) -> tuple[str, bool]:
    """`/add-dir` lists the added directories; `/add-dir DIR` checks DIR and adds it: the model
    is told with the next prompt, and its sandboxed commands may write there. Returns the line
    to show and whether it is an error (blocking: it looks at the file system)."""
    wanted = text.strip()
    if len(wanted) > 1 and wanted[0] in QUOTES and wanted[-1] == wanted[0]:
        wanted = wanted[1:-1]
    if not wanted:
        roots = agent.context.extra_roots
        return ("\n".join(["added directories:", *map(str, roots)]) if roots else NONE_ADDED), False
    found, problems = checked_dirs([wanted], workspace)
    if problems:
        return f"/add-dir: {problems[0]}", True
    if not found:
        return f"/add-dir: {wanted} is in the workspace already", False
    directory = found[0]
    if directory in agent.context.extra_roots:
        return f"/add-dir: {directory} is added already", False
    refused = add_directory(agent, directory)
    if refused is not None:
        return f"/add-dir: {refused}", True
    return (
        f"added {directory} for this session: the model may read and write it (told with your "
        "next prompt), and commands in the sandbox may write there"
    ), False
