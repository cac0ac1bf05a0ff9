"""The permission modes: their names, their order, and what each does in one line (light to
import: the configuration checks them before the first frame)."""

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
