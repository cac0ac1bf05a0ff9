"""The Textual app: layout, keys, and one worker at a time for the agent's work."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.command import Provider
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

from agent.commands.completion import WorkspaceFiles
from agent.config import Config
from agent.session.asking import SessionApprovals
from agent.session.startup import Startup
from tui import asking, command_catalog, lifecycle, modes, queued
from tui.host import BUSY, WorkKind
from tui.idle import IdleWatch
from tui.keys import app_bindings
from tui.prompt_keys import PromptKeys
from tui.screens.question import Arming
from tui.screens.styles import load_styles
from tui.widgets.completion_list import CompletionList
from tui.widgets.conversation import Conversation
from tui.widgets.key_footer import KeyFooter
from tui.widgets.prompt_input import PromptInput
from tui.widgets.queued_prompts import QueuedPrompts
from tui.widgets.status_bar import StatusBar, display_path
from tui.widgets.status_line import StatusLine
from tui.widgets.task_list import TaskList

if TYPE_CHECKING:
    from agent.commands.builtin import Builtin
    from agent.commands.catalog import CommandCatalog
    from agent.permissions.modes import Mode
    from agent.session.runtime import SessionController
    from agent.turn.loop import Agent
    from sessions.store import Session
    from tui.widgets.compaction_marker import CompactionMarker
    from tui.widgets.tool_call import ToolCallBlock

# The first frame needs only the widgets above. The session, the agent and its machinery
# (agent.session.runtime, tui.tasks, the screens) are imported where they are used, after it: that
# is most of pleat's own start-up time, and the user can already read and type meanwhile.

# Seconds within which a second Ctrl+C quits: long enough to press it deliberately, short
# enough that an old stray press does not turn a later one into a quit.
QUIT_WINDOW_SECONDS = 2.0
# The empty prompt's hint: the keys a new user needs.
PLACEHOLDER = "Ask pleat…  (Enter sends, Shift+Enter or Ctrl+J new line, / commands, @ files)"


def slash_command_provider() -> type[Provider]:
    """The palette's pleat commands, imported when the palette first opens."""
    from tui.command_provider import SlashCommandProvider

    return SlashCommandProvider


