"""One editor session: pleat's session runtime for a workspace, the editor's way of asking, and
the prompt that runs in it (streamed as updates, cancelled by session/cancel)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from agent.acp.asking import call_key
from agent.acp.prompt_blocks import PromptTooLong, prompt_from
from agent.acp.updates import (
    Update,
    UpdateStream,
    cancelled_call,
    message,
    notice_text,
    usage_update,
)
from agent.events import (
    ErrorEvent,
    Notice,
    SessionEvent,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
)

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.mcp.settings import ServerSettings
    from agent.session.runtime import SessionController
    from tools.editor_files import EditorFiles

log = logging.getLogger("pleat.acp")

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
# How a turn's end reads in ACP's words.
STOP_REASONS: dict[str, StopReason] = {
    "answer": "end_turn",
    "cancelled": "cancelled",
    "iteration_cap": "max_turn_requests",
    "error": "end_turn",
}


class EditorSession:
    """A session the editor opened (new or loaded): its controller (the session, its agent, its
    servers and hooks), the calls open now (what an approval is about), the notices waiting
    for the next prompt, and the prompt running (at most one)."""

    def __init__(
        self, client: Client, controller: SessionController, open_calls: dict[str, str]
    ) -> None:
        self.client = client
        self.controller = controller
        self.open_calls = open_calls  # shared with the session's EditorAsking
        self.background: set[asyncio.Task[None]] = set()  # updates sent outside a prompt
        # The editor's buffers for the file tools, when it offers fs/* (agent/acp/editor.py).
        self.files: EditorFiles | None = None
        # The editor's own MCP servers, started with the user's at the first prompt.
        self.client_servers: tuple[ServerSettings, ...] = ()
        # The first prompt's start (agent/acp/lifecycle.py start_run_parts): the project's
        # files asked about, the servers up; None once done.
        self.starter: Callable[[], Awaitable[None]] | None = None
        self.pending: list[SessionEvent] = []  # said at the start of the next prompt
        self.turn: asyncio.Task[StopReason] | None = None
        self.cancelled = False
        self._updates: UpdateStream | None = None
        assert controller.session is not None
        # The editor's name for it: pleat's session id when it opened (an editor opens no
        # other session in it: agent/commands/builtin.py `editor`).
        self.id = controller.session.id

    async def send(self, update: Any) -> None:
        await self.client.session_update(session_id=self.id, update=update)

    async def say(self, events: list[SessionEvent]) -> None:
        """Send events outside a turn (a command's answer, notices) as updates."""
        stream = self._stream()
        for event in events:
            for update in await stream.updates(event):
                await self.send(update)

    def _stream(self) -> UpdateStream:
        """The session's one stream of updates (its call ids unique for the session's life),
        following the agent a model switch makes."""
        agent = self.controller.agent
        assert agent is not None
        if self._updates is None:
            self._updates = UpdateStream(agent, self.id)
        self._updates.agent = agent
        return self._updates

    async def prompt(self, blocks: list[Any], run: Any) -> StopReason:
        """Run the prompt (`run`: given the request's text and images, the events of the work
        it starts: a turn, a command) to its end, streaming its updates; "cancelled" when
        session/cancel stopped it."""
        if self.turn is not None and not self.turn.done():
            from acp import RequestError

            raise RequestError.invalid_request({"details": "a prompt is running in this session"})
        self.cancelled = False
        self.turn = asyncio.create_task(self._work(blocks, run))
        try:
            return await self.turn
        except asyncio.CancelledError:
            if not self.cancelled:
                raise
            await self._close_open_calls()
            return "cancelled"
        except Exception as error:  # a bug: one line to the editor, the trace to the log
            log.exception("the prompt failed")
            await self._close_open_calls()
            line = notice_text(f"{type(error).__name__}: {error}", failed=True)
            with contextlib.suppress(ConnectionError):
                await self.send(message(line))
            return "end_turn"
        finally:
            self.turn = None

    async def _close_open_calls(self) -> None:
        """After a cancel or a failure: the calls (and the fold) the turn left open end as
        failed in the editor, as the agent answered them; nothing when the editor is gone."""
        ids = list(self.open_calls.values())
        self.open_calls.clear()
        updates: list[Update] = [cancelled_call(call_id) for call_id in ids]
        if self._updates is not None:
            updates += self._updates.interrupted()
        with contextlib.suppress(ConnectionError):
            for update in updates:
                await self.send(update)

    def cancel(self) -> None:
        """session/cancel: stop the running prompt (its command killed, its open calls answered
        "cancelled" by the agent)."""
        if self.turn is not None and not self.turn.done():
            self.cancelled = True
            self.turn.cancel()

    def lend_files(self) -> None:
        """The file tools of the session's agent (a new one after a switch too) go through the
        editor's buffers, when it offers them."""
        agent = self.controller.agent
        if agent is not None and self.files is not None and agent.context.editor is not self.files:
            agent.use_editor(self.files)

    async def _work(self, blocks: list[Any], run: Any) -> StopReason:
        if self.starter is not None:  # the first prompt: inside the turn, so a cancel stops it
            starter, self.starter = self.starter, None
            try:
                await starter()
            except BaseException:
                self.starter = starter  # tried again with the next prompt
                raise
        self.lend_files()
        agent = self.controller.agent
        assert agent is not None
        pending, self.pending = self.pending, []
        await self.say(pending)
        try:
            request = await prompt_from(blocks, agent)
        except PromptTooLong as error:  # refused whole: nothing reaches the session
            await self.send(message(notice_text(str(error), failed=True)))
            return "refusal"
        for note in request.notes:
            await self.send(message(notice_text(note)))
        stream = self._stream()
        reason: StopReason = "end_turn"
        async for event in run(request.text, request.images):
            updates = await stream.updates(event)  # a started call gets its id for the editor
            if isinstance(event, ToolCallStarted):
                key = call_key(event.call.name, event.call.parsed_arguments())
                self.open_calls[key] = stream.editor_id(event.call.id)
            elif isinstance(event, ToolCallFinished):
                self.open_calls.pop(call_key(event.call.name, event.call.parsed_arguments()), None)
            for update in updates:
                await self.send(update)
            if isinstance(event, TurnDone):
                reason = STOP_REASONS.get(event.reason, "end_turn")
            elif isinstance(event, ErrorEvent) and event.kind == "truncated":
                reason = "max_tokens"
        if (usage := await usage_update(agent)) is not None:  # the answer is in the context now
            await self.send(usage)
        return reason

    def notes(self, lines: list[str], level: Literal["note", "error"] = "note") -> None:
        """Lines said at the start of the next prompt (nothing is shown between prompts)."""
        self.pending.extend(Notice(line, level) for line in lines)
