"""The read_file tool: a numbered window of a text file, streamed so huge files stay cheap (its text
as the editor a front end lent has it, when there is one: tools/editor_reads.py); an image file is
attached as an image for a model that accepts images."""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.editor_files import EditorFiles
from tools.editor_reads import disk_answers, editor_read, editor_text
from tools.image_file import ImageRefused, byte_size, format_name, read_image
from tools.output_budget import (
    NOTE_TOKENS,
    OutputBudget,
    clip_to_budget,
    largest_fitting,
    line_chars_for,
    numbered,
    tail_lines_that_fit,
)
from tools.paths import display_path, open_in_workspace, resolve_in_roots
from tools.rereads import unchanged_note
from tools.result_facts import ReadStamp, ResultFacts
from tools.text_io import (
    BINARY_SNIFF_BYTES,
    decode_line,
    iter_lines,
    looks_binary,
    wide_encoding,
)

# Lines per call by default: a few screens of code, enough for most files in one read.
DEFAULT_LIMIT = 2000
# Characters per line shown; longer lines (minified code, data) are cut so one line cannot
# eat the whole budget (in a small window, to a quarter of the budget: a few lines still fit).
MAX_LINE_CHARS = 2000
# Bytes of one line ever held in memory: UTF-8 needs at most 4 bytes per character.
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS
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
    size: int  # bytes of the file
    # Its modification time as opened, or a hash of the editor's text (a later read compares
    # both: tools/rereads.py).
    version: int
    line_chars: int  # characters a line was cut to
    last_page: int = 0  # first line of the last window that fits, when the window is cut


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


def _read_window(
    workspace: Path, path: Path, rel: str, offset: int, limit: int, budget: OutputBudget
) -> _Window:
    """The window of the file on disk, opened without following a symlink swapped in since
    the check (tools/paths.py)."""
    try:
        _check_kind(path.stat(), rel)  # devices and pipes are refused before being opened
        fd = open_in_workspace(workspace, path, os.O_RDONLY | os.O_NONBLOCK, rel)
        with os.fdopen(fd, "rb") as stream:
            opened = os.fstat(stream.fileno())
            _check_kind(opened, rel)  # what was opened, not what was checked
            version = opened.st_mtime_ns
            return _window_of(stream, opened.st_size, version, rel, offset, limit, budget)
    except FileNotFoundError as exc:
        raise ToolError(f"file not found: {rel}") from exc
    except PermissionError as exc:
        raise ToolError(f"cannot read {rel}: permission denied") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror or exc}") from exc


def _window_of(
    stream: BinaryIO,
    size: int,
    version: int,
    rel: str,
    offset: int,
    limit: int,
    budget: OutputBudget,
    complete: bool = True,
) -> _Window:
    """Walk the stream once: skip to `offset`, gather up to `limit` lines (as many as could fit
    the budget), count the rest. The stream holds the file's `size` bytes, or only their first
    part when not `complete` (the count is then a lower bound). The exact fit, note included,
    is made by _fitted."""
    room = budget.minus(NOTE_TOKENS)
    line_chars = line_chars_for(budget, MAX_LINE_CHARS)
    head = stream.read(BINARY_SNIFF_BYTES)
    if (encoding := wide_encoding(head)) is not None:
        raise ToolError(
            f"{rel} is {encoding.upper()} text, which read_file does not show (grep "
            f"searches it); convert it with: iconv -f {encoding.upper()} -t UTF-8 {rel}"
        )
    if looks_binary(head):
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
        size=size,
        version=version,
        line_chars=line_chars,
    )
    chars = 0
    lineno = 0
    for raw, cut in iter_lines(stream, MAX_LINE_BYTES):
        lineno += 1
        if lineno < offset:
            continue
        text, replaced = decode_line(raw, cut)
        window.replaced |= replaced
        shown = numbered(lineno, text, line_chars)
        if cut and len(text) <= line_chars:  # the rest of the line was never read
            shown += " [line cut]"
        window.cut_lines |= cut or len(text) > line_chars
        if window.lines and chars + len(shown) + 1 > budget.gather_chars:
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
    window.total_exact &= complete
    if window.last < window.total and window.total_exact:
        window.last_page = _last_page_start(stream, window, room)
    return window


