"""The write_file tool: create or overwrite a whole file, atomically, with a diff to approve."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.file_changes import (
    atomic_write,
    decode_lossless,
    line_count,
    load_existing,
    unified_diff,
)
from tools.paths import display_path, resolve_in_roots
from tools.result_facts import ResultFacts

# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path, relative to the workspace."},
        "content": {"type": "string", "description": "The complete new content of the file."},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class _Plan:
    """A write worked out but not yet done: where, what was there, and the diff."""

    path: Path
    root: Path  # the workspace or the added directory it lies in (tools/paths.py root_of)
    rel: str
    existed: bool
    data: bytes
    diff: str


def _plan(ctx: ToolContext, args: dict[str, Any]) -> _Plan:
    """Resolve the path, load what is there now and diff it against the new content."""
    path, root = resolve_in_roots(ctx.workspace, args["path"], ctx.extra_roots)
    rel = display_path(ctx.workspace, path)
    old = load_existing(root, path, rel)
    content: str = args["content"]
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"content is not valid Unicode text ({exc.reason}); not written") from exc
    old_text = None if old is None else decode_lossless(old)
    return _Plan(path, root, rel, old is not None, data, unified_diff(rel, old_text, content))


class WriteFileTool(Tool):
    """Write a whole file; parent directories are created inside the workspace."""

    name = "write_file"
    description = (
        "Create a file, or overwrite one completely, with `content` (UTF-8). Parent "
        "directories are created. To change part of an existing file, prefer edit_file."
    )
    parameters = _PARAMETERS
    edits_files = True
    main_argument = "path"
    main_argument_kind = "path"
    read_only = False

    def writes(self, args: dict[str, Any]) -> tuple[str, ...]:
        return (str(args.get("path", "")),)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        try:
            plan = await asyncio.to_thread(_plan, ctx, args)
        except ToolError as exc:
            return f"{self.describe_call(args)}\n(this call will fail: {exc})"
        return plan.diff or f"(no change to {plan.rel})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        def work() -> _Plan:
            plan = _plan(ctx, args)
            atomic_write(plan.root, plan.path, plan.rel, plan.data)
            return plan

        plan = await asyncio.to_thread(work)
        verb = "overwrote" if plan.existed else "created"
        lines = line_count(args["content"])
        text = f"{verb} {plan.rel} ({lines} lines, {len(plan.data)} bytes)"
        if plan.existed and not plan.diff:
            text += "; the content was already identical"
        meta = {"diff": plan.diff, "path": plan.rel, "created": not plan.existed}
        return ToolOutput(text, meta=meta, facts=ResultFacts(files_written=(plan.rel,)))
