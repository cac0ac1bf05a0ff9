"""A streamed reply on screen: batched frames, complete after Esc, hidden blocks, flat lists."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Markdown

import tui.widgets.assistant_message as assistant_message
import tui.widgets.stream_append as stream_append
from agent.conversation.entries import ReplyEntry
from agent.events import TextDelta
from tests.support.constants import REPO_ROOT
from tests.support.screen_cells import Cells, MarkdownApp, markdown_cells, screen_cells
from tests.support.scripted_server import DELTA_CHARS, ScriptedServer, Text
from tests.support.tui_support import make_app, send, wait_for, work_finished
from tui.turn_view import INTERRUPTED_NOTE, TurnView
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.conversation import Conversation
from tui.widgets.markdown_lists import FLAT_LIST_BLOCKS, FlatBulletList, FlatOrderedList
from tui.widgets.notice import Notice
from tui.widgets.reply_window import BlockWindow
from tui.widgets.status_bar import StatusBar
from tui.widgets.stream_pacing import (
    MAX_PAUSE_SECONDS,
    MIN_PAUSE_SECONDS,
    PAUSE_PER_DRAW_SECOND,
    pause_after,
)

# Slow (Textual apps under the pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Pilot pauses of this many seconds between checks of a condition (a frame is 1/30 s at the
# soonest) ... and at most this many: 30 s in all, room for a loaded machine.
POLL_SECONDS = 0.02
MAX_POLLS = 1_500

SECTION = """\
## Step {n}

The function `load_{n}()` reads the **configuration** and returns the parsed value; a stale
key rebuilds the entry and writes it back atomically.

- keep the key derivation in one place
- compare the hash, never trust an mtime alone

```python
def load_{n}(path):
    return parse(path.read_text())
```

"""


def long_reply(sections: int) -> str:
    return "".join(SECTION.format(n=n) for n in range(sections))


def deltas(text: str) -> list[str]:
    """`text` in the scripted server's pieces: a stream as the agent yields it."""
    return [text[i : i + DELTA_CHARS] for i in range(0, len(text), DELTA_CHARS)]


class ChatApp(App[None]):
    """The conversation and the status bar, as in pleat, without an agent."""

    CSS_PATH = str(REPO_ROOT / "tui" / "pleat.tcss")

    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")
        yield StatusBar("model", "~/ws")


async def wait_until(pilot: Pilot[None], condition: Callable[[], object], what: str) -> None:
    for _ in range(MAX_POLLS):
        if condition():
            return
        await pilot.pause(POLL_SECONDS)
    raise AssertionError(f"timed out waiting for {what}")


async def stream(conversation: Conversation, text: str) -> AssistantMessage:
    """Stream `text` into a new reply as the turn view does, as fast as it can, and end it."""
    reply = await conversation.add_assistant()
    for delta in deltas(text):
        await reply.write(delta)
    await reply.finish()
    return reply


