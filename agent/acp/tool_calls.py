"""A pleat tool call as ACP shows it: its kind, title, locations, and an edit as a diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
)

from agent.terminal_text import visible

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
Content = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

# What each of pleat's tools is, in ACP's words (an editor picks the icon and the grouping by
# it). A tool not named here (an MCP server's, a plugin's) is "other".
KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "read_archive": "read",
    "command_output": "read",
    "grep": "search",
    "glob": "search",
    "edit_file": "edit",
    "write_file": "edit",
    "run_command": "execute",
    "command_stop": "execute",
    "web_fetch": "fetch",
    "web_search": "fetch",
    "todo_write": "think",
    "exit_plan_mode": "switch_mode",
}
# Characters of a tool's result sent to the editor: the model's own copy is already within its
# budget; the editor's view needs no more than a screenful or two of it.
MAX_SHOWN_CHARS = 20_000


def kind_of(tool: str) -> ToolKind:
    return KINDS.get(tool, "other")


def locations(workspace: Path, args: dict[str, Any]) -> list[ToolCallLocation] | None:
    """The file a call reads or writes, absolute (where the editor can open it), at its line."""
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return None
    full = Path(path) if Path(path).is_absolute() else workspace / path
    offset = args.get("offset")
    line = offset if isinstance(offset, int) and offset > 0 else None
    return [ToolCallLocation(path=str(full), line=line)]


def edit_diff(workspace: Path, tool: str, args: dict[str, Any]) -> list[Content] | None:
    """An edit as ACP's diff (what the editor reviews): edit_file's replaced text and its
    replacement, write_file's whole new content; None for any other call."""
    path = args.get("path")
    if not isinstance(path, str) or tool not in ("edit_file", "write_file"):
        return None
    full = str(Path(path) if Path(path).is_absolute() else workspace / path)
    if tool == "edit_file":
        old, new = args.get("old_string"), args.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        return [FileEditToolCallContent(type="diff", path=full, old_text=old, new_text=new)]
    content = args.get("content")
    if not isinstance(content, str):
        return None
    return [FileEditToolCallContent(type="diff", path=full, old_text=None, new_text=content)]


def text_content(text: str) -> list[Content]:
    """A tool's result (or a fold's line) as the call's content, every character visible and
    bounded."""
    shown = visible(text)
    if len(shown) > MAX_SHOWN_CHARS:
        cut = len(shown) - MAX_SHOWN_CHARS
        shown = f"{shown[:MAX_SHOWN_CHARS]}\n[{cut} more characters: the model has them]"
    return [
        ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=shown))
    ]
