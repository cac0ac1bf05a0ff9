"""The screen of a Textual app cell by cell, as the terminal shows it (character, colours and
looks): what the rendering comparisons of the TUI tests compare, where a screenshot would also
compare how rows happen to be split into segments."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

Cell = tuple[str, str, str, tuple[object, ...]]  # character, colour, background, attributes
Cells = list[list[Cell]]

# A rendering is read once it is the same two frames running (a loaded machine may take frames
# more to lay out blocks mounted lazily): polled every 50 ms (a few frames), for at most 30 s.
SETTLE_POLL_SECONDS = 0.05
SETTLE_POLLS = 600


def screen_cells(app: App[Any]) -> Cells:
    """Every row of the app's screen as it would be drawn now."""
    rows: Cells = []
    for chops in app.screen._compositor.render_full_update().strips:
        row: list[Cell] = []
        for strip in chops:
            for segment in strip:
                style = segment.style
                assert style is not None
                look = (style.bold, style.dim, style.italic, style.underline, style.strike)
                row += [(c, str(style.color), str(style.bgcolor), look) for c in segment.text]
        rows.append(row)
    return rows


class MarkdownApp(App[None]):
    """One Markdown widget in a scrolling view, in a given theme: a rendering compared alone."""

    def __init__(self, markdown: Markdown, theme: str) -> None:
        super().__init__()
        self.markdown = markdown
        self.theme_name = theme

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.markdown

    def on_mount(self) -> None:
        self.theme = self.theme_name


async def markdown_cells(markdown: Markdown, theme: str, size: tuple[int, int]) -> Cells:
    """How `markdown` draws at `size`, cell by cell (the screenshot SVG would also compare how
    rows are split into segments and their mouse metadata)."""
    app = MarkdownApp(markdown, theme)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shown = screen_cells(app)
        for _ in range(SETTLE_POLLS):
            await pilot.pause(SETTLE_POLL_SECONDS)
            previous, shown = shown, screen_cells(app)
            if shown == previous:
                break
        return shown
