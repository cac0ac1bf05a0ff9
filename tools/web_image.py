"""An image web_fetch downloaded, attached for the model as read_file attaches one (when the model
accepts images), or refused with the reason in one line."""

from __future__ import annotations

from typing import Any

from tools.base import ToolContext, ToolOutput
from tools.image_file import (
    MAX_IMAGE_BYTES,
    ImageRefused,
    byte_size,
    format_name,
    image_from_bytes,
)
from tools.web_download import Page


def image_output(page: Page, ctx: ToolContext, meta: dict[str, Any]) -> ToolOutput:
    """The result of fetching an image (blocking: the session's copy is written here)."""
    where = str(page.address)
    if page.cut:
        return ToolOutput(
            f"{where} is an image of more than {byte_size(len(page.body))}, over what "
            f"providers accept ({byte_size(MAX_IMAGE_BYTES)}: Anthropic's 5 MiB once encoded); "
            "not shown",
            is_error=True,
            meta=meta,
        )
    try:
        image = image_from_bytes(page.body, where)
    except ImageRefused as error:
        return ToolOutput(f"{error}; not shown", is_error=True, meta=meta)
    if image is None:
        return ToolOutput(
            f"{where} is not a PNG, JPEG, GIF or WebP image (its bytes say so, whatever its "
            "Content-Type); not shown",
            is_error=True,
            meta=meta,
        )
    info = image.info
    what = f"{where} is a {format_name(info)} image ({info.width}×{info.height}, "
    what += f"{byte_size(len(image.data))})"
    meta = {**meta, "image": True, "width": info.width, "height": info.height}
    why = ctx.images.refusal() if ctx.images is not None else "no session to attach it to"
    if ctx.images is None or why is not None:
        return ToolOutput(f"{what}; not shown: {why}", is_error=True, meta=meta)
    try:
        attached = ctx.images.keep(image)
    except OSError as error:
        text = f"{what}; it could not be attached: {error.strerror or error}"
        return ToolOutput(text, is_error=True, meta=meta)
    text = f"{what}; it is attached for you to see in the message after the tool results"
    return ToolOutput(text, meta=meta, images=(attached,))