def _last_page_start(stream: BinaryIO, window: _Window, room: OutputBudget) -> int:
    """The first line of the last window: as many trailing lines as fit the budget, found by
    reading only the file's end (a budget's worth of bytes and one long line more)."""
    span = room.gather_chars + MAX_LINE_BYTES
    stream.seek(max(0, window.size - span))
    data = stream.read(span)
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    if window.size > span:
        pieces = pieces[1:]  # the first piece may be the end of a longer line
    first = window.total - len(pieces) + 1
    shown = [
        numbered(number, decode_line(raw.removesuffix(b"\r"), False)[0], window.line_chars)
        for number, raw in enumerate(pieces, first)
    ]
    return window.total - max(1, tail_lines_that_fit(shown, room)) + 1


def _fitted(window: _Window, rel: str, offset: int, budget: OutputBudget) -> str:
    """The output with as many of the gathered lines as fit the budget with their notes (the
    exact count decides); a first line too long for it alone is cut."""
    gathered, hit = list(window.lines), window.hit_budget

    def render(count: int) -> str:
        window.lines = gathered[:count]
        window.last = window.first + len(window.lines) - 1
        window.hit_budget = hit or count < len(gathered)
        return _render(window, rel, offset, budget)

    if not gathered:
        return render(0)
    text = render(largest_fitting(len(gathered), render, budget))
    if not budget.fits(text):  # one line and its notes are too much for a tiny budget
        gathered[0] = clip_to_budget(gathered[0], budget.minus(NOTE_TOKENS * 2)) + " [line cut]"
        window.cut_lines = True
        text = render(1)
    return text


def _render(window: _Window, rel: str, offset: int, budget: OutputBudget) -> str:
    """The numbered lines, then one short note per thing the model should know."""
    if not window.lines:
        if window.total == 0 and offset == 1:
            return f"({rel} is empty)"
        raise ToolError(f"offset {offset} is past the end of {rel} ({window.total} lines)")
    notes: list[str] = []
    if window.last < window.total or not window.total_exact:
        of = f"{window.total:,}" if window.total_exact else f"at least {window.total:,}"
        shown = window.last - window.first + 1
        path = json.dumps(rel, ensure_ascii=False)
        note = f"[lines {window.first:,}-{window.last:,} of {of} ({window.size:,} bytes)"
        if window.hit_budget:
            note += f", as many as fit this model's tool-output budget (~{budget.tokens:,} tokens)"
        note += f"; next: read_file path={path} offset={window.last + 1} limit={shown}"
        # The last lines as they fit the budget when it cut this read, else as many as asked.
        cut_by_budget = window.hit_budget and window.last_page
        end_offset = window.last_page if cut_by_budget else window.total - shown + 1
        if window.total_exact and end_offset > window.last + 1:
            note += f"; the last lines: offset={end_offset} limit={window.total - end_offset + 1}"
        notes.append(note + "]")
    if window.cut_lines:
        notes.append(f"[lines longer than {window.line_chars} chars were cut]")
    if window.replaced:
        notes.append("[not valid UTF-8: undecodable bytes are shown as U+FFFD]")
    return "\n".join([*window.lines, *notes])


def reading_roots(ctx: ToolContext, raw: str) -> tuple[Path, tuple[Path, ...]]:
    """What a read of `raw` is confined to: the read root (a user's skill's directory,
    tools/base.py) an absolute path names, alone; else the workspace and the added
    directories. The confinement checks run against the root the path lies in."""
    if raw.startswith("/") and "\x00" not in raw:
        for root in ctx.read_roots:
            if Path(raw).is_relative_to(root):
                return root, ()
    return ctx.workspace, ctx.extra_roots


def _image_output(ctx: ToolContext, path: Path, rel: str, root: Path) -> ToolOutput | None:
    """The result of reading an image (None: the file is not one, read it as text): attached
    for the model when it accepts images, else a note saying why not. Blocking."""
    try:
        fd = open_in_workspace(root, path, os.O_RDONLY | os.O_NONBLOCK, rel)
    except OSError:
        return None  # the text path words the failure
    try:
        image = read_image(fd, rel)
    except ImageRefused as error:
        raise ToolError(f"{error}; not shown") from None
    except OSError:
        return None
    finally:
        os.close(fd)
    if image is None:
        return None
    info = image.info
    what = f"{rel} is a {format_name(info)} image ({info.width}×{info.height}"
    what += f", {byte_size(len(image.data))})"
    meta = {"path": rel, "image": True, "width": info.width, "height": info.height}
    facts = ResultFacts(files_read=(rel,))
    why = ctx.images.refusal() if ctx.images is not None else "no session to attach it to"
    if ctx.images is None or why is not None:
        return ToolOutput(f"{what}; not shown: {why}", is_error=True, meta=meta, facts=facts)
    try:
        attached = ctx.images.keep(image)
    except OSError as error:
        raise ToolError(f"{what}; it could not be attached: {error.strerror or error}") from None
    text = f"{what}; it is attached for you to see in the message after the tool results"
    return ToolOutput(text, meta=meta, facts=facts, images=(attached,))


