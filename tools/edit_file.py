"""The edit_file tool: replace an exact string in a file (on disk, or in the editor a front end
lent: tools/editor_files.py), refusing ambiguous or missing matches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.file_changes import decode_lossless, encode_lossless, unified_diff
from tools.file_sources import Target, planned, store
from tools.lsp.port import diagnostics_note
from tools.result_facts import ResultFacts
from tools.text_io import BINARY_SNIFF_BYTES, looks_binary

# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path, relative to the workspace."},
        "old_string": {
            "type": "string",
            "description": "Exact text to replace, including whitespace and indentation.",
        },
        "new_string": {"type": "string", "description": "The replacement text."},
        "replace_all": {
            "type": "boolean",
            "description": "Replace every occurrence (default false: old_string must be unique).",
        },
    },
    "required": ["path", "old_string", "new_string"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Replacement:
    """The result of applying an edit to a text."""

    text: str
    count: int
    first_line: int


def apply_edit(text: str, old: str, new: str, replace_all: bool, rel: str) -> Replacement:
    """Replace `old` by `new` in `text`: exactly once, or everywhere with `replace_all`.

    A model usually writes "\\n" line endings; in a CRLF file such an `old` is retried with
    CRLF endings (and `new` converted alike) before giving up.
    """
    if not old:
        raise ToolError("old_string is empty; to create or overwrite a whole file use write_file")
    if old == new:
        raise ToolError("old_string and new_string are identical; nothing to change")
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\r" not in old and "\n" in old:
        crlf_old = old.replace("\n", "\r\n")
        if crlf_old in text:
            old, new = crlf_old, new.replace("\r\n", "\n").replace("\n", "\r\n")
            count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string not found in {rel}; it must match the file exactly, including "
            "whitespace and indentation (read_file to check the current text)"
        )
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {rel}; include more surrounding lines to make "
            "it unique, or set replace_all=true to replace every occurrence"
        )
    first_line = text.count("\n", 0, text.index(old)) + 1
    replaced = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    return Replacement(replaced, count if replace_all else 1, first_line)


@dataclass(frozen=True)
class _Plan:
    """An edit worked out but not yet written."""

    target: Target
    replacement: Replacement
    data: bytes
    diff: str


def _plan(args: dict[str, Any], target: Target, data: bytes | None) -> _Plan:
    """The edit applied in memory to the file's current bytes (`data`; None: no such file),
    and the diff of the result."""
    rel = target.rel
    if data is None:
        raise ToolError(f"file not found: {rel} (use write_file to create a new file)")
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(f"{rel} looks like a binary file (it has NUL bytes); not edited")
    text = decode_lossless(data)
    replacement = apply_edit(
        text, args["old_string"], args["new_string"], bool(args.get("replace_all", False)), rel
    )
    try:
        new_data = encode_lossless(replacement.text)
    except UnicodeEncodeError as exc:
        raise ToolError(f"new_string is not valid Unicode text ({exc.reason}); not edited") from exc
    return _Plan(target, replacement, new_data, unified_diff(rel, text, replacement.text))


async def _planned(ctx: ToolContext, args: dict[str, Any]) -> _Plan:
    """The edit of this call, applied to the file as the editor or the disk has it."""
    return await planned(ctx, args["path"], lambda target, data: _plan(args, target, data))


class EditFileTool(Tool):
    """Replace exact text in an existing file."""

    name = "edit_file"
    description = (
        "Edit a file by replacing `old_string` with `new_string` (exact match, whitespace "
        "included). old_string must occur exactly once unless replace_all is true; include "
        "enough surrounding lines to make it unique. Read the file first."
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
        return plan.diff

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        plan = await _planned(ctx, args)
        await store(ctx, plan.target, plan.data)
        rel = plan.target.rel
        count = plan.replacement.count
        where = f"line {plan.replacement.first_line}"
        text = (
            f"edited {rel}: replaced {count} occurrence{'s' if count != 1 else ''} "
            f"({'first at ' if count > 1 else 'at '}{where})"
        )
        text += await diagnostics_note(ctx.language_servers, plan.target.path, rel, plan.data)
        meta = {"diff": plan.diff, "path": rel}
        return ToolOutput(text, meta=meta, facts=ResultFacts(files_edited=(rel,)))
