"""The permission modes: their names (pleat's, and Claude Code's), their order, and what each does
in one line (light to import: the configuration checks them before the first frame)."""

from __future__ import annotations

from typing import Literal, get_args

# How tool calls are approved: ask first, let file edits run, only read (plan), let all run.
Mode = Literal["ask", "accept-edits", "plan", "full-auto"]
# Every mode, in the order Shift+Tab cycles through them (ask is the default).
MODES: tuple[Mode, ...] = get_args(Mode)
# What each mode does, in one line (the TUI's notice when it changes, --help, the README).
MODE_HELP: dict[Mode, str] = {
    "ask": "writes, edits and commands ask first",
    "accept-edits": "file writes and edits run without asking; commands ask",
    "plan": "only tools that read run; the model plans, and you accept the plan or not",
    "full-auto": "everything runs without asking (deny rules still hold)",
}
# Claude Code's name for each mode: what the json and stream-json output say.
CLAUDE_MODES: dict[Mode, str] = {
    "ask": "default",
    "accept-edits": "acceptEdits",
    "plan": "plan",
    "full-auto": "bypassPermissions",
}
# Claude Code's names pleat takes for its own (--permission-mode, the config key, the variable):
# each of the four above, and `dontAsk`, which refuses whatever would ask, as pleat's ask mode
# does headless (in the TUI it asks: never more permissive than asked for). Claude Code's `auto`
# (a classifier approves calls) has no counterpart and is refused like any unknown name.
CLAUDE_ALIASES: dict[str, Mode] = {
    **{claude: mode for mode, claude in CLAUDE_MODES.items()},
    "dontAsk": "ask",
}


# What --yes (headless and in the TUI) means: every call runs without asking.
YES_MODE: Mode = "full-auto"
# The modes' help in one line each, as --permission-mode's help gives it.
MODES_LINE = "; ".join(f"{mode}: {MODE_HELP[mode]}" for mode in MODES)


def starting_mode(configured: str, yes: bool) -> str:
    """The mode a run starts in: YES_MODE with --yes, whatever is configured; else the
    configured one (checked by agent/config.py)."""
    return YES_MODE if yes else configured


def mode_named(name: str) -> str:
    """pleat's name for a mode named as pleat or Claude Code names it (anything else as given,
    for the caller to refuse)."""
    return CLAUDE_ALIASES.get(name, name)