class _InEditor(NamedTuple):
    """A text file read_file reads through the editor (its unsaved buffer) instead of the disk."""

    editor: EditorFiles
    path: Path
    rel: str


def _editor_window(
    text: str, rel: str, offset: int, limit: int, budget: OutputBudget
) -> tuple[_Window, str]:
    """The window of the editor's text, walked as the file on disk would be, holding no more of
    it than the disk reader counts (COUNT_BYTES_BUDGET; past that, the total is a lower bound)."""
    held = editor_text(text, COUNT_BYTES_BUDGET)
    stream = io.BytesIO(held.data)
    window = _window_of(
        stream, held.size, held.version, rel, offset, limit, budget, complete=held.complete
    )
    return window, _fitted(window, rel, offset, budget)


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
    read_only = True
    description = (
        "Read a text file of the workspace, lines numbered (number, tab, text): up to `limit` "
        f"lines (default {DEFAULT_LIMIT}) from line `offset` (1-based), as many as fit the "
        "context; a note says how to read on. Lines you already have (their result still in "
        "your context, the file unchanged) are not sent again: a note names that result. A PNG, "
        "JPEG, GIF or WebP image is shown to you as an image (when this model accepts images); "
        "other binary files are refused."
    )
    parameters = _PARAMETERS
    main_argument = "path"
    main_argument_kind = "path"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        offset = int(args.get("offset", 1))
        limit = int(args.get("limit", DEFAULT_LIMIT))
        if offset < 1 or limit < 1:
            raise ToolError("offset and limit must be at least 1")

        def work() -> tuple[_Window, str, str] | ToolOutput | _InEditor:
            base, extra = reading_roots(ctx, args["path"])
            path, root = resolve_in_roots(base, args["path"], extra)
            rel = display_path(ctx.workspace, path)
            if (image := _image_output(ctx, path, rel, root)) is not None:
                return image
            # A skill's directory (base, not the workspace) is never the editor's to answer.
            editor = ctx.editor if base == ctx.workspace else None
            if editor is not None and not disk_answers(root, path, rel):
                return _InEditor(editor, path, rel)
            window = _read_window(root, path, rel, offset, limit, ctx.budget)
            return window, rel, _fitted(window, rel, offset, ctx.budget)  # counted off the loop

        done = await asyncio.to_thread(work)
        if isinstance(done, ToolOutput):
            return done
        if isinstance(done, _InEditor):
            buffer = await editor_read(done.editor, done.path, done.rel)
            shown = await asyncio.to_thread(
                _editor_window, buffer, done.rel, offset, limit, ctx.budget
            )
            done = (shown[0], done.rel, shown[1])
        window, rel, text = done
        if ctx.language_servers is not None:  # its language's server starts meanwhile
            ctx.language_servers.noticed(ctx.workspace / rel)
        stamp = ReadStamp(offset, limit, window.size, window.version)
        if ctx.reads is not None and (earlier := ctx.reads.same_read(rel, stamp, text)):
            note = unchanged_note(rel, earlier)
            if len(note) < len(text):  # a few short lines are cheaper than the note
                facts = ResultFacts(files_read=(rel,), unchanged_of=earlier.message_id)
                said = {"path": rel, "unchanged_of": earlier.message_id}
                return ToolOutput(note, meta=said, facts=facts)
        meta = {
            "path": rel,
            "first_line": window.first,
            "last_line": window.last,
            "total_lines": window.total,
            "truncated": window.last < window.total or window.cut_lines,
        }
        return ToolOutput(text, meta=meta, facts=ResultFacts(files_read=(rel,), read_stamp=stamp))
