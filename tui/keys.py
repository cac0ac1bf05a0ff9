"""The keys of the TUI: one table, from which the app's bindings and the help's key list are made.

A row says which keys, what they do (the help's words), and, for a key the app binds itself,
its binding: its name in config.toml's [keys] table (tui/keymap.py rebinds it by that name),
the key as Textual names it, the action, the footer's label, whether the footer shows it, and
whether it goes before the focused widget (the prompt would take PgUp and Shift+Tab for its own
cursor otherwise). Keys the prompt handles itself (Enter, a new line, the history) are listed
for the help only; their handling is tui/widgets/prompt_input.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding

from agent.permissions.modes import MODES


@dataclass(frozen=True)
class KeyBinding:
    """How the app binds a key (Textual's Binding fields; `name` is its id, for [keys])."""

    name: str
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
        KeyBinding("interrupt", "escape", "interrupt", "Interrupt"),
    ),
    Key(
        "Esc Esc in an empty prompt",
        "/rewind, at the last request",
        KeyBinding("rewind", "escape", "rewind_on_escape", "Rewind", show=False),
    ),
    Key(
        "Ctrl+G",
        "edit the prompt in $VISUAL or $EDITOR",
        KeyBinding("edit_prompt", "ctrl+g", "edit_prompt", "Editor", show=False),
    ),
    Key(
        "Shift+Tab",
        f"the next permission mode: {', '.join(MODES)}",
        KeyBinding("cycle_mode", "shift+tab", "cycle_mode", "Mode", priority=True),
    ),
    Key(
        "PgUp",
        "scroll the conversation up",
        KeyBinding("page_up", "pageup", "page(-1)", "Scroll up", show=False, priority=True),
    ),
    Key(
        "PgDn",
        "scroll the conversation down",
        KeyBinding("page_down", "pagedown", "page(1)", "Scroll down", show=False, priority=True),
    ),
    Key(
        "Ctrl+B",
        "send the running command to the background (/shells lists them; in tmux press it twice)",
        KeyBinding("background_command", "ctrl+b", "background_command", "Background", show=False),
    ),
    Key(
        "Ctrl+P",
        "command palette",
        # Textual's own palette binding, named here so [keys] can move it ("palette": its label).
        KeyBinding(
            "command_palette", "ctrl+p", "command_palette", "palette", show=False, priority=True
        ),
    ),
    Key(
        "Ctrl+C twice",
        "quit",
        KeyBinding("copy_or_quit", "ctrl+c", "ctrl_c", "Quit (twice)", show=False, priority=True),
    ),
    Key("Ctrl+Q", "quit", KeyBinding("quit", "ctrl+q", "quit", "Quit", priority=True)),
)


def app_bindings() -> list[Binding]:
    """The app's bindings, from the table."""
    return [
        Binding(b.key, b.action, b.label, show=b.show, priority=b.priority, id=b.name)
        for b in (key.binding for key in KEYS)
        if b is not None
    ]


def shown(keys: str) -> str:
    """Textual's key names as the help writes keys: "ctrl+o,f2" is "Ctrl+O, F2"."""
    return ", ".join(
        "+".join(part[:1].upper() + part[1:] for part in key.strip().split("+"))
        for key in keys.split(",")
    )


def key_help(rebound: Mapping[str, str] | None = None) -> str:
    """The help's key list: a Markdown table, with the keys config.toml's [keys] rebound
    (`rebound`: a binding's name to its keys, tui/keymap.py) in place of the defaults, and each
    rebindable key's name."""
    rows = ["| key | does | [keys] name |", "|---|---|---|"]
    for key in KEYS:
        name = key.binding.name if key.binding is not None else ""
        keys = shown(rebound[name]) if rebound and name in rebound else key.keys
        rows.append(f"| {keys} | {key.does} | {f'`{name}`' if name else ''} |")
    return "\n".join(rows) + "\n"
