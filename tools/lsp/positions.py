"""Positions between pleat's tools (1-based lines and columns, in characters) and LSP's (0-based,
a column counted in the code units the server chose: UTF-16 by default, UTF-32 or UTF-8 when
it took one of those)."""

from __future__ import annotations

from urllib.parse import unquote, urlparse

# The position encodings pleat offers a server, preferred first: UTF-32 counts characters as
# pleat does, so nothing needs converting; UTF-16 is what every server must support.
OFFERED_ENCODINGS = ("utf-32", "utf-16")


def _units(text: str, encoding: str) -> int:
    """How many code units of `encoding` `text` takes."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def to_lsp_character(line_text: str, column: int, encoding: str) -> int:
    """The LSP character offset of the 1-based `column` (in characters) of `line_text`."""
    return _units(line_text[: max(column - 1, 0)], encoding)


def from_lsp_character(line_text: str, character: int, encoding: str) -> int:
    """The 1-based column (in characters) of an LSP character offset in `line_text`."""
    if encoding == "utf-32":
        return character + 1
    count = 0
    for index, char in enumerate(line_text):
        if count >= character:
            return index + 1
        count += _units(char, encoding)
    return len(line_text) + 1 + max(character - count, 0)  # past the text pleat has: as given


def line_of(text: str, line: int) -> str:
    """The 0-based `line` of `text` ("" past its end)."""
    lines = text.split("\n")
    return lines[line] if 0 <= line < len(lines) else ""


def path_of_uri(uri: str) -> str | None:
    """The file system path of a `file:` URI, or None for any other kind."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return unquote(parsed.path)
