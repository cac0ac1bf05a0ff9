"""Code blocks highlighted when first drawn: laid out from their plain text, cell for cell alike."""

from __future__ import annotations

from typing import cast

from markdown_it.token import Token
from textual.app import ComposeResult, RenderResult
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.widgets import Label, Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

Look = tuple[bool, bool]  # what the colours depend on: the terminal's own colours, a dark theme


def plain_code(code: str) -> Content:
    """The code as Textual's highlighter lays it out (textual.highlight joins its lines with
    "\\n" whatever ended them), without colours: the same cells."""
    return Content("\n".join(code.splitlines()))


class CodeLines(Label):
    """The fence's code. Its size comes from the plain text, so laying it out highlights
    nothing; drawing it (`render`) asks the fence for the highlighted text, made once."""

    def __init__(self, fence: LazyFence) -> None:
        self.fence = fence
        self._plain = plain_code(fence.code)
        super().__init__(self._plain, id="code-content", expand=True)

    @property
    def _rules(self) -> RulesMap:
        # What Textual's own widgets hand their visuals (its styles read as a rules map).
        return cast(RulesMap, self.styles)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        width = self._plain.get_optimal_width(self._rules, container.width)
        if self.expand:
            width = max(container.width, width)
        if self.shrink:
            width = min(width, container.width)
        return width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._plain.get_height(self._rules, width) if width else 0

    def show_code(self) -> None:
        """The code changed (the streamed block grew): measure and draw it anew."""
        self._plain = plain_code(self.fence.code)
        self.update(self._plain)

    def render(self) -> RenderResult:
        return self.fence.highlighted()


class LazyFence(MarkdownFence):
    """Textual's fence, highlighted when first drawn rather than when made. A streamed reply's
    last code block is made again with every frame that extends it, and most blocks of a long
    reply scroll out of view, and are hidden (tui.widgets.reply_window), before they are ever
    drawn: highlighting (pygments) was a tenth of the drawing's time."""

    def __init__(self, markdown: Markdown, token: Token, code: str) -> None:
        MarkdownBlock.__init__(self, markdown, token)  # not MarkdownFence's: it highlights
        self.code = code
        self.lexer = token.info
        self._lit: tuple[Look, Content] | None = None
        self.auto_links = False  # as Textual's fence: no links in code

    @property  # an attribute in Textual's fence, made at once there
    def _highlighted_code(self) -> Content:
        return self.highlighted()

    @_highlighted_code.setter
    def _highlighted_code(self, content: Content) -> None:
        self._lit = ((self.app.native_ansi_color, self.app.current_theme.dark), content)

    def highlighted(self) -> Content:
        """The code in the theme's colours, as Textual's fence has it (made again only when
        the theme changed)."""
        look = (self.app.native_ansi_color, self.app.current_theme.dark)
        if self._lit is None or self._lit[0] != look:
            self._lit = (look, self.highlight(self.code, self.lexer, ansi=look[0], dark=look[1]))
        return self._lit[1]

    def notify_style_update(self) -> None:
        """The theme may have changed: the code is drawn again (in new colours if it did)."""
        for lines in self.query_children(CodeLines):
            lines.refresh()
        super(MarkdownFence, self).notify_style_update()  # not MarkdownFence's: it highlights

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        if not isinstance(block, LazyFence):
            await super()._update_from_block(block)
            return
        self._token = block._token
        self.code, self.lexer, self._lit = block.code, block.lexer, None
        for lines in self.query_children(CodeLines):
            lines.show_code()

    def compose(self) -> ComposeResult:
        yield CodeLines(self)


# The Markdown block classes this module replaces, for a Markdown widget's BLOCKS.
LAZY_FENCE_BLOCKS: dict[str, type[MarkdownBlock]] = {"fence": LazyFence, "code_block": LazyFence}
