"""The memory tool: the model keeps notes for this workspace across sessions (view, add, replace,
remove), in pleat's own file (sessions/memory_store.py), secrets redacted before any write."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sessions.memory_store import MAX_MEMORY_BYTES, MEMORY_FILE, MemoryRefused, WorkspaceMemory
from sessions.redact import REDACTED
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.call_summary import shown_arguments
from tools.file_changes import unified_diff
from tools.memory_text import kept_text

MEMORY_TOOL_NAME = "memory"
COMMANDS = ("view", "add", "replace", "remove")
# How an added line starts when the model gave it no Markdown of its own: a list item, so the
# file reads as a list of notes in an editor.
ITEM = "- "
# Starts of a line that already is Markdown structure (a list item or a heading): kept as given.
MARKDOWN_STARTS = ("- ", "* ", "#")
# What the model is told when a secret-looking value was left out of what it wrote.
REDACTED_NOTE = (
    f" (a secret-looking value was replaced with {REDACTED}: secrets are never kept in memory)"
)

# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "enum": list(COMMANDS)},
        "text": {"type": "string"},
        "old": {"type": "string"},
    },
    "required": ["command"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Your notes on this workspace, kept across sessions (each new session starts with them in "
    "its system prompt). Keep what the user would otherwise have to repeat: their corrections "
    "and stated preferences, and durable project facts you had to discover (how to build, test). "
    "Not the current task, not what the code or instruction files say, no secrets (redacted). "
    "One short fact a line; fix or remove a wrong note rather than contradict it. view: the "
    "lines, numbered; add: text; replace: old (exact text, found once) with text; remove: old "
    f"(its lines go). At most {MAX_MEMORY_BYTES:,} bytes."
)


class MemoryTool(Tool):
    """Reads and changes the workspace's memory file; never the workspace, never an instruction
    file (AGENTS.md, CLAUDE.md stay the user's)."""

    name = MEMORY_TOOL_NAME
    description = DESCRIPTION
    parameters = _PARAMETERS
    # It writes only pleat's own data file, never the user's files, and what it writes is
    # shown by /memory: it runs without asking, as Claude Code's auto memory does; a deny or
    # ask rule naming `memory` still holds (docs/PERMISSIONS.md).
    read_only = True

    def __init__(self, memory: WorkspaceMemory) -> None:
        self.memory = memory

    def keeps_notes(self, args: Mapping[str, Any]) -> bool:
        """Every command but view changes the notes."""
        return args.get("command") != "view"

    def describe_call(self, args: dict[str, Any]) -> str:
        """The call as lines show it, secrets redacted (they are never written either)."""
        shown = {
            key: kept_text(value) if isinstance(value, str) else value
            for key, value in args.items()
        }
        return f"{self.name}({shown_arguments(shown)})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        command = args["command"]
        try:
            if command == "view":
                return ToolOutput(await asyncio.to_thread(self._view))
            if command == "add":
                return await self._add(_given(args, "text"), ctx)
            if command == "replace":
                return await self._replace(_given(args, "old"), _given(args, "text"), ctx)
            return await self._remove(_given(args, "old"), ctx)
        except MemoryRefused as refused:
            raise ToolError(str(refused)) from None

    def _view(self) -> str:
        found = self.memory.read()
        if not found.text.strip():
            return "The memory is empty."
        lines = found.text.splitlines()
        numbered = "\n".join(f"{n:>4}  {line}" for n, line in enumerate(lines, 1))
        if found.cut:
            numbered += f"\n[... the file goes on past {len(found.text.encode()):,} bytes]"
        return numbered

    async def _add(self, text: str, ctx: ToolContext) -> ToolOutput:
        note = _clean(text, ctx).strip()
        entry = note if note.startswith(MARKDOWN_STARTS) or "\n" in note else ITEM + note

        def edit(current: str) -> str:
            if entry in current.splitlines():
                raise MemoryRefused(f"already in the memory: {entry}")
            return current + ("\n" if current and not current.endswith("\n") else "") + entry + "\n"

        change = await self._change(edit, ctx)
        line = change.new.count("\n") - entry.count("\n")
        said = f"Added to the memory (line {line}): {entry}"
        return change.output(said, _more_redacted(note, text))

    async def _replace(self, old: str, text: str, ctx: ToolContext) -> ToolOutput:
        new = _clean(text, ctx).strip()
        change = await self._change(
            lambda current: current.replace(_once(current, old), new, 1), ctx
        )
        return change.output(f"Replaced in the memory: {new}", _more_redacted(new, text))

    async def _remove(self, old: str, ctx: ToolContext) -> ToolOutput:
        removed: list[str] = []

        def edit(current: str) -> str:
            at = current.index(_once(current, old))
            start = current.rfind("\n", 0, at) + 1
            end = current.find("\n", at + len(old))
            end = len(current) if end < 0 else end + 1
            removed.append(current[start:end].rstrip("\n"))
            return current[:start] + current[end:]

        change = await self._change(edit, ctx)
        return change.output(f"Removed from the memory: {removed[0]}", False)

    async def _change(self, edit: Callable[[str], str], ctx: ToolContext) -> _Change:
        """`edit` applied under the memory's lock, then the whole text cleaned (a secret built
        over two calls is one only once joined: tools/memory_text.py)."""
        seen: list[str] = []

        def whole(current: str) -> str:
            edited = edit(current)
            seen[:] = [current, edited]
            return _clean(edited, ctx)

        new = await asyncio.to_thread(self.memory.change, whole)
        return _Change(seen[0], new, _more_redacted(new, seen[1]))


@dataclass(frozen=True)
class _Change:
    """One change of the memory: its text before and after, and whether cleaning the whole
    text left something out."""

    old: str
    new: str
    redacted: bool

    def output(self, said: str, note_redacted: bool) -> ToolOutput:
        """The tool's answer, with the change as a diff for the front ends (a memory write is
        shown as plainly as an edit: tui/widgets/tool_call.py opens a block with a diff)."""
        note = REDACTED_NOTE if note_redacted or self.redacted else ""
        return ToolOutput(said + note, meta={"diff": unified_diff(MEMORY_FILE, self.old, self.new)})


def memory_of(tool: Tool | None) -> WorkspaceMemory | None:
    """The memory a session's `memory` tool keeps (None: the auto memory is off)."""
    return tool.memory if isinstance(tool, MemoryTool) else None


def _given(args: dict[str, Any], key: str) -> str:
    """A text argument the command needs, not blank."""
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"memory {args['command']} needs `{key}`")
    return value


def _clean(text: str, ctx: ToolContext) -> str:
    """What is written of a text: secret-looking values and the session's known secrets (its
    API key) replaced with [REDACTED], control characters dropped."""
    known = ctx.outputs.redacted if ctx.outputs is not None else None
    return kept_text(text, known)


def _more_redacted(written: str, given: str) -> bool:
    """Whether a secret-looking value was left out of `given` in `written`."""
    return written.count(REDACTED) > given.count(REDACTED)


def _once(current: str, old: str) -> str:
    """`old`, when the memory holds it exactly once; else MemoryRefused saying why."""
    count = current.count(old)
    if count == 0:
        raise MemoryRefused("`old` is not in the memory (memory view shows it)")
    if count > 1:
        raise MemoryRefused(f"`old` is in the memory {count} times: quote more of its line")
    return old
