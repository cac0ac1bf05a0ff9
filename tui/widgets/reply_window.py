"""A long reply's oldest blocks hidden behind a spacer of their height while its end is followed."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widget import Widget

# Screens of the newest content kept shown below the spacer. The user sees one; the conversation
# shows everything again once they scroll more than one screen up from the end
# (tui.widgets.conversation), so at least one more screen of real blocks lies between what they
# see and the spacer.
KEEP_SCREENS = 3
# Blocks always kept shown: the one still streaming and the one before it (the next text may
# turn the last block into another kind, which Textual does by replacing it).
MIN_KEPT_BLOCKS = 2


class HiddenBlocks(Widget):
    """Blank, as tall as the hidden blocks were with their margins."""

    DEFAULT_CSS = """
    HiddenBlocks {
        width: 1fr;
        height: 0;
        margin: 0;
        padding: 0;
    }
    """


def first_kept(shown: Sequence[Widget], keep_rows: int) -> int:
    """Index of the first block to keep shown: the newest blocks from it down span `keep_rows`
    rows as laid out in the last frame; 0 (hide nothing) when there are not enough, or when a
    block above the newest laid-out one has no place yet (positions unknown)."""
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


class BlockWindow:
    """The hidden blocks of one Markdown widget and the spacer in their place (its first
    child, mounted the first time blocks are hidden).

    Textual lays out every shown widget on each change, so a streamed reply's frames grew
    with its length; with the blocks a few screens up hidden, a frame lays out only the newest
    ones, and the screen looks the same (the spacer is exactly as tall as they were). The
    conversation shows them again when the user scrolls back toward them."""

    def __init__(self) -> None:
        self.spacer: HiddenBlocks | None = None
        self.hidden: list[Widget] = []
        self.width = 0  # the owner's outer width when it hid them: their heights hold for it only

    @property
    def hiding(self) -> bool:
        return bool(self.hidden)

    async def hide_above(self, owner: Widget, blocks: Sequence[Widget], keep_rows: int) -> int:
        """Hide the shown `blocks` of `owner` above the newest ones that fill `keep_rows`;
        returns how many were hidden. Call it after a layout (positions are read from it)."""
        shown = [block for block in blocks if block.display]
        cut = first_kept(shown, keep_rows)
        if cut <= 0:
            return 0
        kept = shown[cut]
        # The spacer has no margin, so the kept block's top margin still applies below it: the
        # spacer ends where that margin starts, and every block below keeps its row.
        height = kept.virtual_region.y - kept.styles.margin.top
        if self.spacer is None:
            self.spacer = HiddenBlocks()
            await owner.mount(self.spacer, before=0)
        self.spacer.styles.height = height
        self.spacer.display = True
        self.width = owner.outer_size.width
        for block in shown[:cut]:
            block.display = False
        self.hidden += shown[:cut]
        return cut

    def show_all(self) -> None:
        """Show every hidden block again, in place of the spacer."""
        if not self.hidden:
            return
        for block in self.hidden:
            block.display = True
        self.hidden.clear()
        if self.spacer is not None:
            self.spacer.display = False
