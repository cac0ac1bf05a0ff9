"""The list_dir tool: the sorted entries of one directory, directories marked with "/"."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.output_budget import Page, page_note, page_text, repeat_call
from tools.paths import display_path, open_in_workspace, resolve_in_roots

# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": 'Directory, relative to the workspace (default ".": the root).',
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "Entries to skip (the next page).",
        },
    },
    "required": [],
    "additionalProperties": False,
}


def _entries(workspace: Path, path: Path, rel: str) -> list[str]:
    """Every entry name, sorted, with "/" after directories (symlinks to directories too).
    The directory is opened without following a symlink swapped in since the check."""
    names: list[str] = []
    try:
        fd = open_in_workspace(workspace, path, os.O_RDONLY | os.O_DIRECTORY, rel)
        try:
            scan = os.scandir(fd)
        finally:
            os.close(fd)  # scandir works on its own duplicate of the descriptor
        with scan:
            for entry in scan:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                names.append(entry.name + "/" if is_dir else entry.name)
    except FileNotFoundError as exc:
        raise ToolError(f"directory not found: {rel}") from exc
    except NotADirectoryError as exc:
        raise ToolError(f"{rel} is a file, not a directory; use read_file to read it") from exc
    except PermissionError as exc:
        raise ToolError(f"cannot list {rel}: permission denied") from exc
    except OSError as exc:
        raise ToolError(f"cannot list {rel}: {exc.strerror or exc}") from exc
    return sorted(names)


class ListDirTool(Tool):
    """List one directory (not recursive)."""

    name = "list_dir"
    read_only = True
    description = (
        "List a directory's entries, sorted; directories end with '/'. Not recursive (glob "
        "searches a tree)."
    )
    parameters = _PARAMETERS
    main_argument = "path"
    main_argument_kind = "path"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        skip = int(args.get("offset", 0))
        again = repeat_call(self.name, args)

        def note(page: Page) -> str:
            return page_note(page, "entries", ctx.budget, again, "use glob with a pattern")

        def work() -> tuple[list[str], str, Page, str]:
            path, root = resolve_in_roots(ctx.workspace, args.get("path", "."), ctx.extra_roots)
            rel = display_path(ctx.workspace, path)
            names = _entries(root, path, rel)
            # Paged here: fitting the budget counts tokens, which must not block the UI.
            page, text = page_text(names[skip:], skip, ctx.budget, note, total=len(names))
            return names, rel, page, text

        names, rel, page, text = await asyncio.to_thread(work)
        if not names:
            return ToolOutput(f"({rel} is empty)", meta={"count": 0})
        meta = {"count": len(names), "shown": len(page.lines), "truncated": not page.complete}
        return ToolOutput(text, meta=meta)
