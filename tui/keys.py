"""The keys of the TUI: one table, from which the app's bindings and the help's key list are made.

A row says which keys, what they do (the help's words), and, for a key the app binds itself,
its binding: the key as Textual names it, the action, the footer's label, whether the footer
shows it, and whether it goes before the focused widget (the prompt would take PgUp and
Shift+Tab for its own cursor otherwise). Keys the prompt handles itself (Enter, a new line,
the history) are listed for the help only; their handling is tui/widgets/prompt_input.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

from agent.permissions.modes import MODES


@dataclass(frozen=True)
class KeyBinding:
    """How the app binds a key (Textual's Binding fields)."""

    key: str
    action: str
    label: str
    show: bool = True
    priority: bool = False


@dataclass(frozen=True)
class Key:
    keys: str  # as the help writes them
    does: str
    binding: KeyBinding | None = None  # None: the prompt handles it


KEYS: tuple[Key, ...] = (
    Key("Enter", "send the prompt (while pleat works: queue it, read at its next model call)"),
    Key("Shift+Enter, Ctrl+J, `\\` then Enter", "a new line in the prompt"),
    Key("↑ / ↓", "earlier prompts (from the first / last line)"),
    Key("↑ in an empty prompt", "take the newest queued prompt back, to edit or drop"),
    Key("`/`", "commands; `@` a workspace file"),
    Key("`!` then a command", "run it in the workspace (no model call); the output joins the chat"),
    Key("Tab", "take the highlighted suggestion"),
    Key(
        "Esc",
        "interrupt the running request (queued prompts come back into the prompt)",
        KeyBinding("escape", "interrupt", "Interrupt"),
    ),
    Key(
        "Esc Esc in an empty prompt",
        "/rewind, at the last request",
        KeyBinding("escape", "rewind_on_escape", "Rewind", show=False),
    ),
    Key(
        "Ctrl+G",
        "edit the prompt in $VISUAL or $EDITOR",
        KeyBinding("ctrl+g", "edit_prompt", "Editor", show=False),
    ),
    Key(
        "Shift+Tab",
        f"the next permission mode: {', '.join(MODES)}",
        KeyBinding("shift+tab", "cycle_mode", "Mode", priority=True),
    ),
    Key(
        "PgUp",
        "scroll the conversation up",
        KeyBinding("pageup", "page(-1)", "Scroll up", show=False, priority=True),
    ),
    Key(
        "PgDn",
        "scroll the conversation down",
        KeyBinding("pagedown", "page(1)", "Scroll down", show=False, priority=True),
    ),
    Key(
        "Ctrl+B",
        "send the running command to the background (/shells lists them; in tmux press it twice)",
        KeyBinding("ctrl+b", "background_command", "Background", show=False),
    ),
    Key("Ctrl+P", "command palette"),
    Key(
        "Ctrl+C twice",
        "quit",
        KeyBinding("ctrl+c", "ctrl_c", "Quit (twice)", show=False, priority=True),
    ),
    Key("Ctrl+Q", "quit", KeyBinding("ctrl+q", "quit", "Quit", priority=True)),
)


def app_bindings() -> list[Binding]:
    """The app's bindings, from the table."""
    return [
        Binding(b.key, b.action, b.label, show=b.show, priority=b.priority)
        for b in (key.binding for key in KEYS)
        if b is not None
    ]


def key_help() -> str:
    """The help's key list: a Markdown table."""
    rows = [f"| {key.keys} | {key.does} |" for key in KEYS]
    return "\n".join(["| key | does |", "|---|---|", *rows]) + "\n"
