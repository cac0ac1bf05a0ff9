"""A long reply's oldest blocks folded into one spacer, as source, while its end is followed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.widget import Widget

if TYPE_CHECKING:  # Textual's Markdown imports markdown-it: after the first frame, not before
    from textual.widgets import Markdown

# Screens of the newest content kept as widgets below the spacer. The user sees one; the
# conversation builds the folded blocks again once they scroll more than one screen up from the
# end (tui.widgets.conversation), so one more screen of real blocks lies between what they see
# and the spacer. Every block kept is built and laid out in each frame that adds it: fewer kept
# screens are less work per frame while a reply streams (bench/tui_streaming.py).
KEEP_SCREENS = 2
# Blocks always kept as widgets: the one still streaming and the one before it (the next text
# may turn the last block into another kind, which Textual does by replacing it).
MIN_KEPT_BLOCKS = 2


class HiddenBlocks(Widget):
    """Blank, as tall as the folded blocks were (or are estimated to be) with their margins."""

    DEFAULT_CSS = """
    HiddenBlocks {
        width: 1fr;
        height: 0;
        margin: 0;
        padding: 0;
    }
    """


def first_kept(shown: Sequence[Widget], keep_rows: int) -> int:
    """Index of the first block to keep: the newest blocks from it down span `keep_rows` rows
    as laid out in the last frame; 0 (fold nothing) when there are not enough, or when a block
    above the newest laid-out one has no place yet (positions unknown)."""
    end: int | None = None
    for index in range(len(shown) - 1, -1, -1):
        region = shown[index].virtual_region
        if not region.height:
            if end is None:
                continue  # mounted since the last layout: below everything laid out
            return 0
        if end is None:
            end = region.bottom
        if end - region.y >= keep_rows and len(shown) - index >= MIN_KEPT_BLOCKS:
            return index
    return 0


def estimated_rows(lines: Sequence[str], width: int) -> int:
    """Rows Markdown source lines take drawn `width` cells wide, roughly: each line wrapped (a
    blank line stands for a margin, a fence's ``` line for its padding)."""
    width = max(1, width)
    return sum(max(1, -(-cell_len(line.rstrip("\n")) // width)) for line in lines)


class BlockWindow:
    """The folded blocks of one streamed Markdown widget: the first `lines` lines of its source,
    drawn as a spacer (its first child, mounted the first time blocks are folded).

    Textual lays out every widget on each change, and builds one per block: a long streamed
    reply's frames grew with its length, and building its hundreds of blocks took more time
    than reading the stream. Blocks far above the end are folded: removed (or, when a frame
    brings more than screens of text at once, never built) and kept as their source. The
    spacer is exactly as tall as the folded blocks were laid out, or as `estimated_rows` says
    for blocks never built (`exact` is then False). The conversation unfolds them (builds them
    from the source, the same blocks) when the user scrolls back toward them."""

    def __init__(self, owner: Markdown) -> None:
        self.owner = owner
        self.spacer: HiddenBlocks | None = None
        self.lines = 0  # the owner's source lines the spacer stands for
        self.exact = True  # the spacer's height was measured, not estimated
        self.width = 0  # the owner's outer width when it folded: heights hold for it only
        self.unfolding = False  # an unfold is scheduled: fold nothing until it ran

    @property
    def hiding(self) -> bool:
        return self.lines > 0

    def show_if_in_view(self) -> None:
        """Build the folded blocks if their spacer has come into view: an estimated height can
        exceed what the blocks below it draw (long link addresses, HTML), and a blank must never
        show where text belongs (found by review)."""
        spacer, view = self.spacer, self.owner.parent
        if not self.hiding or spacer is None or not isinstance(view, Widget):
            return
        if spacer.region.overlaps(view.region):
            self.show_all()

    @property
    def height(self) -> int:
        """The spacer's height: the rows above the first block kept."""
        if self.spacer is None or not self.lines:
            return 0
        return int(self.spacer.styles.height.value) if self.spacer.styles.height else 0

    async def fold(
        self, blocks: Sequence[Widget], lines: int, height: int, *, exact: bool = True
    ) -> None:
        """Remove `blocks` (the first ones shown) and stand for the first `lines` source lines,
        `height` rows tall."""
        owner = self.owner
        if self.spacer is None:
            self.spacer = HiddenBlocks()
            await owner.mount(self.spacer, before=0)
        self.spacer.styles.height = height
        self.spacer.display = True
        self.lines = lines
        self.exact = self.exact and exact
        self.width = owner.outer_size.width
        if blocks:
            await owner.remove_children(blocks)

    async def fold_above(self, keep_rows: int) -> int:
        """Fold the blocks above the newest ones that fill `keep_rows` rows, as laid out (call
        it after a layout); returns how many were folded."""
        from textual.widgets.markdown import MarkdownBlock

        blocks = [child for child in self.owner.children if isinstance(child, MarkdownBlock)]
        cut = first_kept(blocks, keep_rows)
        if cut <= 0 or self.unfolding:
            return 0
        kept = blocks[cut]
        # The spacer has no margin, so the kept block's top margin still applies below it: the
        # spacer ends where that margin starts, and every block below keeps its row.
        height = kept.virtual_region.y - kept.styles.margin.top
        await self.fold(blocks[:cut], kept.source_range[0], height)
        return cut

    def estimate(self) -> None:
        """The owner's width changed: the folded blocks' height is estimated at the new one."""
        if self.spacer is None or not self.lines:
            return
        lines = self.owner.source.splitlines(keepends=True)[: self.lines]
        self.spacer.styles.height = estimated_rows(lines, self.owner.content_size.width)
        self.exact = False
        self.width = self.owner.outer_size.width

    def show_all(self) -> None:
        """Build the folded blocks again, in place of the spacer (soon after: they are mounted)."""
        if not self.lines or self.unfolding:
            return
        self.unfolding = True
        self.owner.call_later(self._unfold, self.lines)

    async def _unfold(self, lines: int) -> None:
        from textual.widgets.markdown import MarkdownBlock

        owner = self.owner
        try:
            async with owner.lock:
                if self.spacer is None or self.lines != lines:
                    return
                source = "".join(owner.source.splitlines(keepends=True)[:lines])
                blocks = owner._build_from_source(source)  # Textual's parsing, as for the whole
                below = next(
                    (c for c in owner.children if isinstance(c, MarkdownBlock)),
                    None,
                )
                view = owner.parent
                place = None
                if below is not None and isinstance(view, Widget) and not self.exact:
                    if view.scroll_y < view.max_scroll_y:  # the reader's place, if not at the end
                        place = below.virtual_region.y
                self.lines, self.exact = 0, True
                self.spacer.display = False
                self.spacer.styles.height = 0
                if blocks:
                    await owner.mount_all(blocks, before=self.spacer)
                if place is not None and below is not None and isinstance(view, Widget):
                    owner.call_after_refresh(self._keep_place, view, below, place)
        finally:
            self.unfolding = False

    @staticmethod
    def _keep_place(view: Widget, below: Widget, place: int) -> None:
        """The estimated height was off: scroll by the difference, so what the reader sees
        stays where it was."""
        shift = below.virtual_region.y - place
        if shift:
            view.scroll_to(y=view.scroll_y + shift, animate=False, immediate=True)
