"""The diagnostics a server publishes: kept per file as they arrive, waited for after a change,
and told to the model as a few bounded lines (errors, then warnings)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.lsp.positions import from_lsp_character, line_of

if TYPE_CHECKING:
    from lsprotocol.types import Diagnostic

# Diagnostics listed after an edit: the first errors are what the model must fix; a file with
# hundreds of style warnings must not fill its context (the count of the rest is said).
MAX_LISTED = 15
# Characters of one diagnostic's message: a type checker's longest explanations fit; a server's
# runaway text does not.
MAX_MESSAGE_CHARS = 300
# Characters of the whole report, whatever the messages: about 1,000 tokens at most.
MAX_REPORT_CHARS = 4000
# LSP's severities pleat reports (DiagnosticSeverity): errors and warnings; information and hints
# are left out, as an editor's problem list does by default. A diagnostic without a severity is
# taken as an error (the protocol leaves it to the client).
ERROR, WARNING = 1, 2
SEVERITY_WORDS = {ERROR: "error", WARNING: "warning"}


def flat(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Server text on one line (a message cannot fake more lines of the report), cut to `limit`."""
    words = " ".join(str(text).split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


@dataclass(frozen=True)
class Published:
    """One publishDiagnostics of a file: the document version it is about (when the server
    says), its diagnostics, and its place in the order of arrival."""

    version: int | None
    items: tuple[Diagnostic, ...]
    number: int


class DiagnosticsBoard:
    """The latest diagnostics of each file a server published, and a wait for new ones."""

    def __init__(self) -> None:
        self._latest: dict[str, Published] = {}
        self._count = 0
        self._arrived = asyncio.Event()

    @property
    def count(self) -> int:
        """How many publications arrived so far (a change notes it, then waits past it)."""
        return self._count

    def publish(self, uri: str, version: int | None, items: Sequence[Diagnostic]) -> None:
        """Keep a publication (the client's handler of textDocument/publishDiagnostics)."""
        self._count += 1
        self._latest[uri] = Published(version, tuple(items), self._count)
        arrived, self._arrived = self._arrived, asyncio.Event()
        arrived.set()

    def __len__(self) -> int:
        """How many files' diagnostics are kept."""
        return len(self._latest)

    def latest(self, uri: str) -> Published | None:
        return self._latest.get(uri)

    async def wait(self, uri: str, after: int, version: int, seconds: float) -> Published | None:
        """The first publication of `uri` after the `after`-th that is about `version` or later
        (or says no version), waiting at most `seconds`; None when none came in time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while True:
            found = self._latest.get(uri)
            if found and found.number > after and (found.version or version) >= version:
                return found
            left = deadline - loop.time()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                return None


def _line(item: Diagnostic, text: str, encoding: str) -> str:
    start = item.range.start
    column = from_lsp_character(line_of(text, start.line), start.character, encoding)
    word = SEVERITY_WORDS.get(int(item.severity or ERROR), "error")
    origin = " ".join(str(part) for part in (item.source, item.code) if part not in (None, ""))
    said = f" ({flat(origin, 60)})" if origin else ""
    return f"  line {start.line + 1}:{column} {word}: {flat(item.message)}{said}"


def report(server: str, rel: str, items: Sequence[Diagnostic], text: str, encoding: str) -> str:
    """What the model is told of a file's diagnostics after its edit: the errors, then the
    warnings, each by line, bounded; one line when there are none."""
    kept = [d for d in items if int(d.severity or ERROR) in SEVERITY_WORDS]
    kept.sort(key=lambda d: (int(d.severity or ERROR), d.range.start.line, d.range.start.character))
    errors = sum(1 for d in kept if int(d.severity or ERROR) == ERROR)
    warnings = len(kept) - errors
    if not kept:
        return f"{server}: no errors or warnings in {rel}"
    counts = " and ".join(
        f"{n} {word}{'s' if n != 1 else ''}"
        for n, word in ((errors, "error"), (warnings, "warning"))
        if n
    )
    lines = [f"{server} reports {counts} in {rel}:"]
    size = len(lines[0])
    for shown, item in enumerate(kept[:MAX_LISTED]):
        line = _line(item, text, encoding)
        if size + len(line) + 1 > MAX_REPORT_CHARS:
            lines.append(f"  … and {len(kept) - shown} more")
            return "\n".join(lines)
        lines.append(line)
        size += len(line) + 1
    if len(kept) > MAX_LISTED:
        lines.append(f"  … and {len(kept) - MAX_LISTED} more")
    return "\n".join(lines)
