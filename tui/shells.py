"""Ctrl+B in the TUI: the running command goes to the background (/shells lists them:
agent/slash/listings.py)."""

from __future__ import annotations

from tools.background_tools import background_of
from tools.errors import ToolError
from tui.host import Host


def send_to_background(host: Host) -> str:
    """Ctrl+B: the running foreground command goes to the background (its call answers at once
    with its id); what to tell the user."""
    background = background_of(host.agent.registry) if host.agent is not None else None
    if background is None:
        return "No command is running."
    try:
        sent = background.send_foreground_to_background()
    except ToolError as error:
        return str(error)
    if not sent:
        return "No command is running."
    return "The command went to the background (/shells lists it)."
