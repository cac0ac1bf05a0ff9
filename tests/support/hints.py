"""Reading the "how to get the rest" notes of tool outputs, as a model would: the next call.

A cut output names its continuation as `next: TOOL key=value ...` (values are JSON: numbers,
quoted strings), or, for a kept output, `read it with read_archive action=read output=N
offset=M`. Tests follow these notes literally, so a note that does not say exactly how to go on
fails them.
"""

from __future__ import annotations

import json
import re
from typing import Any

# "next: grep pattern="x" offset=87" or "read it with read_archive action=read output=3 offset=41"
CALL = re.compile(r"(?:next: |read it with )(\w+) ((?:\w+=(?:\"(?:[^\"\\]|\\.)*\"|[^\s;\]]+) ?)+)")
PAIR = re.compile(r"(\w+)=(\"(?:[^\"\\]|\\.)*\"|[^\s;\]]+)")


def next_call(text: str) -> tuple[str, dict[str, Any]] | None:
    """The tool and arguments the last continuation note of `text` names, or None."""
    found = list(CALL.finditer(text))
    if not found:
        return None
    match = found[-1]
    args: dict[str, Any] = {}
    for key, raw in PAIR.findall(match.group(2)):
        try:
            args[key] = json.loads(raw)
        except json.JSONDecodeError:
            args[key] = raw  # a bare word, e.g. action=read
    return match.group(1), args


# "lines 1-87 of 10,000" / "matches 1-87 of 10,000" / "files 1-500 of 20,000"
SHOWN = re.compile(r"\b(?:lines|matches|files|entries) ([\d,]+)-([\d,]+) of ([\d,]+)")
LAST_LINES = re.compile(r"the last lines: offset=(\d+) limit=(\d+)")
PAGES = re.compile(r"page (\d+) of (\d+)")


def last_page_call(text: str) -> tuple[str, dict[str, Any]] | None:
    """The call that jumps to the end of a cut output, from its note: read_file's and kept
    outputs' "the last lines: offset=N", the last page of a paged read, or the offset of the
    last items of a listing. None when the output is not cut."""
    call = next_call(text)
    if call is None:
        return None
    tool, args = call
    if found := LAST_LINES.findall(text):
        offset, limit = found[-1]
        return tool, {**args, "offset": int(offset), "limit": int(limit)}
    if "output" in args:
        return call  # a kept output: read from where the cut began; its pages jump on
    if "page" in args and (pages := PAGES.findall(text)):
        return tool, {**args, "page": int(pages[-1][1])}
    if shown := SHOWN.findall(text):
        first, last, total = (int(n.replace(",", "")) for n in shown[-1])
        return tool, {**args, "offset": total - (last - first + 1)}
    return call
