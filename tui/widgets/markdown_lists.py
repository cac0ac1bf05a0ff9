"""Markdown lists of one-paragraph items drawn by one widget each, cell for cell as Textual's."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from textual.app import ComposeResult, RenderResult
from textual.content import Content
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

# Textual exports the list blocks only from its private module (8.2.8, pinned in the lock files);
# tests/e2e/test_tui_streaming.py compares the drawing with Textual's, so a change shows there.
from textual.widgets._markdown import (
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownOrderedListItem,
    MarkdownParagraph,
)
from textual.widgets.markdown import MarkdownBlock

# The component class that styles the bullets (or numbers): the colours of Textual's
# MarkdownBullet, which this replaces.
BULLET = "flat-list--bullet"
# How Textual numbers an ordered list: "3. ", right-aligned to the widest number plus one cell.
ORDERED_SUFFIX = ". "

Item = tuple[str, Content]  # the bullet (or number), drawn in the gutter; the item's text


def flat_items(blocks: Iterable[MarkdownBlock], ordered: bool) -> list[Item] | None:
    """The items of a list as (symbol, text), or None when an item holds anything but a single
    paragraph (that list keeps Textual's widgets)."""
    items = [block for block in blocks if isinstance(block, MarkdownListItem)]
    if not items or any(
        len(item._blocks) != 1 or type(item._blocks[0]) is not MarkdownParagraph for item in items
    ):
        return None
    texts = [item._blocks[0]._content for item in items]
    if not ordered:
        return [(item.bullet, text) for item, text in zip(items, texts, strict=True)]
    start = 1
    if isinstance(items[0], MarkdownOrderedListItem):
        try:
            start = int(items[0].bullet)
        except ValueError:
            pass
    numbers = [f"{n}{ORDERED_SUFFIX}" for n in range(start, start + len(items))]
    width = max(len(number) for number in numbers) + 1
    return [(n.rjust(width), text) for n, text in zip(numbers, texts, strict=True)]


class ListVisual(Visual):
    """The items stacked, each wrapped beside a gutter as wide as its bullet: the bullet on the
    first line, blank below it, as Textual's row of bullet and column lays them out. The texts
    are joined into one Content, one line per item (and per hard break), so a selection's line
    numbers run through the whole list."""

    def __init__(self, items: list[Item], bullet: Style) -> None:
        self.items = items
        self.bullet = bullet
        self.text = Content("\n").join(text for _, text in items)
        self.gutter = max(cell_len(symbol) for symbol, _ in items)

    def _heights(self, rules: RulesMap, width: int) -> list[int]:
        return [text.get_height(rules, width) for _, text in self.items]

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        inner = max(1, width - self.gutter)
        lines = self.text.render_strips(inner, None, style, options)
        # Below its bullet, Textual's bullet widget is blank in the bullet's colours.
        blank = Segment(" " * self.gutter, self.bullet.rich_style)
        strips: list[Strip] = []
        for (symbol, _), rows in zip(self.items, self._heights(options.rules, inner), strict=True):
            for row in range(rows):
                line = lines[len(strips)] if len(strips) < len(lines) else Strip.blank(0)
                lead = Segment(symbol, self.bullet.rich_style) if row == 0 else blank
                strips.append(Strip([lead, *line], self.gutter + line.cell_length))
        return strips if height is None else strips[:height]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        inner = max(1, container_width - self.gutter)
        return self.gutter + self.text.get_optimal_width(rules, inner)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return sum(self._heights(rules, max(1, width - self.gutter)))


def _bullet_css(widget: str) -> str:
    """The bullets' colours, as Textual's MarkdownBullet has them."""
    return f"""
    {widget} > .{BULLET} {{
        color: $text-primary;
    }}
    {widget}:light > .{BULLET} {{
        color: $text-secondary;
    }}
    """


# Textual takes a widget's CSS (its defaults, its type names for selectors) from the first base
# class only, so the list classes below name Textual's list first among the widget classes; the
# shared behaviour is a plain mixin (a widget class only while type checking).
if TYPE_CHECKING:
    _MixinBase = MarkdownBlock
else:
    _MixinBase = object


class _FlatList(_MixinBase):
    """What the two flat lists share: drawn by one ListVisual when their items allow it.

    Textual builds four widgets per item (a row, the bullet, a column, the paragraph); mounting
    and laying those out was most of the cost of showing a streamed reply, and most lists in a
    reply are items of one paragraph each. The drawing is the same, cell for cell
    (tests/e2e/test_tui_streaming.py compares them); lists with anything else in an item (a nested
    list, code) keep Textual's widgets."""

    ORDERED = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._items: list[Item] | None = None
        self._decided = False

    @property
    def items(self) -> list[Item] | None:
        """The items as (symbol, text) when the list is drawn flat, else None. Decided on first
        use, from the parsed items (complete before the list is mounted): a nested list may be
        measured before its compose runs."""
        if not self._decided:
            self._items = flat_items(self._blocks, self.ORDERED)
            self._decided = True
        return self._items

    def compose(self) -> ComposeResult:
        if self.items is None:
            yield from super().compose()  # Textual's widgets
        self._blocks.clear()

    def render(self) -> RenderResult:
        items = self.items
        if items is None:
            return super().render()
        return ListVisual(items, self.get_visual_style(BULLET))

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        if self.items is None:
            return super().get_selection(selection)
        return selection.extract(Content("\n").join(text for _, text in self.items).plain), "\n"

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        """The list grew while streaming: take the new items in place when both are flat (one
        widget updated instead of one removed and another mounted)."""
        items = flat_items(block._blocks, self.ORDERED) if type(block) is type(self) else None
        if self.items is None or items is None:
            await super()._update_from_block(block)
            return
        self._items = items
        self._copy_context(block)
        self.clear_cached_dimensions()
        self.refresh(layout=True)


class FlatBulletList(_FlatList, MarkdownBulletList):
    """A bullet list ("- item")."""

    DEFAULT_CSS = _bullet_css("FlatBulletList")
    COMPONENT_CLASSES: ClassVar[set[str]] = {BULLET}


class FlatOrderedList(_FlatList, MarkdownOrderedList):
    """A numbered list ("1. item")."""

    DEFAULT_CSS = _bullet_css("FlatOrderedList")
    COMPONENT_CLASSES: ClassVar[set[str]] = {BULLET}
    ORDERED = True


# Markdown.BLOCKS entries for a widget that draws its lists flat.
FLAT_LIST_BLOCKS: dict[str, type[MarkdownBlock]] = {
    "bullet_list_open": FlatBulletList,
    "ordered_list_open": FlatOrderedList,
}
