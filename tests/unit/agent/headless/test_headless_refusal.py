"""`pleat -p "/help"`: a built-in command of the TUI only is refused headless, nothing else is."""

from __future__ import annotations

from agent.headless.custom import tui_only_refusal


def test_only_the_tuis_own_commands_are_refused() -> None:
    refused = tui_only_refusal("  /help  ")
    assert refused is not None and refused.startswith("/help works in pleat's terminal UI only")
    assert tui_only_refusal("/sessions all") is not None
    assert tui_only_refusal("/undo") is None  # a headless command
    assert tui_only_refusal("/mcp") is None
    assert tui_only_refusal("/audit src/app.py") is None  # may be custom
    assert tui_only_refusal("/etc/hosts is broken") is None  # a path
    assert tui_only_refusal("help me") is None  # a prompt
