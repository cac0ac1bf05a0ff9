"""Helpers for the TUI tests: the app against the scripted server, waits, scripted models, seeds."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.command import Command, CommandList, CommandPalette
from textual.pilot import Pilot

from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from sessions.messages import Message, unanswered_calls
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import Reply, ScriptedServer, Text
from tools.lsp.settings import LspSettings
from tui.app import PleatApp
from tui.screens.question import ARMING_SECONDS, Arming, QuestionScreen
from tui.widgets.prompt_input import PromptInput

# Pilot pauses of this many seconds between checks of a condition ...
POLL_SECONDS = 0.05
# ... and at most this many: 30 s, room for litellm's first import (about 4 s) on a slow machine.
MAX_POLLS = 600
# What a compression request's last message contains (agent.compaction.instruction).
COMPRESSION_MARK = "[pleat: context compaction"
# A window small enough that a few exchanges fill it (the system prompt and the tool schemas
# alone are about 2,700 tokens since the background-command and ask_user tools), large enough
# for a compression call to fit.
SMALL_WINDOW = 6_000


def make_config(server: ScriptedServer, **overrides: Any) -> Config:
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        local_model_servers=(),  # discovery asks no server unless a test names one
        # The small windows here are tuned to the tools without the auto memory's (its schema
        # would move every fold); the tests of the memory turn it on.
        auto_memory=False,
        lsp=LspSettings(enabled=False),  # no server from this machine's PATH: a test's own
    )
    return dataclasses.replace(config, **overrides)


def small_policy(**overrides: Any) -> CompactionPolicy:
    """A small window, and a tail of one exchange: what a fold keeps is predictable."""
    return CompactionPolicy(**{"context_window": SMALL_WINDOW, "tail_messages": 2, **overrides})


class ManualClock:
    """A clock that moves only when a test moves it (a question's arming, deterministically)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_app(
    server: ScriptedServer, workspace: Path, *, resume: str | None = None, **overrides: Any
) -> PleatApp:
    flags = {k: overrides.pop(k) for k in ("approve_everything",) if k in overrides}
    app = PleatApp(make_config(server, **overrides), workspace, resume=resume, **flags)
    return with_manual_clock(app)


def with_manual_clock(app: PleatApp) -> PleatApp:
    """Questions arm when the test says they have been read (asked), not after wall time."""
    app.arming = Arming(clock=ManualClock())
    return app


async def asked(
    pilot: Pilot, app: PleatApp, question: type[QuestionScreen[Any]], what: str
) -> None:
    """Wait until `question` is on screen, then let its arming time pass (on the app's manual
    clock): the keys pressed next answer it, as a user's do once they have read it."""
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, question) and app.screen.shown_at is not None,
        what,
    )
    clock = app.arming.clock
    assert isinstance(clock, ManualClock), "make the app with make_app or with_manual_clock"
    clock.now += ARMING_SECONDS


async def wait_for(pilot: Pilot, condition: Callable[[], object], what: str) -> None:
    for _ in range(MAX_POLLS):
        if condition():
            return
        await pilot.pause(POLL_SECONDS)
    raise AssertionError(f"timed out waiting for {what}")


def palette_first(app: PleatApp) -> str | None:
    """The text of the command palette's highlighted entry (the one Enter runs), once the
    palette shows its matches; None before (it gathers them in batches, in the background)."""
    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return None
    matches = screen.query_one(CommandList)
    if matches.highlighted is None or not matches.option_count:
        return None
    option = matches.get_option_at_index(matches.highlighted)
    return str(option.hit.text) if isinstance(option, Command) else None


async def started(pilot: Pilot, app: PleatApp) -> None:
    """The session is open and shown (it opens just after the first frame)."""
    await wait_for(pilot, app.opened.is_set, "the session to open")
    await pilot.pause()


def work_finished(app: PleatApp) -> bool:
    return app.turn is not None and app.turn.is_finished


async def send(pilot: Pilot, app: PleatApp, text: str) -> None:
    """Type a prompt into the input and press Enter; wait until the work has started."""
    before = app.turn
    app.query_one(PromptInput).value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.turn is not None and app.turn is not before, "the work")


async def exchange(pilot: Pilot, app: PleatApp, text: str) -> None:
    """Send a prompt and wait for the whole turn (that worker: an idle fold may start right
    after it)."""
    await send(pilot, app, text)
    turn = app.turn
    assert turn is not None
    await wait_for(pilot, lambda: turn.is_finished, f"the reply to {text!r}")


async def command(pilot: Pilot, app: PleatApp, text: str) -> None:
    """Type a slash command and press Enter (commands run in their own worker)."""
    app.query_one(PromptInput).value = text
    await pilot.press("enter")
    await pilot.pause()


def is_compression(body: dict[str, Any]) -> bool:
    content = body["messages"][-1].get("content") or ""
    return isinstance(content, str) and COMPRESSION_MARK in content


def summary_reply(topics: str = "test topics", summary: str = "the summary") -> Text:
    return Text(f"<topics>{topics}</topics><summary>{summary}</summary>")


def model(
    replies: Iterable[Reply], compress: Callable[[dict[str, Any]], Reply] | None = None
) -> Callable[[dict[str, Any]], Reply]:
    """A server fallback: compression requests get `compress(body)` (a summary by default),
    every other request the next of `replies`, then "ok"."""
    queue = iter(replies)

    def respond(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return compress(body) if compress else summary_reply()
        return next(queue, Text("ok"))

    return respond


def assert_valid_history(history: list[Message]) -> None:
    """Valid as sent (system first, no two user messages in a row once a summary is merged
    with the request after it), every tool call answered."""
    assert_history_valid(history)
    assert not unanswered_calls(history)


def seed_session(workspace: Path, exchanges: int, *, words: int = 3) -> str:
    """A session on disk with `exchanges` user/assistant pairs (2 x exchanges messages after
    the system prompt); returns its id."""
    session = Session.create(workspace, model=TEST_MODEL)
    try:
        session.message(Message(role="system", content="You are pleat.", id="m1"))
        for n in range(exchanges):
            text = " ".join(f"word{n}" for _ in range(words))
            session.message(
                Message(role="user", content=f"question {n}: {text}", id=f"m{2 * n + 2}")
            )
            session.message(Message(role="assistant", content=f"answer {n}", id=f"m{2 * n + 3}"))
    finally:
        session.close()
    return session.id
