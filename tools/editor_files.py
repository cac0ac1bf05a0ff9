"""The editor a front end may lend the file tools (ACP's fs/read_text_file and fs/write_text_file):
its unsaved buffers are what they read, and its review sees every edit they make.

With an editor in the tool context (tools/base.py ToolContext.editor), write_file and edit_file
read the current text and write the new one through it, never to the disk behind its back, and
read_file reads a text file's lines through it. Everything else stays on the disk: images and
binary files (a text API cannot carry them), grep, list_dir, run_command, a skill's own files
(outside the workspace: the editor is never asked about them), and the checkpoints /undo restores
(agent/turn/checkpoints.py: they see what the editor has saved).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

# Characters of an editor's error message kept in a tool's error line: the reason in one line,
# not a page of whatever the editor sent.
MAX_REASON_CHARS = 300


class EditorFileError(OSError):
    """The editor could not read or write a file; the message says why."""


class EditorFiles(Protocol):
    """Files as the editor holds them. Every path given is absolute and resolved, and was
    confined by the tools' checks first (tools/paths.py): it lies in the workspace or a
    directory the user added, never elsewhere."""

    async def read_text(self, path: Path) -> str | None:
        """The file's whole text as the editor has it (an unsaved buffer's included), or None
        when there is no such file. Raises OSError (EditorFileError) when it cannot be read."""
        ...

    async def write_text(self, path: Path, text: str) -> None:
        """Give the file this whole text (created when missing). Raises OSError
        (EditorFileError) when the editor refuses or fails."""
        ...


def editor_reason(error: OSError) -> str:
    """Why the editor failed, in one bounded line of printable characters (its message may be
    anything: control characters and escapes become spaces)."""
    said = "".join(c if c.isprintable() else " " for c in str(error.strerror or error))
    reason = " ".join(said.split()) or type(error).__name__
    if len(reason) > MAX_REASON_CHARS:
        reason = reason[:MAX_REASON_CHARS] + "..."
    return reason
