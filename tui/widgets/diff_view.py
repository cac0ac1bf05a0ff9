"""A unified diff with Textual's syntax highlighting: additions green, removals red."""

from __future__ import annotations

from pygments.token import Token, _TokenType
from textual.highlight import HighlightTheme, highlight
from textual.widgets import Static


class DiffTheme(HighlightTheme):
    """Textual's highlight theme plus the diff tokens it leaves unstyled."""

    STYLES: dict[_TokenType, str] = {  # noqa: RUF012  (Textual's own declaration, overridden)
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success",
        Token.Generic.Deleted: "$text-error",
        Token.Generic.Subheading: "$text-accent",
        Token.Generic.Heading: "$text-primary",
    }


class DiffView(Static):
    """Shows one diff."""

    def __init__(self, diff: str, *, classes: str | None = None) -> None:
        super().__init__(highlight(diff, language="diff", theme=DiffTheme), classes=classes)
        self.diff = diff
