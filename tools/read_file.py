"""The read_file tool: a numbered window of a text file, streamed so huge files stay cheap."""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.paths import display_path, open_in_workspace, resolve_in_workspace
from tools.text_io import BINARY_SNIFF_BYTES, decode_line, iter_lines, looks_binary

# Lines per call by default: a few screens of code, enough for most files in one read.
DEFAULT_LIMIT = 2000
# Characters per line shown; longer lines (minified code, data) are cut so one line cannot
# eat the whole budget.
MAX_LINE_CHARS = 2000
# Bytes of one line ever held in memory: UTF-8 needs at most 4 bytes per character.
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS
# Characters per result (~25k tokens): a large slice of a model's context, never all of it.
OUTPUT_CHAR_BUDGET = 100_000
# Counting the lines after the window costs a read of the rest of the file; past 128 MiB
# (roughly 0.1-1 s of I/O) the total is given as a lower bound instead.
COUNT_BYTES_BUDGET = 128 * 1024 * 1024
# Read size while counting newlines: large enough to run at memory speed.
COUNT_CHUNK_BYTES = 1024 * 1024


@dataclass
class _Window:
    """The lines shown and what the notes after them need to know."""

    lines: list[str]
    first: int
    last: int
    total: int
    total_exact: bool
    hit_budget: bool
    cut_lines: bool
    replaced: bool


def _count_rest(stream: BinaryIO) -> tuple[int, bool]:
    """Lines left after the stream position, and False when the count stopped at the budget."""
    count, read, last = 0, 0, b"\n"
    while chunk := stream.read(COUNT_CHUNK_BYTES):
        count += chunk.count(b"\n")
        read += len(chunk)
        last = chunk[-1:]
        if read >= COUNT_BYTES_BUDGET:
            return count, False
    if last != b"\n":
        count += 1
    return count, True


def _check_kind(info: os.stat_result, rel: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{rel} is a directory, not a file; use list_dir to see its entries")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{rel} is not a regular file (device, pipe or socket); refused")


def _read_window(workspace: Path, path: Path, rel: str, offset: int, limit: int) -> _Window:
    """Stream the file once: skip to `offset`, keep up to `limit` lines, count the rest.
    Opened without following a symlink swapped in since the check (tools/paths.py)."""
    try:
        _check_kind(path.stat(), rel)  # devices and pipes are refused before being opened
        fd = open_in_workspace(workspace, path, os.O_RDONLY | os.O_NONBLOCK, rel)
        with os.fdopen(fd, "rb") as stream:
            _check_kind(os.fstat(stream.fileno()), rel)  # what was opened, not what was checked
            if looks_binary(stream.read(BINARY_SNIFF_BYTES)):
                raise ToolError(f"{rel} looks like a binary file (it has NUL bytes); not shown")
            stream.seek(0)
            window = _Window(
                lines=[],
                first=offset,
                last=offset - 1,
                total=0,
                total_exact=True,
                hit_budget=False,
                cut_lines=False,
                replaced=False,
            )
            chars = 0
            lineno = 0
            for raw, cut in iter_lines(stream, MAX_LINE_BYTES):
                lineno += 1
                if lineno < offset:
                    continue
                text, replaced = decode_line(raw, cut)
                window.replaced |= replaced
                if cut or len(text) > MAX_LINE_CHARS:
                    text = text[:MAX_LINE_CHARS] + " [line cut]"
                    window.cut_lines = True
                shown = f"{lineno:6}\t{text}"
                if window.lines and chars + len(shown) + 1 > OUTPUT_CHAR_BUDGET:
                    window.hit_budget = True  # this line starts the next window
                    break
                window.lines.append(shown)
                chars += len(shown) + 1
                window.last = lineno
                if len(window.lines) >= limit:
                    break
            rest = 0
            if window.hit_budget or len(window.lines) >= limit:
                rest, window.total_exact = _count_rest(stream)
            window.total = lineno + rest
    except FileNotFoundError as exc:
        raise ToolError(f"file not found: {rel}") from exc
    except PermissionError as exc:
        raise ToolError(f"cannot read {rel}: permission denied") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror or exc}") from exc
    return window


def _render(window: _Window, rel: str, offset: int) -> str:
    """The numbered lines, then one short note per thing the model should know."""
    if not window.lines:
        if window.total == 0 and offset == 1:
            return f"({rel} is empty)"
        raise ToolError(f"offset {offset} is past the end of {rel} ({window.total} lines)")
    notes: list[str] = []
    if window.last < window.total or not window.total_exact:
        of = str(window.total) if window.total_exact else f"at least {window.total}"
        why = f", output capped at {OUTPUT_CHAR_BUDGET} chars" if window.hit_budget else ""
        notes.append(
            f"[lines {window.first}-{window.last} of {of}{why}; "
            f"call read_file with offset={window.last + 1} for more]"
        )
    if window.cut_lines:
        notes.append(f"[lines longer than {MAX_LINE_CHARS} chars were cut]")
    if window.replaced:
        notes.append("[not valid UTF-8: undecodable bytes are shown as U+FFFD]")
    return "\n".join([*window.lines, *notes])


# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path, relative to the workspace."},
        "offset": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
        "limit": {"type": "integer", "minimum": 1, "description": "Max lines to read."},
    },
    "required": ["path"],
    "additionalProperties": False,
}


class ReadFileTool(Tool):
    """Read a window of lines from a text file, numbered like `cat -n`."""

    name = "read_file"
    description = (
        "Read a text file from the workspace. Lines come numbered (number, tab, text). "
        f"Reads at most `limit` lines (default {DEFAULT_LIMIT}) from line `offset` (1-based); "
        "a note at the end says how to read the next window. Binary files are refused."
    )
    parameters = _PARAMETERS

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        offset = int(args.get("offset", 1))
        limit = int(args.get("limit", DEFAULT_LIMIT))
        if offset < 1 or limit < 1:
            raise ToolError("offset and limit must be at least 1")

        def work() -> tuple[_Window, str]:
            path = resolve_in_workspace(ctx.workspace, args["path"])
            rel = display_path(ctx.workspace, path)
            return _read_window(ctx.workspace, path, rel, offset, limit), rel

        window, rel = await asyncio.to_thread(work)
        return ToolOutput(
            _render(window, rel, offset),
            meta={"path": rel, "first_line": window.first, "last_line": window.last},
        )
