"""The write_file tool: create or overwrite a whole file, atomically (or through the editor a front
end lent: tools/editor_files.py), with a diff to approve."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.file_changes import decode_lossless, line_count, unified_diff
from tools.file_sources import Target, planned, store
from tools.lsp.port import diagnostics_note
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

    target: Target
    existed: bool
    data: bytes
    diff: str


def _plan(args: dict[str, Any], target: Target, old: bytes | None) -> _Plan:
    """The new content diffed against what is there now (`old`; None: nothing)."""
    content: str = args["content"]
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"content is not valid Unicode text ({exc.reason}); not written") from exc
    old_text = None if old is None else decode_lossless(old)
    diff = unified_diff(target.rel, old_text, content)
    return _Plan(target, old is not None, data, diff)


async def _planned(ctx: ToolContext, args: dict[str, Any]) -> _Plan:
    """The write of this call, against the file as the editor or the disk has it."""
    return await planned(ctx, args["path"], lambda target, old: _plan(args, target, old))


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
            plan = await _planned(ctx, args)
        except ToolError as exc:
            return f"{self.describe_call(args)}\n(this call will fail: {exc})"
        return plan.diff or f"(no change to {plan.target.rel})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        plan = await _planned(ctx, args)
        await store(ctx, plan.target, plan.data)
        rel = plan.target.rel
        verb = "overwrote" if plan.existed else "created"
        lines = line_count(args["content"])
        text = f"{verb} {rel} ({lines} lines, {len(plan.data)} bytes)"
        if plan.existed and not plan.diff:
            text += "; the content was already identical"
        text += await diagnostics_note(ctx.language_servers, plan.target.path, rel, plan.data)
        meta = {"diff": plan.diff, "path": rel, "created": not plan.existed}
        return ToolOutput(text, meta=meta, facts=ResultFacts(files_written=(rel,)))
