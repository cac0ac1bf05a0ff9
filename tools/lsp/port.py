"""What the file tools see of the language servers (tools/lsp/manager.py is the one there is): a
read notices a file's language, a write or an edit gets the file's diagnostics, the lsp tool its
answers. A Protocol, so tools/base.py needs nothing of the servers' machinery."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol

# The questions the lsp tool asks a server.
Question = Literal["definition", "references", "hover", "symbols"]


class LanguageServices(Protocol):
    """The session's language servers."""

    def noticed(self, path: Path) -> None:
        """The model read `path`: its language's server starts (in the background) if it is
        not running yet."""
        ...

    async def after_change(self, path: Path, rel: str, text: str) -> str:
        """`path` (shown as `rel`) now holds `text`: the lines telling its errors and warnings,
        a line saying its server is not available (once), or "" (no server for it)."""
        ...

    async def answer(
        self, question: Question, path: Path, rel: str, text: str, line: int, column: int
    ) -> str:
        """The server's answer to `question` at 1-based `line` and `column` of `path`, whose
        text is `text`. Raises ToolError (no server, or it could not answer)."""
        ...

    async def close(self) -> None:
        """Stop every server, waiting for their processes (the session ends)."""
        ...


async def diagnostics_note(
    services: LanguageServices | None, path: Path, rel: str, data: bytes
) -> str:
    """What follows a write's or an edit's result line: "\\n" and the server's report, or ""."""
    if services is None:
        return ""
    text = data.decode("utf-8", errors="surrogateescape")  # as edit_file decodes it
    said = await services.after_change(path, rel, text)
    return f"\n{said}" if said else ""
