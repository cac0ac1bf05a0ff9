"""A frame's streamed text appended to a Markdown widget; blocks far above its end left unbuilt."""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from tui.widgets.reply_window import MIN_KEPT_BLOCKS, BlockWindow, estimated_rows

Group = tuple[int, list[Token]]  # one top-level block's tokens and its first source line


def top_level_groups(tokens: Sequence[Token]) -> list[Group]:
    """The tokens split at each top-level block (a heading, a paragraph, a list, a fence ...)."""
    groups: list[Group] = []
    depth = 0
    for token in tokens:
        if depth == 0 and token.map is not None and token.level == 0 and token.nesting >= 0:
            groups.append((token.map[0], []))
        if groups:
            groups[-1][1].append(token)
        depth += token.nesting
    return groups


def first_built(groups: Sequence[Group], lines: Sequence[str], width: int, keep_rows: int) -> int:
    """Index of the first group to build as widgets: the newest ones from it down are estimated
    to fill `keep_rows` rows `width` cells wide; 0 (build all) when they do not."""
    rows = 0
    for index in range(len(groups) - 1, 0, -1):
        end = groups[index + 1][0] if index + 1 < len(groups) else len(lines)
        rows += estimated_rows(lines[groups[index][0] : end], width)
        if rows >= keep_rows and len(groups) - index >= MIN_KEPT_BLOCKS:
            return index
    return 0


async def append_folding(
    owner: Markdown, window: BlockWindow, markdown: str, keep_rows: int | None
) -> None:
    """Textual's `Markdown.append` (it parses again from the last block's first line, updates
    that block and mounts the new ones), except that with `keep_rows` (the user follows the end)
    the blocks above the newest ones estimated to fill that many rows are folded into the
    window as source, together with every block already built, instead of being built."""
    parser = MarkdownIt("gfm-like") if owner._parser_factory is None else owner._parser_factory()
    owner._markdown = owner.source + markdown
    lines = owner._markdown.splitlines(keepends=True)
    async with owner.lock:
        start_line = owner._last_parsed_line
        tokens = parser.parse("".join(lines[start_line:]))
        for token in reversed(tokens):
            if token.map is not None and token.level == 0:
                owner._last_parsed_line += token.map[0]
                break
        existing = [child for child in owner.children if isinstance(child, MarkdownBlock)]
        if keep_rows is not None and not window.unfolding:
            width = owner.content_size.width
            groups = top_level_groups(tokens)
            cut = first_built(groups, lines[start_line:], width, keep_rows)
            if cut > 0:
                await _fold_unbuilt(window, existing, lines, start_line, groups[cut][0], width)
                existing = []
                tokens = [token for _, group in groups[cut:] for token in group]
        new_blocks = list(owner._parse_markdown(tokens))
        for block in new_blocks:
            start, end = block.source_range
            block.source_range = (start + start_line, end + start_line)
        with owner.app.batch_update():
            if existing and new_blocks:
                last_block = existing[-1]
                last_block.source_range = new_blocks[0].source_range
                try:
                    await last_block._update_from_block(new_blocks[0])
                except IndexError:
                    pass
                else:
                    new_blocks = new_blocks[1:]
            if new_blocks:
                await owner.mount_all(new_blocks)
        owner._table_of_contents = None  # made again from the headings when asked for


async def _fold_unbuilt(
    window: BlockWindow,
    existing: Sequence[MarkdownBlock],
    lines: Sequence[str],
    start_line: int,
    cut_line: int,
    width: int,
) -> None:
    """Fold every built block and the new source up to `cut_line` (relative to `start_line`):
    the rows above the last built block as laid out, the rest estimated."""
    last = existing[-1] if existing else None
    if last is not None and last.virtual_region.height:
        above = last.virtual_region.y - last.styles.margin.top
        first_estimated = last.source_range[0]
    else:  # nothing built, or not laid out yet: all since the spacer is estimated
        above = window.height
        first_estimated = window.lines
    upto = start_line + cut_line
    height = above + estimated_rows(lines[first_estimated:upto], width)
    await window.fold(existing, upto, height, exact=False)