async def stream_in_frames(
    pilot: Pilot[None], conversation: Conversation, text: str, frames: int
) -> AssistantMessage:
    """Stream `text` in `frames` parts, each drawn before the next arrives (a stream slower
    than the drawing), and end it."""
    reply = await conversation.add_assistant()
    pieces = deltas(text)
    step = -(-len(pieces) // frames)
    for start in range(0, len(pieces), step):
        drawn = reply.frames
        for delta in pieces[start : start + step]:
            await reply.write(delta)
        await wait_until(pilot, lambda drawn=drawn: reply.frames > drawn, "a frame")
    await reply.finish()
    return reply


async def screen_of_whole_reply(text: str, size: tuple[int, int], *, top: bool = False) -> str:
    """The screen of a conversation holding `text` rendered whole (as a resumed reply is)."""
    app = ChatApp()
    async with app.run_test(size=size) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.reset([ReplyEntry([text])])
        await pilot.pause()
        if top:
            conversation.scroll_home(animate=False)
        await pilot.pause()
        return app.export_screenshot()


# -- pacing ------------------------------------------------------------------------------------


def test_frames_pause_in_proportion_to_their_cost_within_bounds() -> None:
    assert pause_after(0.0) == MIN_PAUSE_SECONDS
    assert pause_after(0.1) == pytest.approx(PAUSE_PER_DRAW_SECOND * 0.1)
    assert pause_after(60.0) == MAX_PAUSE_SECONDS


def test_frames_follow_at_the_highest_rate_while_the_thread_has_nothing_else_to_do() -> None:
    assert pause_after(0.1, busy=0.5) == pytest.approx(PAUSE_PER_DRAW_SECOND * 0.05)
    assert pause_after(0.1, busy=0.0) == MIN_PAUSE_SECONDS
    assert pause_after(0.1, busy=3.0) == pause_after(0.1, busy=1.0)


async def test_deltas_are_drawn_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """However many deltas arrive while a frame is drawn and its pause lasts, they are appended
    together: with an endless pause, a stream is at most two appends (the first delta, the rest
    when it ends)."""
    monkeypatch.setattr(assistant_message, "pause_after", lambda *_: 3_600.0)
    appended: list[str] = []
    append = stream_append.append_folding

    async def counted(owner: Markdown, window: BlockWindow, text: str, rows: int | None) -> None:
        appended.append(text)
        await append(owner, window, text, rows)

    monkeypatch.setattr(assistant_message, "append_folding", counted)
    text = long_reply(3)
    app = ChatApp()
    async with app.run_test(size=(100, 30)):
        reply = await stream(app.query_one(Conversation), text)
        assert len(deltas(text)) > 100
        assert 1 <= reply.frames <= 2
        assert len(appended) == reply.frames
        assert "".join(appended) == text == reply.source


async def test_reasoning_is_titled_per_frame_not_per_delta() -> None:
    """The thinking block's title counts the reasoning at the frame rate: a burst of deltas
    changes nothing until its timer, and the end shows the final count at once."""
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block = await app.query_one(Conversation).add_thinking()
        for delta in deltas("Six times seven is forty-two. " * 20):
            block.write(delta)
        assert block.title == "thinking… 0 characters"
        await wait_until(pilot, lambda: block.title == "thinking… 600 characters", "a frame")
        block.finish()
        assert block.title == "thought · 600 characters"
        assert block.entry.text == "Six times seven is forty-two. " * 20


# -- the reply on screen -----------------------------------------------------------------------


async def test_a_streamed_reply_ends_on_screen_as_if_rendered_whole() -> None:
    """A reply longer than a few screens: its old blocks were hidden while it streamed, and the
    screen is the same as the whole reply's; scrolled to the top it is the same too."""
    text = long_reply(12)
    size = (100, 30)
    app = ChatApp()
    async with app.run_test(size=size) as pilot:
        conversation = app.query_one(Conversation)
        reply = await stream_in_frames(pilot, conversation, text, frames=6)
        assert reply.source == text and reply.entry.text == text
        await pilot.pause()
        assert reply.window.hiding, "a reply of six screens should have hidden its oldest blocks"
        end = await screen_of_whole_reply(text, size)
        assert app.export_screenshot() == end
        # The spacer is exactly as tall as the blocks it stands for: showing them moves nothing.
        height = conversation.virtual_size.height
        conversation.show_hidden_blocks()
        await pilot.pause()
        assert not reply.window.hiding
        assert conversation.virtual_size.height == height
        assert app.export_screenshot() == end
        conversation.scroll_home(animate=False)
        await pilot.pause()
        assert app.export_screenshot() == await screen_of_whole_reply(text, size, top=True)


async def test_hidden_blocks_come_back_when_the_user_scrolls_up_or_resizes() -> None:
    text = long_reply(12)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        reply = await stream_in_frames(pilot, conversation, text, frames=6)
        await pilot.pause()
        assert reply.window.hiding
        # Less than a screen up: the hidden blocks are still more than a screen away.
        conversation.scroll_relative(y=-conversation.size.height // 2, animate=False)
        await pilot.pause()
        assert reply.window.hiding
        conversation.scroll_relative(y=-conversation.size.height, animate=False)
        await pilot.pause()
        assert not reply.window.hiding
        conversation.scroll_end(animate=False)
        await pilot.pause()
        # Following the end again: the next streamed reply hides its blocks anew.
        second = await stream_in_frames(pilot, conversation, text, frames=6)
        await pilot.pause()
        assert second.window.hiding
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        assert not second.window.hiding


def conversation_cells(app: App[None]) -> Cells:
    """The conversation's part of the screen cell by cell, without its scrollbar (whose thumb
    shows an estimated spacer's height)."""
    region = app.query_one(Conversation).scrollable_content_region
    rows = [row[region.x : region.right] for row in screen_cells(app)]
    return rows[region.y : region.bottom]


async def settled(
    pilot: Pilot[None], read: Callable[[], Cells], expected: Cells | None = None
) -> Cells:
    """What `read` shows once the screen has settled: on `expected` when one is given, else on
    the same cells two frames running. A loaded machine may take frames more to build the
    blocks that came into view; a screen that never settles is returned as it is after 30 s."""
    shown = read()
    for _ in range(MAX_POLLS):
        await pilot.pause(POLL_SECONDS)
        previous, shown = shown, read()
        if shown == (previous if expected is None else expected):
            break
    return shown


async def end_cells(pilot: Pilot[None], app: App[None], expected: Cells | None = None) -> Cells:
    """The end of the conversation (scrolled fully left: a code block one cell wider than the
    view may leave Textual scrolled by one column, in either app)."""
    conversation = app.query_one(Conversation)
    conversation.scroll_to(x=0, y=conversation.max_scroll_y, animate=False, immediate=True)
    await pilot.pause()
    return await settled(pilot, lambda: conversation_cells(app), expected)


async def pages_from_the_top(
    pilot: Pilot[None], app: App[None], expected: list[Cells] | None = None
) -> list[Cells]:
    """Every page of the conversation from the top down (the folded blocks are built when the
    top is reached), each once settled (on the page `expected` has at its place, if given)."""
    conversation = app.query_one(Conversation)
    conversation.scroll_home(animate=False)
    for _ in range(3):
        await pilot.pause()
    pages = []
    page = conversation.scrollable_content_region.height
    for n, y in enumerate(range(0, conversation.max_scroll_y + page, page)):
        conversation.scroll_to(x=0, y=y, animate=False, immediate=True)
        await pilot.pause()
        wanted = expected[n] if expected is not None and n < len(expected) else None
        pages.append(await settled(pilot, lambda: conversation_cells(app), wanted))
    return pages


async def test_a_flooded_reply_leaves_its_early_blocks_unbuilt_and_shows_them_alike() -> None:
    """A stream faster than the drawing: a frame brings screens of text at once, and the blocks
    far above the end are never built while it streams, only kept as source under a spacer of
    estimated height. The end is drawn as the whole reply's; scrolled through from the top,
    every page is the same as the whole reply's, cell for cell."""
    text = long_reply(12)
    size = (100, 30)
    whole = ChatApp()
    async with whole.run_test(size=size) as pilot:
        await whole.query_one(Conversation).reset([ReplyEntry([text])])
        await pilot.pause()
        end = await end_cells(pilot, whole)
        pages = await pages_from_the_top(pilot, whole)
    app = ChatApp()
    async with app.run_test(size=size) as pilot:
        conversation = app.query_one(Conversation)
        reply = await stream(conversation, text)
        assert reply.source == text and reply.entry.text == text
        await pilot.pause()
        assert reply.window.hiding and not reply.window.exact, "the flood should be estimated"
        built = [block for block in reply.query("MarkdownBlock") if block.parent is reply]
        assert len(built) < 4 * 12 // 2, "most of the reply's blocks should be unbuilt"
        assert await end_cells(pilot, app, end) == end
        assert await pages_from_the_top(pilot, app, pages) == pages
        assert not reply.window.hiding


async def test_text_that_draws_shorter_than_its_source_leaves_no_blank_at_the_end() -> None:
    """Paragraphs of links with long addresses draw a fraction of their source's width, so the
    spacer's estimate is too tall: it must not show as blank rows where text belongs, at the
    end nor a little above it (found by review)."""
    address = "https://docs.example.com/en/latest/reference/configuration/section-{n}.html#opt"
    text = "".join(
        f"Refs: [{n}a]({address.format(n=n)}) [{n}b]({address.format(n=n + 1)})\n\n"
        for n in range(150)
    )
    size = (80, 24)
    whole = ChatApp()
    async with whole.run_test(size=size) as pilot:
        await whole.query_one(Conversation).reset([ReplyEntry([text])])
        await pilot.pause()
        end = await end_cells(pilot, whole)
    app = ChatApp()
    async with app.run_test(size=size) as pilot:
        conversation = app.query_one(Conversation)
        await stream(conversation, text)
        await pilot.pause()
        assert await end_cells(pilot, app, end) == end
        conversation.scroll_relative(y=-15, animate=False)
        for _ in range(3):
            await pilot.pause()
        shown = conversation_cells(app)
        blank = [row for row in shown if not "".join(cell[0] for cell in row).strip()]
        assert len(blank) <= len(shown) // 2 + 1, "a blank spacer is in view"


async def test_unfolding_an_estimate_keeps_the_reader_in_place() -> None:
    """The user scrolls up from the end of a flooded reply: the blocks are built, the spacer's
    estimate is replaced by their real height, and what the user was reading stays put."""
    text = long_reply(12)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        reply = await stream(conversation, text)
        await pilot.pause()
        assert reply.window.hiding and not reply.window.exact
        before = conversation_cells(app)[-10:]  # the screen's bottom: real blocks, not spacer
        conversation.scroll_relative(y=-conversation.size.height * 3 // 2, animate=False)
        await pilot.pause()
        reading = conversation_cells(app)
        assert reading != before
        await wait_until(pilot, lambda: not reply.window.hiding, "the folded blocks built")
        assert await settled(pilot, lambda: conversation_cells(app), reading) == reading


async def test_an_interrupted_stream_shows_everything_received() -> None:
    """Esc: the turn view closes the reply at once, mid-frame; every delta received is on
    screen (and nothing more), before the note."""
    text = long_reply(6)
    received = "".join(deltas(text)[:150])
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        view = TurnView(conversation, app.query_one(StatusBar))
        for delta in deltas(received):
            await view.show(TextDelta(delta))
        reply = view.reply
        assert reply is not None
        await view.interrupted()
        assert reply.source == received and reply.entry.text == received
        assert isinstance(conversation.children[-1], Notice)
        assert conversation.children[-1].entry.text == INTERRUPTED_NOTE
        await pilot.pause()
        conversation.scroll_home(animate=False)
        await pilot.pause()
        blocks = [type(b).__name__ for b in reply.query("MarkdownBlock") if b.parent is reply]
        whole = ReplyMarkdown(received)
        await conversation.mount(whole)
        expected = [type(b).__name__ for b in whole.query("MarkdownBlock") if b.parent is whole]
        assert blocks == expected


async def test_the_end_is_drawn_even_if_the_closing_caller_is_cancelled() -> None:
    """A second Esc cancels the turn while it closes the reply: the drawing worker appends the
    rest on its own."""
    text = long_reply(4)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        reply = await app.query_one(Conversation).add_assistant()
        for delta in deltas(text):
            await reply.write(delta)
        closing = asyncio.create_task(reply.finish())
        await asyncio.sleep(0)
        closing.cancel()
        await wait_until(pilot, lambda: reply.source == text, "the rest of the reply")
        assert reply.entry.text == text


# -- flat lists ----------------------------------------------------------------------------------

LISTS = {
    "bullets": "Intro.\n\n- one\n- two with `code`, **bold** and *em*\n- three is a long item "
    "that wraps around the width of a narrow terminal, more than once on the narrowest\n\nAfter.",
    "numbers": "\n".join(f"{n}. item {n}" + " words" * n for n in range(1, 12)),
    "numbers from 7": "7. seven\n8. eight\n",
    "nested": "- outer\n  - inner a\n  - inner b, long enough to wrap on a narrow terminal\n"
    "- outer two\n",
    "loose": "- loose one\n\n- loose two\n\n- loose three\n",
    "code in an item": "- item with code:\n\n  ```python\n  x = 1\n  ```\n- plain\n",
    "link and break": "- a [link](https://example.com) here\n- hard  \n  break\n",
    "quoted": "# Title\n\n- a\n- b\n\n> quote\n> - in a quote\n\n1. x\n2. y\n",
}


class FlatMarkdown(Markdown):
    BLOCKS = {**Markdown.BLOCKS, **FLAT_LIST_BLOCKS}  # noqa: RUF012  (as Markdown.BLOCKS)


class ReplyMarkdown(Markdown):
    BLOCKS = AssistantMessage.BLOCKS  # a reply's blocks (flat lists, code drawn lazily), whole


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("size", [(36, 30), (90, 30)])
async def test_flat_lists_draw_like_textuals(name: str, theme: str, size: tuple[int, int]) -> None:
    text = LISTS[name]
    flat = await markdown_cells(FlatMarkdown(text), theme, size)
    assert flat == await markdown_cells(Markdown(text), theme, size)


async def test_lists_of_paragraphs_are_one_widget_others_keep_textuals() -> None:
    text = LISTS["nested"] + "\n" + LISTS["numbers from 7"]
    app = MarkdownApp(FlatMarkdown(text), "textual-dark")
    async with app.run_test() as pilot:
        await pilot.pause()
        outer, inner = app.query(FlatBulletList)
        assert outer.items is None and outer.children  # an item holds a list: Textual's widgets
        assert inner.items is not None and not inner.children
        ordered = app.query_one(FlatOrderedList)
        assert ordered.items is not None and [symbol for symbol, _ in ordered.items] == [
            " 7. ",
            " 8. ",
        ]


# -- through the app -----------------------------------------------------------------------------


async def test_a_long_reply_streams_whole_through_the_app(
    server: ScriptedServer, workspace: Path
) -> None:
    text = long_reply(20)
    server.push(Text(text))
    app = make_app(server, workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "explain")
        await wait_for(pilot, lambda: work_finished(app), "the reply")
        reply = app.query_one(AssistantMessage)
        assert reply.source == text
        assert app.agent is not None and app.agent.history[-1].content == text


async def test_escape_mid_stream_keeps_what_was_received(
    server: ScriptedServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc while the reply streams (pressed when the 150th delta arrives: the scripted server
    sends the whole reply at once, faster than a key could land mid-stream): the reply shows
    every delta the agent yielded, as the history keeps them."""
    text = long_reply(40)
    server.push(Text(text))
    app = make_app(server, workspace)
    written = 0
    write = AssistantMessage.write

    async def write_then_escape(self: AssistantMessage, delta: str) -> None:
        nonlocal written
        written += 1
        if written == 150:
            app.simulate_key("escape")
        await write(self, delta)

    monkeypatch.setattr(AssistantMessage, "write", write_then_escape)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "explain")
        await wait_for(pilot, lambda: work_finished(app), "the interruption")
        reply = app.query_one(AssistantMessage)
        assert 150 <= written < len(deltas(text))
        assert reply.source == text[: DELTA_CHARS * written] == reply.entry.text
        assert app.agent is not None
        kept = app.agent.history[-1].content or ""
        assert kept.startswith(reply.source) and "interrupted" in kept[len(reply.source) :]
        assert INTERRUPTED_NOTE in [n.entry.text for n in app.query(Notice)]
