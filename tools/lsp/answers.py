"""The lsp tool's answers as the model reads them: locations as workspace-relative paths with
1-based lines and columns, hover text, a file's symbols as an outline; each bounded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.lsp.diagnostics import flat
from tools.lsp.positions import path_of_uri
from tools.paths import display_path

if TYPE_CHECKING:
    from lsprotocol.types import DocumentSymbol, SymbolInformation

# Locations listed (definitions, references): enough to see where a name is used; a name used
# in thousands of places is said with the count of the rest.
MAX_LOCATIONS = 50
# Symbols listed in a file's outline: a long module's classes and functions.
MAX_SYMBOLS = 200
# Characters of hover text: a signature and its docstring; a whole module's docs are cut.
MAX_HOVER_CHARS = 3000
# Levels of nested symbols shown (a class, its methods, their local functions).
MAX_SYMBOL_DEPTH = 4


def _where(workspace: Path, uri: str, line: int, character: int) -> str:
    """`path:line:column` (1-based; the column counts the server's code units, which are
    characters unless the line has characters beyond the Basic Multilingual Plane)."""
    path = path_of_uri(uri)
    shown = display_path(workspace, Path(path)) if path is not None else flat(uri, 200)
    return f"{shown}:{line + 1}:{character + 1}"


def locations(workspace: Path, found: Any, what: str) -> str:
    """Definitions or references (a Location, a list of Locations or of LocationLinks)."""
    items = found if isinstance(found, list | tuple) else [found] if found else []
    lines = []
    for item in items:
        uri = str(getattr(item, "target_uri", None) or getattr(item, "uri", ""))
        place = getattr(item, "target_selection_range", None) or getattr(item, "range", None)
        if place is not None:
            lines.append(_where(workspace, uri, place.start.line, place.start.character))
    unique = list(dict.fromkeys(lines))
    if not unique:
        return f"no {what} found"
    shown = unique[:MAX_LOCATIONS]
    more = f"\n… and {len(unique) - len(shown)} more" if len(unique) > len(shown) else ""
    noun = what if len(unique) != 1 else what.rstrip("s")
    return f"{len(unique)} {noun}:\n" + "\n".join(shown) + more


def hover_text(found: Any) -> str:
    """A hover's contents (markup, a marked string, or a list of them) as text, bounded."""
    contents = getattr(found, "contents", None)
    parts = contents if isinstance(contents, list | tuple) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif part is not None:
            texts.append(str(getattr(part, "value", "")))
    text = "\n\n".join(t.strip() for t in texts if t and t.strip())
    if not text:
        return "no hover information here"
    if len(text) > MAX_HOVER_CHARS:
        return text[:MAX_HOVER_CHARS] + f"\n… ({len(text) - MAX_HOVER_CHARS:,} more characters)"
    return text


def _kind(symbol: DocumentSymbol | SymbolInformation) -> str:
    kind = symbol.kind
    return str(getattr(kind, "name", kind)).lower()


def _outline(symbols: Sequence[DocumentSymbol], depth: int, lines: list[str]) -> None:
    for symbol in symbols:
        if len(lines) >= MAX_SYMBOLS:
            return
        line = symbol.selection_range.start.line + 1
        lines.append(f"{'  ' * depth}{_kind(symbol)} {flat(symbol.name, 120)} (line {line})")
        if symbol.children and depth + 1 < MAX_SYMBOL_DEPTH:
            _outline(symbol.children, depth + 1, lines)


def symbols_text(found: Any, rel: str) -> str:
    """A file's symbols: an outline (DocumentSymbol) or a flat list (SymbolInformation)."""
    items = list(found or [])
    if not items:
        return f"no symbols found in {rel}"
    lines: list[str] = []
    if hasattr(items[0], "selection_range"):
        _outline(items, 0, lines)
    else:
        for symbol in items[:MAX_SYMBOLS]:
            container = f" in {flat(symbol.container_name, 80)}" if symbol.container_name else ""
            where = symbol.location.range.start.line + 1
            lines.append(f"{_kind(symbol)} {flat(symbol.name, 120)}{container} (line {where})")
    more = "\n… (more symbols not listed)" if len(lines) >= MAX_SYMBOLS else ""
    return f"symbols in {rel}:\n" + "\n".join(lines) + more
