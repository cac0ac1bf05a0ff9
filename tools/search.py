"""The glob and grep tools: find files by name pattern or by content, gitignore-aware."""

from __future__ import annotations

import asyncio
import itertools
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from sessions.bounded_regex import Deadline, Pattern, PatternTooSlow, compile_pattern
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.globbing import compile_glob
from tools.line_search import BLOCK_LINES, matches_per_line, matching_lines
from tools.output_budget import Page, page_note, page_text, repeat_call
from tools.paths import display_path, open_in_workspace, resolve_in_roots, workspace_root
from tools.text_io import (
    BINARY_SNIFF_BYTES,
    decode_line,
    iter_lines,
    looks_binary,
    wide_encoding,
    wide_lines,
)
from tools.visible_files import visible_files

# Matching lines counted per grep call: past this the total is given as "at least" and the
# scan stops; a search that broad needs narrowing, not an exact count (counting 100k lines takes
# well under a second).
MAX_COUNTED_MATCHES = 100_000
# Characters of a matching line shown: a line of code fits; minified lines are cut around
# the match instead (read_file shows the full line).
MAX_SHOWN_LINE_CHARS = 300
# Characters kept before the match when a long line is cut, so the match shows in context.
CONTEXT_BEFORE_MATCH = 100
# Bytes of one line searched: minified bundles put a whole file on one line; 1 MiB bounds
# memory per line while covering nearly all real source lines.
MAX_SCAN_LINE_BYTES = 1024 * 1024
# Files larger than this are skipped (and counted): 50 MiB is data or logs, not source, and
# scanning many of them line by line in Python would take seconds each.
MAX_GREP_FILE_BYTES = 50 * 1024 * 1024

_Result = TypeVar("_Result")


async def _in_thread(work: Callable[[threading.Event], _Result]) -> _Result:
    """Run a blocking scan in a worker thread; on cancellation, tell it to stop early."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(work, stop)
    except asyncio.CancelledError:
        stop.set()
        raise


@dataclass(frozen=True)
class _Start:
    """Where a search starts: the root it lies in (the workspace or an added directory), the
    resolved path, its form relative to that root ("." for the root), its display form, and
    what goes before a root-relative name to show it ("" in the workspace, the added
    directory's absolute path and "/" in one)."""

    root: Path
    path: Path
    in_root: str
    shown: str
    prefix: str


def _search_root(ctx: ToolContext, raw: str | None) -> _Start:
    """Where the search starts (resolved, confined to the root it lies in)."""
    start, root = resolve_in_roots(ctx.workspace, raw or ".", ctx.extra_roots)
    rel = display_path(ctx.workspace, start)
    if not start.exists():
        raise ToolError(f"path not found: {rel}")
    prefix = "" if root == workspace_root(ctx.workspace) else f"{root}/"
    return _Start(root, start, start.relative_to(root).as_posix() or ".", rel, prefix)


def _relative_to_start(name: str, start_rel: str) -> str:
    """A root-relative path made relative to the search directory (root-relative too)."""
    return name if start_rel == "." else name[len(start_rel) + 1 :]


# The JSON schema of glob's arguments (module-level: class bodies should not hold mutable
# literals).
_GLOB_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": 'Glob relative to `path`, e.g. "**/*.py", "src/**/*.{js,ts}".',
        },
        "path": {"type": "string", "description": "Directory to search (default: the root)."},
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "Paths to skip (the next page).",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class GlobTool(Tool):
    """Find files whose path matches a glob pattern."""

    name = "glob"
    read_only = True
    description = (
        "Find files by glob pattern relative to `path` (default: the root). `*` stays in one "
        "directory; `**/` descends (e.g. **/*.py). Skips .git and gitignored files. Sorted."
    )
    parameters = _GLOB_PARAMETERS
    main_argument = "pattern"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        pattern: str = args["pattern"]
        if not pattern.strip():
            raise ToolError("empty glob pattern")
        if pattern.startswith("/"):
            raise ToolError("the glob pattern must be relative; choose the directory with `path`")
        try:
            matcher = compile_glob(pattern.removeprefix("./"), braces=True)
        except ValueError as exc:
            raise ToolError(f"glob pattern {pattern!r}: {exc}") from None

        skip = int(args.get("offset", 0))

        again = repeat_call(self.name, args)

        def note(page: Page) -> str:
            return page_note(page, "files", ctx.budget, again, "use a narrower pattern or path")

        def work(stop: threading.Event) -> tuple[list[str], str, Page, str]:
            start = _search_root(ctx, args.get("path"))
            if not start.path.is_dir():
                raise ToolError(f"{start.shown} is a file, not a directory")
            files = visible_files(start.root, start.path, stop=stop)
            hits = [
                start.prefix + f
                for f in files
                if matcher.fullmatch(_relative_to_start(f, start.in_root))
            ]
            # Paged here: fitting the budget counts tokens, which must not block the UI.
            page, text = page_text(hits[skip:], skip, ctx.budget, note, total=len(hits))
            return hits, start.shown, page, text

        hits, start_rel, page, text = await _in_thread(work)
        if not hits:
            hint = ""
            if "/" not in pattern:
                hint = f" (it only matches files directly in {start_rel}; try **/{pattern})"
            return ToolOutput(f"no files match {pattern!r} in {start_rel}{hint}", meta={"count": 0})
        meta = {"count": len(hits), "shown": len(page.lines), "truncated": not page.complete}
        return ToolOutput(text, meta=meta)


