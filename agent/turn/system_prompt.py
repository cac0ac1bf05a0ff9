"""The system prompt: who pleat is, the workspace, the platform, the tools, project instructions."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

from tools.paths import workspace_root
from tools.todo_list import TODO_TOOL_NAME
from tools.web_fetch import WEB_FETCH_TOOL_NAME
from tools.workspace_text import read_workspace_text

# Project instruction files, in order of preference: AGENTS.md is the cross-agent convention
# (Codex); CLAUDE.md is read when a project only has Claude Code's file.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
# Instruction files are read up to this many bytes, and cut there: they ride along in every
# request, and a file this size (about 8k tokens) already costs more than most turns' own content.
MAX_INSTRUCTIONS_BYTES = 32_000


@dataclass(frozen=True)
class Instructions:
    """The project instruction file used (name and text, or None), and one line for each
    instruction file skipped on the way (a symlink leading out, a pipe, a device ...)."""

    name: str | None
    text: str | None
    skipped: tuple[str, ...]


def project_instructions(workspace: Path) -> Instructions:
    """The workspace's AGENTS.md, else CLAUDE.md: the first that is a regular file inside the
    workspace (tools/workspace_text.py); the others are skipped with their reason."""
    skipped: list[str] = []
    for name in INSTRUCTION_FILES:
        found = read_workspace_text(
            workspace, workspace_root(workspace) / name, MAX_INSTRUCTIONS_BYTES
        )
        if found.skipped is not None:
            skipped.append(f"project instructions skipped: {found.skipped}")
        if found.text is None:
            continue
        text = found.text
        if found.cut:
            text += f"\n[... {name} cut at {MAX_INSTRUCTIONS_BYTES:,} bytes]"
        return Instructions(name, text, tuple(skipped))
    return Instructions(None, None, tuple(skipped))


def system_prompt(workspace: Path, tool_names: list[str]) -> str:
    """The fixed system prompt of a session. It never changes mid-session, so it stays cached."""
    lines = [
        "You are pleat, a coding agent working in the user's terminal.",
        f"Workspace (every path is relative to it; you cannot leave it): {workspace}",
        f"Platform: {platform.system()} {platform.release()} ({platform.machine()}), "
        f"Python {platform.python_version()}",
        f"Tools: {', '.join(tool_names)}.",
        "",
        "How to work:",
        "- Read before you edit; keep edits small and exact (edit_file replaces one exact string).",
        "- Use grep and glob to find code instead of guessing paths.",
        "- Run tests or commands with run_command when it helps to check your work.",
        "- If a call is refused, do not retry it unchanged: explain or ask.",
        "- Answer concisely; when done, say what you changed.",
    ]
    if TODO_TOOL_NAME in tool_names:
        lines.insert(
            -1,
            f"- For work of three steps or more, keep a task list with {TODO_TOOL_NAME}; one "
            "task in_progress at a time.",
        )
    if WEB_FETCH_TOOL_NAME in tool_names:
        lines.insert(
            -1,
            f"- To read a web page the work needs (documentation, an issue), use "
            f"{WEB_FETCH_TOOL_NAME}: http(s) only, the page comes back as markdown; it asks the "
            "user first unless a rule allows the URL.",
        )
    found = project_instructions(workspace)
    if found.text is not None:
        lines += ["", f"Project instructions from {found.name}:", found.text.strip()]
    return "\n".join(lines)
