"""`pleat -p "/help"`: a built-in command of the TUI only is refused headless, nothing else is."""

from __future__ import annotations

import io
from pathlib import Path

from agent.headless.custom import tui_only_refusal, typed_command


def refusal(workspace: Path, prompt: str) -> str | None:
    return tui_only_refusal(typed_command(workspace, prompt, io.StringIO()))


def test_only_the_tuis_own_commands_are_refused(workspace: Path) -> None:
    refused = refusal(workspace, "  /help  ")
    assert refused is not None and refused.startswith("/help works in pleat's terminal UI only")
    assert refusal(workspace, "/sessions all") is not None
    assert refusal(workspace, "/undo") is None  # a headless command
    assert refusal(workspace, "/mcp") is None
    assert refusal(workspace, "/audit src/app.py") is None  # may be custom
    assert refusal(workspace, "/etc/hosts is broken") is None  # a path
    assert refusal(workspace, "help me") is None  # a prompt
