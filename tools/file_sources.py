"""Where write_file and edit_file find a file's current bytes and put its new ones: the disk, or
the editor a front end lent (tools/editor_files.py), never both."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

from tools.base import ToolContext, ToolError
from tools.editor_files import editor_reason
from tools.file_changes import (
    MAX_EDIT_BYTES,
    atomic_write,
    decode_lossless,
    encode_lossless,
    load_existing,
)
from tools.paths import display_path, resolve_in_roots

Planned = TypeVar("Planned")


class Target(NamedTuple):
    """A file a tool will change, its path confined already."""

    path: Path  # absolute, resolved
    root: Path  # the workspace or the added directory it lies in (tools/paths.py root_of)
    rel: str  # as messages show it (tools/paths.py display_path)


def resolve_target(ctx: ToolContext, raw: str) -> Target:
    """The path `raw` names, confined to the workspace and the added directories (ToolError
    otherwise): checked before the disk or the editor is asked anything."""
    path, root = resolve_in_roots(ctx.workspace, raw, ctx.extra_roots)
    return Target(path, root, display_path(ctx.workspace, path))


async def planned(
    ctx: ToolContext, raw: str, plan: Callable[[Target, bytes | None], Planned]
) -> Planned:
    """`plan` of the file `raw` names and its current bytes (None: no such file), read from the
    editor when there is one, else from the disk; the path checks and the planning (a diff of
    up to MAX_EDIT_BYTES) run off the event loop."""
    target = await asyncio.to_thread(resolve_target, ctx, raw)
    current = await load_current(ctx, target)
    return await asyncio.to_thread(plan, target, current)


async def load_current(ctx: ToolContext, target: Target) -> bytes | None:
    """The file's bytes now (None: it does not exist), bounded like a file on disk: the
    editor's text (an unsaved buffer's) when there is an editor, else the disk's."""
    if ctx.editor is None:
        return await asyncio.to_thread(load_existing, target.root, target.path, target.rel)
    try:
        text = await ctx.editor.read_text(target.path)
    except OSError as exc:
        raise ToolError(f"cannot read {target.rel} in the editor: {editor_reason(exc)}") from exc
    if text is None:
        return None
    too_large = f"{target.rel} is over the {MAX_EDIT_BYTES}-byte limit for edits"
    if len(text) > MAX_EDIT_BYTES:  # a character is at least a byte: refused before encoding
        raise ToolError(too_large)
    try:
        data = encode_lossless(text)
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"the editor's text of {target.rel} is not valid Unicode ({exc.reason}); refused"
        ) from exc
    if len(data) > MAX_EDIT_BYTES:
        raise ToolError(too_large)
    return data


async def store(ctx: ToolContext, target: Target, data: bytes) -> None:
    """Give the file `data`: through the editor when there is one (its review sees it; the disk
    is the editor's to save), else atomically on disk."""
    if ctx.editor is None:
        await asyncio.to_thread(atomic_write, target.root, target.path, target.rel, data)
        return
    try:
        await ctx.editor.write_text(target.path, decode_lossless(data))
    except OSError as exc:
        raise ToolError(f"cannot write {target.rel} in the editor: {editor_reason(exc)}") from exc
