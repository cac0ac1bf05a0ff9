"""The permission mode on screen: where it starts, what the status bar and a notice say of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.permissions.modes import MODE_HELP, Mode, starting_mode
from agent.permissions.policy import Permissions

if TYPE_CHECKING:
    from agent.config import Config
    from tui.host import Host


def starting_permissions(config: Config | None, approve_everything: bool) -> Permissions:
    """The configuration's mode and rules (--yes: agent/permissions/modes.py starting_mode)."""
    if config is None:
        return Permissions.from_settings(starting_mode("ask", approve_everything), (), ())
    mode = starting_mode(config.permission_mode, approve_everything)
    return Permissions.from_settings(mode, config.allow, config.deny, config.ask)


def mode_notice(mode: Mode) -> str:
    """The notice of a mode change: the mode, what it does, and the key that changes it."""
    return f"{mode} mode: {MODE_HELP[mode]} (Shift+Tab changes the mode)"


def show_mode(host: Host, mode: Mode) -> None:
    """The mode changed (Shift+Tab, or a plan accepted): the status bar shows it, a notice
    says what it does."""
    host.status.mode = mode

    async def say() -> None:
        await host.conversation.add_notice(mode_notice(mode))

    host.start_background(say())
