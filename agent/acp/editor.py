"""The editor's files for the file tools (tools/editor_files.py) over ACP: fs/read_text_file and
fs/write_text_file, used when the client offers both, so reads see its unsaved buffers and every
edit goes through its review instead of to the disk behind its back (a client offering one of
them alone gets the disk for both: one source of truth for a file's text)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tools.editor_files import EditorFileError

if TYPE_CHECKING:
    from acp.interfaces import Client

# JSON-RPC's "resource not found" (ACP's code for a file the editor does not have).
NOT_FOUND = -32002
# Characters of an error's data kept in the tool's line (tools/editor_files.py bounds it again).
MAX_DATA_CHARS = 300


class ClientFiles:
    """tools.editor_files.EditorFiles over the client's fs methods."""

    def __init__(self, client: Client, session_id: Callable[[], str]) -> None:
        self.client = client
        self.session_id = session_id

    async def read_text(self, path: Path) -> str | None:
        from acp import RequestError

        try:
            answer = await self.client.read_text_file(session_id=self.session_id(), path=str(path))
        except RequestError as error:
            # An editor says "not found" its own way; a file the disk lacks too is missing.
            exists = await asyncio.to_thread(path.exists)
            if error.code == NOT_FOUND or not exists:
                return None
            raise EditorFileError(f"the editor could not read {path}: {said(error)}") from None
        except ConnectionError as error:
            raise EditorFileError(f"the editor is gone: {error}") from None
        return answer.content

    async def write_text(self, path: Path, text: str) -> None:
        from acp import RequestError

        try:
            await self.client.write_text_file(
                session_id=self.session_id(), path=str(path), content=text
            )
        except RequestError as error:
            raise EditorFileError(f"the editor did not write {path}: {said(error)}") from None
        except ConnectionError as error:
            raise EditorFileError(f"the editor is gone: {error}") from None


def said(error: Exception) -> str:
    """What the editor said of a failure: its message and, when it gave one, its data."""
    data = getattr(error, "data", None)
    return f"{error} ({json.dumps(data, default=str)[:MAX_DATA_CHARS]})" if data else str(error)
