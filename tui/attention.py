"""Calling you back: when a turn ends or a question waits while the terminal does not have focus
(Textual's `app_focus`, kept from the terminal's focus reports, CSI ?1004), the bell or an OSC 9
desktop notification, as config `notify` says; and, focus or not, the Notification hooks
(agent/hooks/notification.py), run in the background so nothing waits for them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from agent.terminal_text import visible
from tui.host import Host

if TYPE_CHECKING:
    from agent.hooks.notification import NotificationType
    from agent.turn.loop import Agent

# The bell; it also ends an OSC sequence (xterm's short form, which every terminal reads).
BEL = "\a"
# An OSC 9 notification: `ESC ] 9 ; text BEL` (iTerm2's, also read by WezTerm, kitty, foot,
# Windows Terminal and Ghostty).
OSC9 = "\x1b]9;{text}" + BEL
# Characters of a notification's text: a desktop notification shows a line or two.
MAX_NOTICE_CHARS = 120
# What the turn's answer is cut to in the text (the rest is on the screen).
ANSWER_CHARS = 80


def notice_text(text: str) -> str:
    """`text` on one line with no control character left (a model's escape codes are shown as
    `\\x1b`, never sent), at most MAX_NOTICE_CHARS."""
    line = " ".join(visible(text).split())
    return line if len(line) <= MAX_NOTICE_CHARS else line[: MAX_NOTICE_CHARS - 1] + "…"


def terminal_signal(notify: str, text: str) -> str:
    """What the terminal is sent for `notify` ("bell", "osc9" or "off")."""
    if notify == "bell":
        return BEL
    if notify == "osc9":
        return OSC9.format(text=notice_text(text))
    return ""


def turn_message(agent: Agent) -> str:
    """What a finished turn's notification says: its answer's start, when there is one."""
    last = agent.history[-1] if agent.history else None
    answer = (last.content or "") if last is not None and last.role == "assistant" else ""
    first = " ".join(answer.split())[:ANSWER_CHARS]
    return f"pleat: done: {first}" if first else "pleat: the request is done"


def call_attention(host: Host, message: str, kind: NotificationType) -> None:
    """The terminal's signal when it does not have focus, and the Notification hooks."""
    config = host.startup.config
    signal = terminal_signal(config.notify if config is not None else "bell", message)
    if isinstance(host, App) and not host.app_focus and signal and not host.is_headless:
        driver = host._driver  # Textual's own bell() writes through it too
        if driver is not None:
            driver.write(signal)
    agent = host.agent
    if agent is not None and agent.hooks.has("Notification"):
        host.start_background(_run_hooks(host, agent, message, kind))


async def _run_hooks(host: Host, agent: Agent, message: str, kind: NotificationType) -> None:
    """The Notification hooks; what they say for the user joins the conversation."""
    from agent.hooks.notification import run_notification_hooks

    runner, mode = agent.hooks.runner, agent.permissions.mode
    for line in await run_notification_hooks(runner, mode, message, kind):
        await host.conversation.add_notice(line)
