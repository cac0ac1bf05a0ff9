"""An MCP tool's result as a pleat tool output: its text, its images attached, resources described.

The output then goes through the registry's budget like every tool's (tools/output_guard.py): a
result bigger than the call's share of the window is cut, and its whole text kept for paging.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from sessions.image_ref import ImageRef
from tools.base import ToolContext, ToolOutput
from tools.image_file import MAX_IMAGE_BYTES, ImageRefused, byte_size, format_name, image_from_bytes

if TYPE_CHECKING:
    from mcp_types import CallToolResult

# Characters of a result kept in memory before the budget cuts it: the same 8 MiB as a command's
# output (tools/shell.py), far past any window, so only a runaway server loses anything here.
MAX_RESULT_CHARS = 8 * 1024 * 1024
# Base64 characters of one image decoded at most: base64 makes 4 characters of 3 bytes, so this
# is the largest image providers accept (tools/image_file.py), plus padding.
MAX_IMAGE_BASE64_CHARS = MAX_IMAGE_BYTES * 4 // 3 + 4
# Said when a result has nothing in it.
EMPTY = "(the tool returned no content)"


async def tool_output(result: CallToolResult, ctx: ToolContext, source: str) -> ToolOutput:
    """The output of one call (`source` names it in image labels, e.g. mcp__docs__shot)."""
    parts: list[str] = []
    images: list[ImageRef] = []
    for number, block in enumerate(result.content, 1):
        label = f"{source} image {number}"
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "image":
            parts.append(await _image(block.data, block.mime_type, label, ctx, images))
        elif block.type == "audio":
            size = byte_size(len(block.data) * 3 // 4)
            parts.append(f"[audio ({block.mime_type}, {size}): not shown, pleat passes no audio]")
        elif block.type == "resource":
            parts.append(await _resource(block.resource, label, ctx, images))
        elif block.type == "resource_link":
            about = f": {block.description}" if block.description else ""
            parts.append(f"[resource link {block.uri} ({block.name}){about}]")
    if not result.content and result.structured_content is not None:
        parts.append(_json(result.structured_content))
    text = "\n".join(parts) if parts else EMPTY
    if len(text) > MAX_RESULT_CHARS:
        dropped = len(text) - MAX_RESULT_CHARS
        text = f"{text[:MAX_RESULT_CHARS]}\n[... {dropped:,} characters of the result not kept]"
    return ToolOutput(text, is_error=result.is_error, images=tuple(images))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


async def _resource(resource: Any, label: str, ctx: ToolContext, images: list[ImageRef]) -> str:
    """An embedded resource: its text under its URI, an image attached, other bytes described."""
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return f"[resource {resource.uri}]\n{text}"
    mime = resource.mime_type or "application/octet-stream"
    blob: str = getattr(resource, "blob", "")
    if mime.startswith("image/"):
        return await _image(blob, mime, label, ctx, images)
    size = byte_size(len(blob) * 3 // 4)
    return f"[resource {resource.uri} ({mime}, {size} of binary data): not shown]"


async def _image(data: str, mime: str, label: str, ctx: ToolContext, images: list[ImageRef]) -> str:
    """One image of a result, attached for the model when it accepts images (its copy kept in
    the session, like read_file's), else a line saying what it was and why it is not shown."""
    if len(data) > MAX_IMAGE_BASE64_CHARS:
        size = byte_size(len(data) * 3 // 4)
        return f"[{label} ({mime}, {size}): not shown, over the {byte_size(MAX_IMAGE_BYTES)} limit]"
    try:
        raw = base64.b64decode(data, validate=True)
        image = image_from_bytes(raw, label)
    except (binascii.Error, ValueError):
        return f"[{label} ({mime}): not shown, its data is not valid base64]"
    except ImageRefused as error:
        return f"[{error}; not shown]"
    if image is None:
        return f"[{label} ({mime}, {byte_size(len(raw))}): not shown, not a PNG, JPEG, GIF or WebP]"
    what = f"{label}: {format_name(image.info)} {image.info.width}×{image.info.height}"
    why = ctx.images.refusal() if ctx.images is not None else "no session to attach it to"
    if ctx.images is None or why is not None:
        return f"[{what}; not shown: {why}]"
    try:
        images.append(await asyncio.to_thread(ctx.images.keep, image))
    except OSError as error:
        return f"[{what}; it could not be attached: {error.strerror or error}]"
    return f"[{what}, attached for you to see in the message after the tool results]"
