"""What the session lifecycle, the slash commands and the work tasks use of the app.

PleatApp (tui/app.py) provides it; those modules take a Host instead of the app, so none of
them imports the app and the app imports them without a circle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from textual import Logger
    from textual.screen import Screen

    from agent.commands.catalog import CommandCatalog
    from agent.session.asking import SessionApprovals
    from agent.session.runtime import SessionController
    from agent.session.startup import Startup
    from agent.turn.loop import Agent
    from sessions.store import Session
    from tui.idle import IdleWatch
    from tui.widgets.conversation import Conversation
    from tui.widgets.prompt_input import PromptInput
    from tui.widgets.queued_prompts import QueuedPrompts
    from tui.widgets.status_bar import StatusBar
    from tui.widgets.task_list import TaskList

# The agent's work the app runs, one at a time: a turn, a manual fold, an idle fold, a fork, a
# model switch (folding first when the new window is smaller), a `!` command (tui/shell_mode.py).
WorkKind = Literal["turn", "compact", "idle", "fork", "switch", "shell"]
# Said when a command would change the conversation while work runs.
BUSY = "A request is running: wait for it, or press Esc to interrupt it."


class Host(Protocol):
    """The app as its helpers see it."""

    workspace: Path
    startup: Startup
    approvals: SessionApprovals
    controller: SessionController | None  # made after the first frame
    opened: asyncio.Event  # set once the session is open (or cannot be)
    idle: IdleWatch
    # The command files, re-read on every use; made after the first frame (tui.custom_commands).
    custom_commands: CommandCatalog | None
    # Why there is no agent, as Markdown shown again on every prompt (None: there is one).
    unavailable: str | None
    # config.toml's [keys] as bound: a key's name to its keys (tui/keymap.py); /help shows them.
    rebound: dict[str, str]

    @property
    def conversation(self) -> Conversation: ...

    @property
    def status(self) -> StatusBar: ...

    @property
    def prompt(self) -> PromptInput:
        """The input (a rewound request comes back into it)."""
        ...

    @property
    def queued_prompts(self) -> QueuedPrompts: ...

    @property
    def task_list(self) -> TaskList: ...

    @property
    def agent(self) -> Agent | None: ...

    @property
    def session(self) -> Session | None: ...

    @property
    def working(self) -> bool:
        """A turn, a fold, a fork or a model switch is pending or running."""
        ...

    @property
    def busy(self) -> bool:
        """Work runs, or a command that changes the conversation does (prompts queue)."""
        ...

    @property
    def log(self) -> Logger: ...

    def notify(self, message: str) -> None: ...

    def start_work(self, kind: WorkKind, work: Coroutine[Any, Any, None]) -> None:
        """Run the agent's work (one at a time) in a worker; Esc cancels it."""
        ...

    def start_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work that nothing waits for (the warm-up) once the next frame is drawn."""
        ...

    def show_screen(self, screen: Screen[Any]) -> None: ...

    def copy_to_clipboard(self, text: str) -> None:
        """Textual's: OSC 52, which the terminal writes to the system clipboard."""
        ...

    async def ask_screen(self, screen: Screen[Any]) -> Any:
        """Show a screen and wait for the value it is dismissed with."""
        ...

    def quit_safely(self) -> None: ...
