"""The assistant's reply: Markdown streamed while it arrives, then rendered once in full."""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class AssistantMessage(Markdown):
    """One model reply. Call `write()` per delta, then `finish()` once."""

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[str] = []
        self._stream: MarkdownStream | None = None

    @property
    def text(self) -> str:
        """Everything received so far."""
        return "".join(self._parts)

    async def write(self, delta: str) -> None:
        """Append a streamed piece of the reply."""
        self._parts.append(delta)
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(delta)

    async def finish(self) -> None:
        """Stop streaming and render the whole reply once: incremental appends can lose a code
        fence that was still open when it streamed (textual issue 6518)."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
        await self.update(self.text)
