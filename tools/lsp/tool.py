"""The lsp tool: a language server's definition, references, hover and a file's symbols, at a
position given as path, line and column (1-based, like the other tools)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.file_changes import decode_lossless
from tools.file_sources import load_current, resolve_target
from tools.lsp.port import Question

# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operation": {
            "type": "string",
            "enum": ["definition", "references", "hover", "symbols"],
            "description": (
                "definition: where the name at the position is defined; references: where it "
                "is used; hover: its type and documentation; symbols: the file's outline."
            ),
        },
        "path": {"type": "string", "description": "File path, relative to the workspace."},
        "line": {"type": "integer", "minimum": 1, "description": "Line (1-based)."},
        "column": {
            "type": "integer",
            "minimum": 1,
            "description": "Column (1-based, in characters): any character of the name.",
        },
    },
    "required": ["operation", "path"],
    "additionalProperties": False,
}


# The tool's name: rules and the tool list name it (offered only where language servers are on).
LSP_TOOL_NAME = "lsp"


class LspTool(Tool):
    """Ask the language server of a file's language (read-only: it changes nothing)."""

    name = LSP_TOOL_NAME
    description = (
        "Ask the file's language server (started by pleat: pyright, pylsp, gopls, "
        "rust-analyzer, clangd, typescript-language-server...): `definition` or `references` "
        "of the name at line/column, `hover` (its type and docs), or `symbols` (the file's "
        "outline, no position needed). Answers are workspace-relative path:line:column."
    )
    parameters = _PARAMETERS
    read_only = True
    main_argument = "path"
    main_argument_kind = "path"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        question = cast(Question, args["operation"])
        line, column = int(args.get("line", 0)), int(args.get("column", 0))
        if question != "symbols" and (line < 1 or column < 1):
            raise ToolError(f"{question} needs a line and a column (1-based)")
        if ctx.language_servers is None:
            raise ToolError("language servers are off in this session ([lsp] in config.toml)")
        target = await asyncio.to_thread(resolve_target, ctx, args["path"])
        if ctx.unreadable is not None and ctx.unreadable(target.rel):
            raise ToolError(f"reading {target.rel} is denied by a permission rule")
        data = await load_current(ctx, target)
        if data is None:
            raise ToolError(f"file not found: {target.rel}")
        text = decode_lossless(data)
        if question != "symbols" and line > text.count("\n") + 1:
            lines = text.count("\n") + 1
            raise ToolError(f"{target.rel} has {lines} lines; line {line} is past its end")
        answer = await ctx.language_servers.answer(
            question, target.path, target.rel, text, max(line, 1), max(column, 1)
        )
        meta = {"path": target.rel, "operation": question}
        return ToolOutput(answer, meta=meta)
