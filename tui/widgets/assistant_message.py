"""The assistant's reply: streamed text drawn in paced frames, its oldest blocks hidden."""

from __future__ import annotations

import asyncio
import contextlib
import time

from textual import events
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock
from textual.worker import Worker

from agent.conversation.entries import ReplyEntry
from agent.terminal_text import visible
from tui.widgets.code_fence import LAZY_FENCE_BLOCKS
from tui.widgets.markdown_lists import FLAT_LIST_BLOCKS
from tui.widgets.reply_window import KEEP_SCREENS, BlockWindow
from tui.widgets.stream_append import append_folding
from tui.widgets.stream_pacing import YIELD_SECONDS, pause_after


class AssistantMessage(Markdown):
    """One model reply. Call `write()` per delta, then `finish()` once; a reply rebuilt from
    its entry (scrolled back into view, or resumed) is rendered whole at once.

    While it streams, a drawing worker takes whatever arrived since its last frame and appends
    it in one piece (Textual re-parses only the last block), waits for the frame to be painted,
    then pauses in proportion to what that frame cost (tui.widgets.stream_pacing): a fast
    stream becomes a few large appends, not one layout per delta. While the user follows the
    end, blocks more than a few screens up are folded (tui.widgets.reply_window), so a frame
    lays out only the newest blocks however long the reply gets, and the blocks a frame brings
    far above the end are never built while it streams (tui.widgets.stream_append). Lists
    whose items are plain paragraphs are drawn by one widget each (tui.widgets.markdown_lists)."""

    # Annotated as Textual's Markdown.BLOCKS is (an instance variable there).
    BLOCKS: dict[str, type[MarkdownBlock]] = {  # noqa: RUF012
        **Markdown.BLOCKS,
        **FLAT_LIST_BLOCKS,
        **LAZY_FENCE_BLOCKS,
    }

    def __init__(self, entry: ReplyEntry) -> None:
        super().__init__(visible(entry.text))
        self.entry = entry
        self.frames = 0  # appends drawn while streaming (the tests count them against deltas)
        self.window = BlockWindow(self)
        self._unshown: list[str] = []
        self._arrived = asyncio.Event()
        self._ended = asyncio.Event()
        self._drawer: Worker[None] | None = None
        self._yielded = 0.0  # when write() last gave the event loop back (perf_counter)

    @property
    def text(self) -> str:
        """Everything received so far."""
        return self.entry.text

    async def write(self, delta: str) -> None:
        """Take a streamed piece of the reply; it is shown with the next frame (its control
        characters made visible: agent/terminal_text.py)."""
        delta = visible(delta)
        self.entry.parts.append(delta)
        self._unshown.append(delta)
        self._arrived.set()
        if self._drawer is None:
            self._drawer = self.run_worker(self._draw(), group="stream", exit_on_error=False)
        # Let the rest of the app run: a fast stream whose socket always has data would
        # otherwise never give the event loop back (no keys, no frames, until it ends). Once
        # per slice of time, not per delta: each turn of the loop costs more than a delta.
        now = time.perf_counter()
        if now - self._yielded >= YIELD_SECONDS:
            self._yielded = now
            await asyncio.sleep(0)

    async def finish(self) -> None:
        """The stream ended (or was interrupted, or failed): show everything received. The
        drawing worker appends the rest and stops; it is never cancelled halfway through an
        append, so the blocks always match the text (and a second cancellation of the caller
        cannot lose the end: the worker finishes on its own)."""
        self.entry.parts[:] = [self.text]  # one piece: rebuilding the widget later joins nothing
        self._ended.set()
        self._arrived.set()
        drawer, self._drawer = self._drawer, None
        if drawer is not None:
            with contextlib.suppress(Exception):
                await drawer.wait()
        if self._unshown and self.is_mounted:  # the worker was stopped (its widget removed)
            await self._flush()

    async def _draw(self) -> None:
        """Draw frames until `finish()`: append what arrived, wait for it to be painted, pause
        (measured in the UI thread's time, so waiting for the network costs nothing)."""
        busy = 1.0  # the share of the last pause the thread worked: unknown yet, assume all
        while True:
            await self._arrived.wait()
            self._arrived.clear()
            if self._ended.is_set():
                await self._frame()  # the last frame lays out only the newest too
                self.call_after_refresh(self.window.show_if_in_view)
                return
            started = time.thread_time()
            await self._frame()
            painted = asyncio.Event()
            if self.call_after_refresh(painted.set):
                await painted.wait()
            self.window.show_if_in_view()
            pause = pause_after(time.thread_time() - started, busy)
            paused, worked = time.perf_counter(), time.thread_time()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ended.wait(), pause)
            busy = (time.thread_time() - worked) / max(time.perf_counter() - paused, pause)

    async def _frame(self) -> None:
        """Fold the old blocks and append what arrived, laid out and drawn once."""
        with self.app.batch_update():
            await self._hide_old_blocks()
            await self._flush()

    async def _flush(self) -> None:
        if not self._unshown:
            return
        text = "".join(self._unshown)
        self._unshown.clear()
        self.frames += 1
        await append_folding(self, self.window, text, self._keep_rows())

    def _keep_rows(self) -> int | None:
        """Rows of the newest blocks kept as widgets, if the user is following the end (None:
        keep everything)."""
        view = self.parent
        if not isinstance(view, Widget) or view.scroll_y < view.max_scroll_y > 0:
            return None  # (while all fits, Textual may hold a pending negative scroll_y)
        return KEEP_SCREENS * view.scrollable_content_region.height or None

    async def _hide_old_blocks(self) -> None:
        """Fold the blocks a few screens above the end, if the user is following it."""
        rows = self._keep_rows()
        if rows is not None:
            await self.window.fold_above(rows)

    def on_resize(self, event: events.Resize) -> None:
        """Folded blocks change height with the width (the conversation's scrollbar came, the
        terminal was resized): their spacer is estimated anew at the new width."""
        if self.window.hiding and self.outer_size.width != self.window.width:
            self.window.estimate()