@dataclass
class _GrepReport:
    """What a grep scan found: every match counted, only the page asked for kept as text."""

    skip: int  # matches before the page (the `offset` asked for)
    room_chars: int  # characters of kept lines past which matches are only counted
    lines: list[str] = field(default_factory=list)
    kept_chars: int = 0
    matches: int = 0
    files_matched: int = 0
    capped: bool = False
    skipped_large: int = 0
    denied: int = 0  # files a deny rule refuses reading (ToolContext.unreadable)
    cut_lines: int = 0  # lines longer than MAX_SCAN_LINE_BYTES, searched in their first part
    too_slow: str | None = None  # why the scan stopped early: the pattern ran out of time
    page: Page | None = None  # the page shown, once fitted

    def add(self, line: str) -> None:
        self.matches += 1
        if self.matches > self.skip and self.kept_chars <= self.room_chars:
            self.lines.append(line)
            self.kept_chars += len(line) + 1
        if self.matches >= MAX_COUNTED_MATCHES:
            self.capped = True


@dataclass(frozen=True)
class _LineSearch:
    """The pattern of one grep call, its time budget, and whether it runs line by line."""

    pattern: Pattern
    deadline: Deadline
    per_line: bool


def _shown_line(text: str, start: int) -> str:
    """The matching line, cut around the match (at `start`) when too long."""
    text = text.rstrip()
    if len(text) <= MAX_SHOWN_LINE_CHARS:
        return text
    begin = max(0, min(start - CONTEXT_BEFORE_MATCH, len(text) - MAX_SHOWN_LINE_CHARS))
    end = begin + MAX_SHOWN_LINE_CHARS
    return ("…" if begin else "") + text[begin:end] + ("…" if end < len(text) else "")


def _decoded_lines(stream: BinaryIO, head: bytes, report: _GrepReport) -> Iterator[str]:
    """The file's lines as text: UTF-16 and UTF-32 by their byte-order mark, else UTF-8;
    a line longer than MAX_SCAN_LINE_BYTES is searched in its first part and counted."""
    encoding = wide_encoding(head)
    if encoding is not None:
        for text, _ in wide_lines(stream, encoding, MAX_GREP_FILE_BYTES):
            yield text
        return
    for raw, cut in iter_lines(stream, MAX_SCAN_LINE_BYTES):
        report.cut_lines += cut
        yield decode_line(raw, cut)[0]


def _grep_file(
    workspace: Path, path: Path, rel: str, search: _LineSearch, report: _GrepReport
) -> bool:
    """Append the matches of one file; False when it was skipped (binary, or no longer a
    regular file). The descriptor must be inside the workspace: a file or directory swapped
    for a symlink leading out after the listing raises ToolError instead of being read.
    Raises PatternTooSlow when the search's time budget runs out."""
    fd = open_in_workspace(workspace, path, os.O_RDONLY | os.O_NONBLOCK, rel, follow_symlinks=True)
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return False
        head = stream.read(BINARY_SNIFF_BYTES)
        if wide_encoding(head) is None and looks_binary(head):
            return False
        stream.seek(0)
        matched = False
        lines = _decoded_lines(stream, head, report)
        first = 1
        while block := list(itertools.islice(lines, BLOCK_LINES)):
            for index, start in matching_lines(
                search.pattern, block, search.deadline, per_line=search.per_line
            ):
                matched = True
                report.add(f"{rel}:{first + index}: {_shown_line(block[index], start)}")
                if report.capped:
                    break
            if report.capped:
                break
            first += len(block)
        report.files_matched += matched
    return True


