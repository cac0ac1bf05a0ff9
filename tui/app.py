"""The Textual app: layout, keys, and one worker per turn mapping agent events to widgets."""

from __future__ import annotations

import asyncio
import importlib
import time
from contextlib import aclosing
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Input
from textual.worker import Worker

from agent.assemble import build_agent, open_session
from agent.config import Config, ConfigError
from agent.loop import Agent
from agent.offline import prepare_offline_env
from agent.permissions import ApprovalRequest
from sessions.lock import SessionBusy
from sessions.store import Session, SessionError
from tui.approvals import Answer, SessionApprovals
from tui.help import configuration_help
from tui.screens.approval import ApprovalScreen
from tui.turn_view import THINKING, TurnView
from tui.widgets.conversation import Conversation
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar

# Seconds within which a second Ctrl+C quits: long enough to press it deliberately, short
# enough that an old stray press does not turn a later one into a quit.
QUIT_WINDOW_SECONDS = 2.0
# The empty input's hint: the three keys a new user needs.
PLACEHOLDER = "Ask pleat…  (Enter sends, ↑/↓ earlier prompts, Esc interrupts)"


def display_path(path: Path) -> str:
    """The workspace as the user thinks of it: ~ for the home directory."""
    try:
        relative = path.relative_to(Path.home())
    except ValueError:
        return str(path)
    return "~" if relative == Path() else f"~/{relative}"


class PleatApp(App[None]):
    """A chat with the agent about one workspace."""

    CSS_PATH = "pleat.tcss"
    TITLE = "pleat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt"),
        Binding("ctrl+c", "ctrl_c", "Quit (twice)", priority=True, show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("pageup", "page(-1)", "Scroll up", show=False),
        Binding("pagedown", "page(1)", "Scroll down", show=False),
    ]

    def __init__(
        self,
        config: Config | None,
        workspace: Path,
        config_error: str | None = None,
        *,
        approve_everything: bool = False,
    ) -> None:
        super().__init__()
        self.config = config
        self.workspace = workspace
        self.config_error = config_error
        self.approvals = SessionApprovals(self.ask_approval, approve_everything=approve_everything)
        self.agent: Agent | None = None
        self.session: Session | None = None
        # Why there is no agent, as Markdown shown again on every prompt (None: there is one).
        self.unavailable: str | None = None
        self.model_name = config.model if config is not None and config.model else ""
        self.turn: Worker[None] | None = None
        self._last_ctrl_c = -QUIT_WINDOW_SECONDS  # monotonic time of the last Ctrl+C

    def compose(self) -> ComposeResult:
        yield Header()
        yield Conversation(id="conversation")
        yield PromptInput(PLACEHOLDER)
        yield StatusBar(self.model_name, display_path(self.workspace))
        yield Footer()

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def busy(self) -> bool:
        """A turn is pending or running."""
        return self.turn is not None and not self.turn.is_finished

    async def on_mount(self) -> None:
        self.query_one(PromptInput).focus()
        self.unavailable = self._open_agent()
        if self.unavailable is not None:
            await self.conversation.add_markdown(self.unavailable, "help")
        else:
            self.run_worker(self._warm_up(), group="warm-up", exit_on_error=False)

    def _open_agent(self) -> str | None:
        """Open a new session and build its agent; None, or why that was not possible."""
        config = self.config
        if config is None or not config.model or self.config_error is not None:
            return configuration_help(self.config_error)
        try:
            config.model_settings()  # no usable model: say so before creating a session
            self.session, history, _notes = open_session(config, self.workspace)
            self.agent = build_agent(
                config, self.workspace, self.approvals, session=self.session, history=history
            )
        except ConfigError as error:
            return configuration_help(str(error))
        except (SessionError, SessionBusy) as error:
            return f"**pleat cannot open a session:** {error}"
        return None

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    async def _warm_up(self) -> None:
        """Import litellm (about 4 s) in a thread while the user types the first prompt."""
        prepare_offline_env()
        await asyncio.to_thread(importlib.import_module, "litellm")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        if self.busy:
            self.notify("A request is running: wait for it, or press Esc to interrupt it.")
            return
        prompt = self.query_one(PromptInput)
        prompt.remember(text)
        prompt.value = ""
        if self.agent is None:
            await self.conversation.add_user(text)
            await self.conversation.add_markdown(self.unavailable or "", "help")
            return
        self.turn = self.run_worker(
            self._run_turn(self.agent, text), group="turn", exclusive=True, exit_on_error=False
        )

    async def _run_turn(self, agent: Agent, text: str) -> None:
        """Run one request; the agent keeps its history valid when this worker is cancelled."""
        view = TurnView(self.conversation, self.status)
        self.status.state = THINKING
        await self.conversation.add_user(text)
        try:
            async with aclosing(agent.run_turn(text)) as events:
                async for event in events:
                    await view.show(event)
            await view.end_reply()
        except asyncio.CancelledError:
            await view.interrupted()
            raise
        except Exception as error:  # a bug, not a provider failure: those arrive as events
            self.log.error(error)
            await self.conversation.add_notice(
                f"internal error: {type(error).__name__}: {error}", "error"
            )
        finally:
            self.status.state = "idle"

    async def ask_approval(self, request: ApprovalRequest) -> Answer:
        """Show the approval modal from the turn's worker and wait for the answer."""
        state = self.status.state
        self.status.state = f"approve {request.tool}?"
        screen = ApprovalScreen(request)
        try:
            return await self.push_screen(screen, wait_for_dismiss=True)
        except asyncio.CancelledError:
            if self.screen is screen:
                self.pop_screen()
            raise
        finally:
            self.status.state = state

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turn:
            self.refresh_bindings()  # Esc comes and goes with the turn

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc is offered (and shown in the footer) only while a turn runs."""
        if action == "interrupt":
            return self.busy
        return True

    def action_interrupt(self) -> None:
        """Esc: cancel the running turn."""
        if self.turn is not None and not self.turn.is_finished:
            self.turn.cancel()

    def action_page(self, direction: int) -> None:
        """Page Up / Page Down scroll the conversation while the input keeps the focus."""
        if direction < 0:
            self.conversation.scroll_page_up()
        else:
            self.conversation.scroll_page_down()

    def action_ctrl_c(self) -> None:
        """Copy a selection; otherwise the first press warns and a second one quits."""
        focused = self.focused
        if isinstance(focused, Input) and focused.selected_text:
            focused.action_copy()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_SECONDS:
            self.exit()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_SECONDS)


def run(config: Config | None, workspace: Path, *, approve_everything: bool = False) -> int:
    """Run the TUI until the user quits; the process exit code."""
    app = PleatApp(config, workspace, approve_everything=approve_everything)
    app.run()
    return app.return_code or 0
