"""/theme: one of Textual's themes, by name or from its picker; the choice, however it was made
(the palette's "Theme" too), remembered in $PLEAT_HOME/tui-state.json and taken again at start."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.terminal_text import visible
from sessions.atomic import atomic_write
from sessions.paths import data_home

if TYPE_CHECKING:
    from textual.app import App
    from textual.theme import Theme

    from tui.host import Host

# The file of the TUI's remembered choices, in the data directory (not config.toml: that is the
# user's to write, comments and all).
STATE_FILE = "tui-state.json"
# Said when the picker opens: the theme in use, and how the picker works.
PICKING = "theme: {name} in use; pick another (type to filter, Enter picks, Esc keeps it)"
# Bytes of it read at most: it holds a theme's name; anything near this is damaged.
MAX_STATE_BYTES = 64 * 1024


def state_path() -> Path:
    return data_home() / STATE_FILE


def remembered() -> str | None:
    """The theme chosen last (None: none, or the file is missing or damaged)."""
    try:  # without blocking (a named pipe in its place waits for a writer): files only
        fd = os.open(state_path(), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            raw = file.read(MAX_STATE_BYTES + 1)
        state = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_STATE_BYTES else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    theme = state.get("theme") if isinstance(state, dict) else None
    return theme if isinstance(theme, str) else None


def remember(name: str) -> None:
    """Keep `name` for the next start. Raises OSError when it cannot be written."""
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"theme": name}).encode("utf-8"))


def names(app: App[Any]) -> list[str]:
    return sorted(app.available_themes)


def restore(app: App[Any], host: Host) -> list[str]:
    """At start: the remembered theme (one line when it is no longer one of Textual's), and
    every later change of theme remembered."""
    saved = remembered()
    lines: list[str] = []
    if saved in app.available_themes:
        app.theme = saved
    elif saved is not None:
        lines.append(f"theme {visible(saved)!r} (remembered) is not a theme: {app.theme} is used")
    last = [app.theme]

    def changed(theme: Theme) -> None:
        if theme.name != last[0]:
            last[0] = theme.name
            app.run_worker(_remember(host, theme.name), group="theme", exit_on_error=False)

    app.theme_changed_signal.subscribe(app, changed)
    return lines


async def _remember(host: Host, name: str) -> None:
    try:
        await asyncio.to_thread(remember, name)
    except OSError as error:
        line = f"theme {name}: cannot remember it in {state_path()}: {error.strerror or error}"
        await host.conversation.add_notice(visible(line), "error")
        return
    await host.conversation.add_notice(f"theme: {visible(name)} (kept for the next start)")


async def theme(host: Host, app: App[Any], arg: str) -> None:
    """/theme NAME switches to NAME; /theme alone opens Textual's theme picker (type to
    filter, Enter picks)."""
    name = arg.strip()
    if not name:
        await host.conversation.add_notice(PICKING.format(name=visible(app.theme)))
        app.search_themes()
        return
    if name not in app.available_themes:
        line = f"no theme {name!r}; the themes: {', '.join(names(app))}"
        await host.conversation.add_notice(visible(line), "error")
        return
    if name == app.theme:
        await host.conversation.add_notice(f"theme: {name} (already in use)")
        return
    app.theme = name  # remembered when Textual says it changed (restore's subscription)
