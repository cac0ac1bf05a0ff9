"""The TUI's own settings, taken at start: config.toml's [keys] bound (tui/keymap.py), its
editor_mode's vim keys, the remembered theme (tui/themes.py), what cannot be used said in one
line each once the session is open; and /vim, which turns the vim keys on and off."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.terminal_text import visible
from tui.host import Host

if TYPE_CHECKING:
    from textual.app import App

# /vim's arguments: alone it toggles.
VIM_SWITCH = {"": None, "on": True, "off": False}
VIM_ON = (
    "vim keys on: Esc for normal mode, i to type again; Enter sends in both "
    '(for this run: editor_mode = "vim" in config.toml keeps them on)'
)
VIM_OFF = "vim keys off"


def apply(host: Host, app: App[Any]) -> None:
    """Before the first frame: the keys rebound, the vim keys, the theme."""
    from tui.keymap import keymap
    from tui.themes import restore

    config = host.startup.config
    lines: list[str] = []
    if config is not None:
        host.rebound, lines = keymap(config.keys)
        app.set_keymap(host.rebound)
        host.prompt.set_vim(config.editor_mode == "vim")
    lines += restore(app, host)
    if lines:
        host.start_background(_say(host, lines))


async def _say(host: Host, lines: list[str]) -> None:
    await host.opened.wait()  # after the session's conversation is shown (a resume replaces it)
    for line in lines:
        await host.conversation.add_notice(line, "error")


async def vim(host: Host, arg: str) -> None:
    """/vim [on|off]: the prompt's vim keys, for this run."""
    word = arg.strip().lower()
    if word not in VIM_SWITCH:
        await host.conversation.add_notice(
            f"/vim takes on, off or nothing, not {visible(arg)!r}", "error"
        )
        return
    wanted = VIM_SWITCH[word]
    on = host.prompt.vim is None if wanted is None else wanted
    if on != (host.prompt.vim is not None):
        host.prompt.set_vim(on)
    host.prompt.focus()
    await host.conversation.add_notice(VIM_ON if on else VIM_OFF)
