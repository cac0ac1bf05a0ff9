"""The assistant's reply: Markdown appended in paced batches while it streams."""

from __future__ import annotations

import asyncio
import contextlib

from textual.widgets import Markdown
from textual.worker import Worker

from tui.entries import ReplyEntry

# Seconds between two appends of streamed text, at least: 20 updates a second read as smooth
# streaming, and a short reply costs little to lay out.
MIN_APPEND_SECONDS = 0.05
# ... and per 1,000 characters of reply so far: laying a Markdown reply out costs time in
# proportion to its blocks (about 5 ms per 1,000 characters on a 2-core machine, measured with
# bench/tui_streaming.py), so the pause grows with it and layout stays near a fifth of the time
# instead of swamping the event loop (a 40,000-character reply updates about once a second).
APPEND_SECONDS_PER_KCHAR = 0.02


def append_interval(chars: int) -> float:
    """The pause before the next batch of streamed text is appended."""
    return max(MIN_APPEND_SECONDS, APPEND_SECONDS_PER_KCHAR * chars / 1000)


class AssistantMessage(Markdown):
    """One model reply. Call `write()` per delta, then `finish()` once; a reply rebuilt from
    its entry (scrolled back into view, or resumed) is rendered whole at once."""

    def __init__(self, entry: ReplyEntry) -> None:
        super().__init__(entry.text)
        self.entry = entry
        self._pending: list[str] = []
        self._more = asyncio.Event()
        self._appender: Worker[None] | None = None

    @property
    def text(self) -> str:
        """Everything received so far."""
        return self.entry.text

    async def write(self, delta: str) -> None:
        """Take a streamed piece of the reply; it is shown with the next batch."""
        self.entry.parts.append(delta)
        self._pending.append(delta)
        self._more.set()
        if self._appender is None:
            self._appender = self.run_worker(
                self._append_batches(), group="stream", exit_on_error=False
            )
        # Let the rest of the app run: a fast stream whose socket always has data would
        # otherwise never give the event loop back (no keys, no appends, until it ends).
        await asyncio.sleep(0)

    async def _append_batches(self) -> None:
        """Append what arrived, then pause (append_interval) so more arrives meanwhile: a
        fast stream becomes a few large appends rather than one per delta."""
        while True:
            await self._more.wait()
            self._more.clear()
            text = "".join(self._pending)
            self._pending.clear()
            await self.append(text)
            await asyncio.sleep(append_interval(len(self.source)))

    async def finish(self) -> None:
        """Stop streaming and show the rest. The whole reply is not parsed again: appends build
        the same blocks, and Textual 8.2.8 keeps a streamed code fence's text through a later
        recompose (textual#6518, fixed; tests/test_tui_app.py pins it), while re-rendering a
        10k-token reply costs seconds."""
        if self._appender is not None:
            appender, self._appender = self._appender, None
            appender.cancel()
            with contextlib.suppress(Exception):
                await appender.wait()
        rest = "".join(self._pending)
        self._pending.clear()
        text = self.text
        self.entry.parts[:] = [text]  # one piece: rebuilding the widget later joins nothing
        if not self.is_mounted:
            return
        if rest:
            await self.append(rest)
        if self.source != text:  # an append was cut off by the cancellation: render it all
            await self.update(text)
