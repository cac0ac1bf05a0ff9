"""The user's status line: their command's first line (colours kept), above the status bar.

The command (agent/status_line/) runs in a worker, never on the UI's way: 300 ms after the status
bar last changed (a session opened, the model switched, a turn's cost, meter and state at its
end), at most one run at a time (a change during a run asks for one more after it), and every
`refreshInterval` seconds when the setting has one. The widget stays hidden while there is no
line; a failing command blanks it and is said once in the conversation."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:  # imported when a command is configured: the first frame needs neither
    from agent.status_line.command import StatusLineCommand
    from agent.status_line.payload import StatusFacts
    from tui.host import Host

# Seconds of quiet before the command runs: Claude Code's own pace (its status line updates at
# most every 300 ms), so the burst of changes at a turn's end (state, cost, meter) is one run.
DEBOUNCE_SECONDS = 0.3
# The status bar's fields whose change refreshes the line: the session, its model, its cost,
# its context meter (counted again after every turn) and its state (a turn starts, ends).
WATCHED = ("session", "model", "cost", "context", "state")
# Milliseconds in a second (the payload's durations are in ms, as Claude Code's).
MS_PER_SECOND = 1_000


class StatusLine(Static):
    """The status line command's line; hidden while it has none."""

    DEFAULT_CSS = """
    StatusLine {
        display: none;
        height: 1;
        padding: 0 2;
        background: $panel;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, host: Host) -> None:
        super().__init__(markup=False)
        self.host = host
        self.command: StatusLineCommand | None = None
        self._debounce: Timer | None = None
        self._busy = False
        self._rerun = False  # something changed during the run: one more after it
        # The session seen last, and when (monotonic) this run first saw it.
        self._session_seen = ("", 0.0)

    def on_mount(self) -> None:
        self.app.call_after_refresh(self._watch_status_bar)  # its sibling, mounted after it

    def _watch_status_bar(self) -> None:
        bar = self.app.query_one(StatusBar)
        for field in WATCHED:
            self.watch(bar, field, self.refresh_soon, init=False)

    def refresh_soon(self) -> None:
        """Run the command once things have been quiet for DEBOUNCE_SECONDS."""
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_SECONDS, self._due)

    def show(self, line: str) -> None:
        """Show `line` (SGR colours only: agent/status_line/clean.py), or hide when empty."""
        self.update(Text.from_ansi(line, no_wrap=True, end=""))
        self.display = bool(line)

    def _due(self) -> None:
        if self._busy:
            self._rerun = True
            return
        command = self._configured()
        if command is not None:
            self._busy = True
            self.run_worker(self._run(command), group="status-line", exit_on_error=False)

    def _configured(self) -> StatusLineCommand | None:
        """The command, made the first time the session's controller has a spec for it."""
        from agent.status_line.command import StatusLineCommand

        controller, agent = self.host.controller, self.host.agent
        if self.command is None and controller and controller.status_line and agent:
            spec = controller.status_line
            runner = agent.hooks.runner  # the secrets kept from hooks are kept from it too
            key = controller.config.api_key if controller.config else None
            secrets = runner.secrets if runner is not None else [key] if key else []
            self.command = StatusLineCommand(spec, self.host.workspace, secrets)
            self.styles.padding = (0, 2, 0, 2 + spec.padding)
            if spec.refresh_seconds is not None:
                self.set_interval(spec.refresh_seconds, self.refresh_soon)
        return self.command

    async def _run(self, command: StatusLineCommand) -> None:
        """Run the command until no change came in meanwhile; show its line, say a failure."""
        from agent.status_line.payload import status_payload

        try:
            while True:
                self._rerun = False
                facts = self._facts()
                if facts is None:
                    return
                outcome = await command.run(status_payload(facts))
                self.show(outcome.line)
                if outcome.problem:
                    await self.host.conversation.add_notice(outcome.problem, "error")
                if not self._rerun:
                    return
        finally:
            self._busy = False

    def _facts(self) -> StatusFacts | None:
        """What the open session's payload says (None: no session open yet)."""
        from agent.status_line.payload import StatusFacts

        agent, session, status = self.host.agent, self.host.session, self.host.status
        if agent is None or session is None:
            return None
        if self._session_seen[0] != session.id:
            self._session_seen = (session.id, time.monotonic())
        gauge = status.context
        return StatusFacts(
            session_id=session.id,
            transcript_path=session.journal.path,
            workspace=self.host.workspace,
            model=agent.llm.model,
            usage=agent.usage,
            last_call=status.usage,
            context_used=gauge.used if gauge is not None else None,
            context_window=gauge.window if gauge is not None else None,
            duration_ms=round((time.monotonic() - self._session_seen[1]) * MS_PER_SECOND),
        )
