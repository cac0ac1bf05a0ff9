"""The status line command's output as the status bar may show it: its first line, cut, with its
colours (SGR sequences) kept and every other escape sequence and control character removed.

A status line script is the user's own, but what it prints may come from anywhere (a branch name,
a file, a server's answer): OSC 52 would write the clipboard, a cursor move would draw over the
screen. Only `ESC [ ... m` is kept, and the front end turns it into styles (never raw bytes)."""

from __future__ import annotations

import re

from agent.terminal_text import stripped

# Characters of the first line kept (colour sequences included): a line as wide as a wide
# terminal with a colour code around each field, and no more (the bar shows one line).
MAX_LINE_CHARS = 1_000
# Escape sequences, whole: SGR (kept); any other CSI (cursor moves, erasing, modes); OSC, DCS,
# SOS, PM and APC strings up to their terminator or the end of the line; two-character escapes
# (ESC 7, ESC c, ESC ( B ...); a CSI cut short by the end of the line; their 8-bit (C1) forms;
# and a lone ESC.
_SEQUENCE = re.compile(
    r"(?P<sgr>\x1b\[[0-9;:]*m)"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*(?:[@-~]|$)"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)"
    r"|\x1b[ -/]*[0-~]"
    r"|\x1b",
    re.DOTALL,
)


def first_line(output: str) -> str:
    """The first line of `output`, cut to MAX_LINE_CHARS, cleaned (see the module)."""
    line = output.split("\n", 1)[0][:MAX_LINE_CHARS]
    return clean(line.replace("\t", " "))


def clean(line: str) -> str:
    """`line` with its SGR sequences and printable text, nothing else."""
    kept: list[str] = []
    start = 0
    for match in _SEQUENCE.finditer(line):
        kept.append(stripped(line[start : match.start()]))
        if match.group("sgr"):
            kept.append(match.group())
        start = match.end()
    kept.append(stripped(line[start:]))
    return "".join(kept)