class PleatApp(PromptKeys, App[None]):  # Ctrl+G and Esc Esc: tui/prompt_keys.py
    """A chat with the agent about one workspace."""

    CSS_PATH = "pleat.tcss"
    TITLE = "pleat"
    COMMANDS = App.COMMANDS | {slash_command_provider}
    BINDINGS: ClassVar[list[BindingType]] = [*app_bindings()]  # one table: tui/keys.py

    def __init__(
        self,
        config: Config | None,
        workspace: Path,
        config_error: str | None = None,
        *,
        approve_everything: bool = False,
        resume: str | None = None,
        continue_latest: bool = False,
        notes: Sequence[str] = (),
        plugin_settings: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {}),
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.startup = Startup(
            config, config_error, resume, continue_latest, tuple(notes), plugin_settings
        )
        permissions = modes.starting_permissions(config, approve_everything)
        permissions.on_change(self.permission_mode_changed)
        self.approvals = SessionApprovals(asking.TerminalAsking(self), permissions)
        self.controller: SessionController | None = None  # made after the first frame
        self.opened = asyncio.Event()  # set once the session is open (or cannot be)
        self.files = WorkspaceFiles(workspace)
        self.custom_commands: CommandCatalog | None = None  # made once the session opens
        idle_seconds = config.idle_compaction_seconds if config is not None else 0.0
        self.idle = IdleWatch(self, idle_seconds, self.start_idle_fold)
        # Why there is no agent, as Markdown shown again on every prompt (None: there is one).
        self.unavailable: str | None = None
        self.model_name = config.model if config is not None and config.model else ""
        self.turn: Worker[None] | None = None  # the running work: a turn, a fold or a fork
        # A command that changes the conversation (/model, /undo, /resume ...) while it runs:
        # prompts sent meanwhile are queued, not started beside it.
        self.quiet_command: Worker[None] | None = None
        self.work_kind: WorkKind | None = None
        self._last_ctrl_c = -QUIT_WINDOW_SECONDS  # monotonic time of the last Ctrl+C
        self.arming = Arming()  # when a question's keys count (tui/screens/question.py)
        self.rebound: dict[str, str] = {}  # [keys] as bound (tui/preferences.py)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Conversation(id="conversation")
        yield TaskList()
        yield QueuedPrompts()
        completions = CompletionList()
        yield completions
        prompt = PromptInput(
            PLACEHOLDER, completions, lambda: command_catalog.choices(self), self.files
        )
        prompt.refresh_commands = lambda: command_catalog.refresh(self)
        prompt.take_queued = lambda: queued.take_back(self)
        yield prompt
        yield StatusLine(self)  # the user's status line command, when there is one
        yield StatusBar(self.model_name, display_path(self.workspace))
        yield KeyFooter()  # Textual's Footer, minus its leak (tui/widgets/key_footer.py)

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def queued_prompts(self) -> QueuedPrompts:
        return self.query_one(QueuedPrompts)

    @property
    def task_list(self) -> TaskList:
        return self.query_one(TaskList)

    @property
    def agent(self) -> Agent | None:
        return self.controller.agent if self.controller is not None else None

    @property
    def session(self) -> Session | None:
        return self.controller.session if self.controller is not None else None

    @property
    def warm(self) -> bool:
        """litellm imported and the context counted: the meter can show."""
        return self.controller is not None and self.controller.warm

    @property
    def working(self) -> bool:
        """A turn, a fold, a fork or a model switch is pending or running (Esc stops it)."""
        return self.turn is not None and not self.turn.is_finished

    @property
    def busy(self) -> bool:
        """Work runs, or a command that changes the conversation does."""
        quiet = self.quiet_command is not None and not self.quiet_command.is_finished
        return self.working or quiet

    # -- opening and switching sessions -----------------------------------------------------

    def on_mount(self) -> None:
        from tui import preferences  # [keys], editor_mode, the remembered theme

        preferences.apply(self, self)
        self.status.mode = self.approvals.permissions.mode
        self.prompt.focus()
        self.call_after_refresh(gc.enable)  # off for the first frame only (tui.main.start_ui)
        self.call_after_refresh(load_styles, self)  # the screens' rules (tui/screens/screens.tcss)
        self.call_after_refresh(lifecycle.start, self)
        if not self.is_headless:  # SIGTERM, SIGHUP quit as Ctrl+Q does (MCP servers stopped)
            lifecycle.quit_on_stop_signals(self.quit_safely)

    async def on_unmount(self) -> None:
        if self.controller is not None:  # the user quits: SessionEnd, servers and session closed
            from agent.session.lifecycle import close

            await close(self.controller, "prompt_input_exit")

    # -- what the app's helpers use of it (tui.host.Host) -----------------------------------

    def start_background(self, work: Coroutine[Any, Any, None]) -> None:
        self.call_after_refresh(
            lambda: self.run_worker(work, group="background", exit_on_error=False)
        )

    def show_screen(self, screen: Screen[Any]) -> None:
        self.push_screen(screen)

    async def ask_screen(self, screen: Screen[Any]) -> Any:
        try:
            return await self.push_screen(screen, wait_for_dismiss=True)
        except asyncio.CancelledError:  # the asker gave up (Esc): the question goes with it
            if self.screen is screen:
                self.pop_screen()
            raise

    # -- prompts, commands, work ------------------------------------------------------------

    async def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        await self.opened.wait()  # typed within the first instants: the session is opening
        from agent.commands.builtin import Builtin  # what a prompt needs: after the first frame
        from tui import custom_commands, shell_mode, slash_commands

        typed = slash_commands.parse(text)
        if typed is not None:
            self.prompt.remember(text)
            found = await slash_commands.resolve(self, typed[0])  # a command file, or a built-in
            if isinstance(found, Builtin):
                self.run_slash(found, typed[1])
            else:  # a custom command, or unknown
                await custom_commands.submitted(self, text, found)
            return
        self.prompt.remember(text)
        if shell_mode.is_shell_line(text):  # `!command`: run in the workspace, no model call
            return await shell_mode.submitted(self, text)
        if self.agent is None:
            await self.conversation.add_user(text)
            await self.conversation.add_markdown(self.unavailable or "", "help")
            return
        if self.busy:  # read by the running turn at its next model call, or sent after it
            queued.put(self, text)
            return
        from tui.tasks import run_turn

        self.start_work("turn", run_turn(self, self.agent, queued.take_all_with(self, text)))

    def run_slash(self, command: Builtin, arg: str) -> None:
        """Run a slash command in a worker; one changing the conversation only when idle (busy)."""
        if not command.while_working and self.busy:
            self.notify(BUSY)
            return
        from tui import slash_commands

        worker = self.run_worker(
            slash_commands.run(self, command, arg), group="command", exit_on_error=False
        )
        if not command.while_working:
            self.quiet_command = worker

    def start_work(self, kind: WorkKind, work: Coroutine[Any, Any, None]) -> None:
        """Run the agent's work (one at a time) in a worker; Esc cancels it."""
        self.idle.disarm()
        self.work_kind = kind
        self.turn = self.run_worker(work, group="work", exclusive=True, exit_on_error=False)

    def start_idle_fold(self) -> None:
        """The user has been away: fold now if it is worth it (see tui.idle)."""
        from tui.idle import idle_fold_worthwhile
        from tui.tasks import run_compaction

        agent = self.agent
        if self.busy or agent is None or not self.warm or self.screen is not self.screen_stack[0]:
            return
        if idle_fold_worthwhile(agent):
            self.start_work("idle", run_compaction(self, agent, "idle", None))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.idle.activity()
            if self.work_kind == "idle" and self.busy and self.turn is not None:
                self.turn.cancel()  # any key ends an idle fold
            if not self.arming.takes(self.screen, event.key):
                if event.is_printable and event.character:  # typed for the prompt: kept there
                    self.prompt.insert(event.character)
                return  # and it answers nothing
        await super().on_event(event)

    def permission_mode_changed(self, mode: Mode) -> None:
        """The mode changed (Shift+Tab, or a plan accepted): the status bar and a notice."""
        modes.show_mode(self, mode)

    def action_cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode; a running turn's next call already follows it."""
        self.approvals.permissions.cycle()

    def on_tool_call_block_open_transcript(self, event: ToolCallBlock.OpenTranscript) -> None:
        from tui.screens.subagent import SubagentScreen

        self.push_screen(SubagentScreen(event.session_id, event.title, self.agent))

    def on_compaction_marker_selected(self, event: CompactionMarker.Selected) -> None:
        from tui.screens.chunks import ChunkBrowserScreen

        if self.session is not None:
            self.push_screen(ChunkBrowserScreen(self.session.archive, event.chunk, event.summary))

    # -- keys -------------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turn or event.worker is self.quiet_command:
            self.refresh_bindings()  # Esc comes and goes with the work
            if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
                from tui.tasks import follow_up  # the agent's machinery: after the first frame

                follow_up(self)  # what was typed meanwhile: the next turn

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc is offered (and in the footer) only while work it can stop runs; the page keys and
        Shift+Tab only on the conversation's screen (a modal moves its focus with Shift+Tab)."""
        if action == "interrupt":
            return self.working and self.work_kind != "fork"
        if action in ("page", "cycle_mode"):  # other screens use these keys for themselves
            return self.screen is self.screen_stack[0]
        return True

    def action_interrupt(self) -> None:
        """Esc: cancel the running work (a fold committing finishes first, as
        agent.turn.uninterruptible holds the cancel); its queued prompts come back, unsent."""
        if self.turn is not None and not self.turn.is_finished and self.work_kind != "fork":
            queued.put_back(self)
            self.turn.cancel()

    def action_background_command(self) -> None:
        """Ctrl+B: the running command goes to the background (tui/shells.py)."""
        from tui.shells import send_to_background

        self.notify(send_to_background(self))

    def action_page(self, direction: int) -> None:
        """Page Up / Page Down scroll the conversation while the prompt keeps the focus."""
        view = self.conversation
        (view.scroll_page_up if direction < 0 else view.scroll_page_down)()

    async def action_quit(self) -> None:
        self.quit_safely()

    def quit_safely(self) -> None:
        """Quit (Ctrl+Q, Ctrl+C twice, SIGTERM, SIGHUP) once the running work has stopped as Esc
        stops it (open calls answered "cancelled", its command or hook killed) and a fold
        committing has finished (milliseconds: one step, agent.turn.uninterruptible)."""
        agent = self.agent
        work = self.turn if self.working and self.work_kind != "fork" else None
        if work is None and (agent is None or not agent.folds.commits.running):
            self.exit()
            return

        async def exit_when_settled() -> None:
            if work is not None:
                work.cancel()
                with contextlib.suppress(WorkerCancelled, WorkerFailed):
                    await work.wait()
            if agent is not None:
                await agent.folds.commits.settled()
            self.exit()

        self.run_worker(exit_when_settled(), group="quit", exit_on_error=False)

    def action_ctrl_c(self) -> None:
        """Copy a selection; otherwise the first press warns and a second one quits."""
        prompt = self.focused
        if isinstance(prompt, PromptInput) and prompt.selected_text:
            self.copy_to_clipboard(prompt.selected_text)
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_SECONDS:
            self.quit_safely()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_SECONDS)
