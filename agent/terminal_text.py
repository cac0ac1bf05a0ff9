"""One sanitizer for every string pleat shows in a terminal: control characters made visible.

Model output, file names, tool output and chunk text may hold escape sequences: `\\x1b[2K` erases
a line (an approval prompt could show `pytest` over the `curl ... | sh` that runs), OSC 52 writes
the clipboard, OSC 0 retitles the window. Neither Rich nor Textual strips ESC. Every C0 and C1
control character except newline and tab, DEL, the bidirectional overrides that make text read
in another order than it runs (Trojan Source), and lone surrogates (which a UTF-8 terminal
cannot even encode) are shown as their escape text instead: ESC as the four characters `\\x1b`.
A backslash already in the text is left alone, so `\\x1b` typed as text looks the same as a real
ESC made visible; the approval prompt says when a command holds real control characters.
"""

from __future__ import annotations

import re
from typing import TextIO

# What is never sent to a terminal as it is: C0 controls but tab and newline, DEL and the C1
# range, the bidirectional marks, embeddings, overrides and isolates, and lone surrogates.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control character shown as its escape (`\\x1b`, `\\u202e`)."""
    return _HIDDEN.sub(_escaped, text)


def stripped(text: str) -> str:
    """`text` without the characters visible() would show as escapes (for text whose escape
    sequences were already taken out whole: agent/status_line/clean.py)."""
    return _HIDDEN.sub("", text)


def hidden_count(text: str) -> int:
    """How many characters visible() would replace."""
    return len(_HIDDEN.findall(text))


class VisibleStream:
    """A text stream that makes everything written through it visible() first: headless
    stdout and stderr, where model and tool text is printed."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(visible(text))

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)