def _scan_notes(report: _GrepReport) -> list[str]:
    """What the scan left out, one bracketed line each: nothing is skipped silently."""
    notes = []
    if report.skipped_large:
        notes.append(f"[skipped {report.skipped_large} files over {MAX_GREP_FILE_BYTES} bytes]")
    if report.denied:
        notes.append(f"[{report.denied} files not searched: a deny rule refuses reading them]")
    if report.cut_lines:
        notes.append(
            f"[{report.cut_lines} lines longer than {MAX_SCAN_LINE_BYTES // 1024 // 1024} MiB "
            "were searched only in their first MiB; read_file shows the rest]"
        )
    if report.too_slow:
        notes.append(f"[search stopped early: {report.too_slow}]")
    return notes


# The JSON schema of grep's arguments (module-level: class bodies should not hold mutable
# literals).
_GREP_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Python regular expression (re syntax)."},
        "path": {"type": "string", "description": "File or directory (default: the root)."},
        "glob": {
            "type": "string",
            "description": 'Only files matching this glob: "*.py" (any depth), "src/**/*.ts".',
        },
        "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "Matches to skip (the next page).",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class GrepTool(Tool):
    """Search file contents for a regular expression."""

    name = "grep"
    read_only = True
    description = (
        "Search file contents with a Python regex, line by line: `path:line: text` per match. "
        "Skips .git, gitignored and binary files; `glob` filters files (e.g. '*.py')."
    )
    parameters = _GREP_PARAMETERS
    main_argument = "pattern"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        pattern: str = args["pattern"]
        ignore_case = bool(args.get("case_insensitive", False))
        try:
            regex = compile_pattern(pattern, ignore_case=ignore_case, multiline=True)
        except ValueError as exc:
            raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from exc
        file_glob: str | None = args.get("glob")
        try:
            glob_matcher = compile_glob(file_glob, braces=True) if file_glob else None
        except ValueError as exc:
            raise ToolError(f"glob {file_glob!r}: {exc}") from None
        on_name = file_glob is not None and "/" not in file_glob

        def wanted(name: str, start_rel: str) -> bool:
            if glob_matcher is None:
                return True
            subject = name.rsplit("/", 1)[-1] if on_name else _relative_to_start(name, start_rel)
            return glob_matcher.fullmatch(subject)

        again = repeat_call(self.name, args)

        def work(stop: threading.Event) -> tuple[_GrepReport, str, str]:
            start = _search_root(ctx, args.get("path"))
            start_rel = start.shown
            report = _GrepReport(
                skip=int(args.get("offset", 0)), room_chars=ctx.budget.gather_chars
            )
            searched_any = False
            search = _LineSearch(regex, Deadline(), matches_per_line(pattern))
            for name in visible_files(start.root, start.path, stop=stop):
                if stop.is_set() or report.capped:
                    break
                if not wanted(name, start.in_root):
                    continue
                if ctx.unreadable is not None and ctx.unreadable(str(start.root / name)):
                    report.denied += 1
                    continue
                path = start.root / name
                try:
                    if path.stat().st_size > MAX_GREP_FILE_BYTES:
                        report.skipped_large += 1
                        continue
                    searched_any |= _grep_file(
                        start.root, path, start.prefix + name, search, report
                    )
                except PatternTooSlow as exc:
                    report.too_slow = str(exc)
                    break
                except (OSError, ToolError):
                    continue
            if report.too_slow and not report.matches:
                raise ToolError(report.too_slow)
            if start.path.is_file() and not (searched_any or report.skipped_large or report.denied):
                raise ToolError(f"{start_rel} looks like a binary file (NUL bytes); not searched")
            if not report.matches:
                return report, start_rel, ""
            skipped = "\n".join(_scan_notes(report))
            files = f"{report.files_matched:,} file{'s' if report.files_matched != 1 else ''}"
            narrow = f"narrow the pattern, path or glob (the matches are in {files})"

            def note(page: Page) -> str:
                return page_note(page, "matches", ctx.budget, again, narrow)

            # Paged here: fitting the budget counts tokens, which must not block the UI.
            room = ctx.budget.minus(ctx.budget.count(skipped) + 1) if skipped else ctx.budget
            page, text = page_text(
                report.lines,
                report.skip,
                room,
                note,
                total=report.matches,
                exact=not report.capped,
            )
            report.page = page
            return report, start_rel, "\n".join(filter(None, [text, skipped]))

        report, start_rel, text = await _in_thread(work)
        if not report.matches:
            where = start_rel + (f" (files matching {file_glob!r})" if file_glob else "")
            text = f"no matches for {pattern!r} in {where}; gitignored and binary files are skipped"
            text = "\n".join([text, *_scan_notes(report)])
            return ToolOutput(text, meta={"matches": 0, "files": 0})
        page = report.page
        assert page is not None
        meta = {
            "matches": report.matches,
            "files": report.files_matched,
            "shown": len(page.lines),
            "truncated": not page.complete,
        }
        return ToolOutput(text, meta=meta)
