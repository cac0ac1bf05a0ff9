"""The system prompt: who pleat is, the workspace, the platform, the tools, project instructions."""

from __future__ import annotations

import platform
from pathlib import Path

# Project instruction files, in order of preference: AGENTS.md is the cross-agent convention
# (Codex); CLAUDE.md is read when a project only has Claude Code's file.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
# Instruction files larger than this are cut: they ride along in every request, and a file
# this size (about 8k tokens) already costs more than most turns' own content.
MAX_INSTRUCTIONS_CHARS = 32_000


def project_instructions(workspace: Path) -> tuple[str, str] | None:
    """(file name, text) of the workspace's AGENTS.md, else CLAUDE.md, else None."""
    for name in INSTRUCTION_FILES:
        path = workspace / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if len(text) > MAX_INSTRUCTIONS_CHARS:
                text = (
                    text[:MAX_INSTRUCTIONS_CHARS]
                    + f"\n[... {name} cut at {MAX_INSTRUCTIONS_CHARS} chars]"
                )
            return name, text
    return None


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
        "- Writes, edits and commands need the user's approval; if one is refused, do not retry it"
        " unchanged: explain or ask.",
        "- Answer concisely; when done, say what you changed.",
    ]
    found = project_instructions(workspace)
    if found is not None:
        name, text = found
        lines += ["", f"Project instructions from {name}:", text.strip()]
    return "\n".join(lines)
