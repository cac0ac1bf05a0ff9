"""An ACP prompt (text, images, embedded files, links) as pleat's request: its text, with each
embedded file's content in a tagged block, and its images kept in the session."""

from __future__ import annotations

import asyncio
import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse
from xml.sax.saxutils import quoteattr

from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from agent.images.parts import Images
from agent.terminal_text import visible
from tools.image_file import ImageRefused, LoadedImage, image_from_bytes

if TYPE_CHECKING:
    from agent.turn.loop import Agent

# Characters of one embedded file taken into the prompt: an editor may attach a whole file, and
# the request must still fit the window with room to work (about 25,000 tokens).
MAX_EMBEDDED_CHARS = 100_000


# Characters of a whole prompt (its text and embedded files together): about 50,000 tokens, a
# quarter of a large window; a longer one is refused whole, before anything reaches the session,
# rather than sent to a model whose window it would fill.
MAX_PROMPT_CHARS = 200_000


class PromptTooLong(ValueError):
    """The prompt is over MAX_PROMPT_CHARS; the message says by how much and what to do."""


@dataclass(frozen=True)
class Prompt:
    """What the request sends: its text, its images, and lines on what was left out."""

    text: str
    images: Images
    notes: tuple[str, ...]


def file_path(uri: str) -> str:
    """A file:// URI's path (what the model reads it by); any other URI as it is."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def embedded(uri: str, text: str) -> tuple[str, str | None]:
    """An embedded file's content as a tagged block, cut at the limit (with a note)."""
    note = None
    if len(text) > MAX_EMBEDDED_CHARS:
        note = f"{file_path(uri)}: only its first {MAX_EMBEDDED_CHARS} characters were sent"
        text = text[:MAX_EMBEDDED_CHARS]
    return f"\n<file path={quoteattr(visible(file_path(uri)))}>\n{text}\n</file>\n", note


async def prompt_from(blocks: list[Any], agent: Agent) -> Prompt:
    """The request's text and images (copied into the session); blocks pleat cannot take
    (audio, a binary resource) are named in a note instead of being dropped silently."""
    parts: list[str] = []
    notes: list[str] = []
    loaded: list[LoadedImage] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"@{file_path(block.uri)}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                text, note = embedded(resource.uri, resource.text)
                parts.append(text)
                notes.extend([note] if note else [])
            else:
                notes.append(f"{file_path(resource.uri)}: a binary attachment is not sent")
        elif isinstance(block, ImageContentBlock):
            try:
                data = base64.b64decode(block.data, validate=True)
                image = image_from_bytes(data, block.uri or "image")
            except (binascii.Error, ValueError, ImageRefused) as error:
                notes.append(f"an image was not attached: {error}")
                continue
            if image is None:
                notes.append("an image was not attached: not a PNG, JPEG, GIF or WebP image")
            else:
                loaded.append(image)
        else:
            notes.append(f"a {getattr(block, 'type', 'kind of')} block is not sent")
    size = sum(len(part) for part in parts)
    if size > MAX_PROMPT_CHARS:
        raise PromptTooLong(
            f"the prompt is {size:,} characters (its text and attached files), over the "
            f"{MAX_PROMPT_CHARS:,} pleat takes at once; attach fewer or smaller files, or name "
            "them and let the model read them"
        )
    images: Images = ()
    if loaded:
        why = await asyncio.to_thread(agent.attachments.refusal)  # may ask litellm's facts
        if why is not None:
            notes.append(f"images not attached: {why}")
        else:
            images = await asyncio.to_thread(agent.attachments.keep_all, loaded)
    return Prompt("".join(parts), images, tuple(notes))
