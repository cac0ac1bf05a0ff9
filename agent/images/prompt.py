"""Images named in a prompt, for the TUI and `pleat -p` alike: `@shot.png` (an image in the
workspace) or a pasted image path (a terminal pastes a file dragged onto it as its path: absolute,
maybe quoted, spaces escaped with backslashes, or a file:// URL).

The prompt's text is sent as typed; the images found are attached to it. An `@path` is confined
to the workspace like every tool path. A pasted path may lead anywhere (it is the user's own
input), but it is only ever read as an image: it must end in an image extension and hold an
image's bytes, else it is left as text. `@path` to a file that is not an image stays text too
(what the prompt always did with it).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import unquote

from agent.images.parts import Attachments, Images
from tools.base import ToolError
from tools.image_file import ImageRefused, LoadedImage, read_image, read_image_path
from tools.paths import display_path, open_in_workspace, resolve_in_workspace

# The extensions a pasted path must end in to be read at all (the bytes decide the format).
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp")
# Images attached from one prompt at most: Anthropic lowers its size limit to 2000 px a side
# for a request holding more than 20 images, so more would be refused there.
MAX_PROMPT_IMAGES = 20
# Characters of a path quoted back in a note: enough to recognise it.
MAX_SHOWN_CHARS = 120
# `@path`, `@"path with spaces"` or `@'path'`, at the start or after whitespace.
MENTION = re.compile(r"""(?<!\S)@(?:"([^"\n]+)"|'([^'\n]+)'|((?:\\.|\S)+))""")
# A pasted path: quoted, or bare with backslash-escaped characters; absolute, ~/ or file://.
PASTED = re.compile(
    r"""(?<!\S)(?:"((?:file://|~/|/)[^"\n]+)"|'((?:file://|~/|/)[^'\n]+)'"""
    r"""|((?:file://|~/|/)(?:\\.|\S)+))"""
)
# A backslash escape in a bare path (`Screen\ Shot.png`): the character after it, as it is.
ESCAPE = re.compile(r"\\(.)")
# Punctuation that ends a sentence after a path (`look at @a.png.`): tried off when the path
# with it does not exist.
TRAILING = ".,;:!?)]}>'\""


@dataclass
class PromptImages:
    """What a prompt attaches, and one line for each image named that could not be."""

    images: list[LoadedImage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Attached:
    """A prompt's images as kept in the session, and the one-line notes to show the user (what
    could not be attached, and whether the model will see them)."""

    images: Images = ()
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        """`attached image: shot.png 800×600` (plural with several), or ""."""
        if not self.images:
            return ""
        s = "s" if len(self.images) > 1 else ""
        return f"attached image{s}: " + ", ".join(image.label() for image in self.images)


async def attach_images(prompt: str, workspace: Path, attachments: Attachments) -> Attached:
    """Find the images a prompt names and copy them into the session, off the event loop."""
    found = await asyncio.to_thread(find_images, prompt, workspace)
    if not found.images:
        return Attached(notes=tuple(found.notes))
    notes = list(found.notes)
    try:
        images = await asyncio.to_thread(attachments.keep_all, found.images)
    except OSError as error:
        why = error.strerror or str(error)
        return Attached(notes=(*notes, f"the images could not be kept in the session: {why}"))
    refusal: str | None = await asyncio.to_thread(attachments.refusal)  # may import litellm
    if refusal is not None:
        notes.append(f"the model will not see the images: {refusal}")
    return Attached(images, tuple(notes))


def _shown(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[: MAX_SHOWN_CHARS - 1] + "…"


def _looks_like_image(text: str) -> bool:
    return text.lower().endswith(IMAGE_EXTENSIONS)


def _candidates(raw: str) -> list[str]:
    """The path as written, then with sentence punctuation taken off its end."""
    found = [raw]
    while raw and raw[-1] in TRAILING:
        raw = raw[:-1]
        found.append(raw)
    return [c for c in found if c]


def _in_workspace(raw: str, workspace: Path) -> LoadedImage | str | None:
    """The image an `@path` names (None: not an image, left as text; a str: why not)."""
    for candidate in _candidates(raw):
        try:
            path = resolve_in_workspace(workspace, candidate)
        except ToolError as error:
            return str(error) if _looks_like_image(candidate) else None
        if not path.exists():
            continue
        rel = display_path(workspace, path)
        try:
            fd = open_in_workspace(workspace, path, os.O_RDONLY | os.O_NONBLOCK, rel)
        except (ToolError, OSError) as error:
            return f"@{_shown(candidate)}: {getattr(error, 'strerror', None) or error}"
        try:
            return read_image(fd, rel)
        except OSError as error:
            return f"@{_shown(candidate)} cannot be read: {error.strerror or error}"
        finally:
            os.close(fd)
    if _looks_like_image(bare := raw.rstrip(TRAILING)):
        return f"@{_shown(bare)}: no such file in the workspace"
    return None


def _pasted_path(raw: str) -> Path:
    if raw.startswith("file://"):
        raw = unquote(raw.removeprefix("file://"))
        raw = raw[raw.index("/") :] if "/" in raw else raw  # file://host/path: the host goes
    return Path(os.path.expanduser(raw))


def _pasted(raw: str) -> LoadedImage | str | None:
    """The image a pasted path names (None: it does not name an image file; a str: why the
    image it names cannot be attached)."""
    for candidate in _candidates(raw):
        if not _looks_like_image(candidate):
            continue
        path = _pasted_path(candidate)
        try:
            image = read_image_path(path, str(path))
        except FileNotFoundError:
            continue
        except OSError as error:
            return f"{_shown(candidate)} cannot be read: {error.strerror or error}"
        if image is None:
            return f"{_shown(candidate)} is not a PNG, JPEG, GIF or WebP image file"
        return image
    if _looks_like_image(bare := raw.rstrip(TRAILING)):
        return f"{_shown(bare)}: no such file"
    return None


def find_images(prompt: str, workspace: Path) -> PromptImages:
    """The images a prompt names, in order, each once (blocking: it reads them)."""
    found: list[tuple[int, LoadedImage | str | None]] = []
    for match in MENTION.finditer(prompt):
        quoted = match.group(1) or match.group(2)
        raw = quoted if quoted is not None else ESCAPE.sub(r"\1", match.group(3))
        found.append((match.start(), _safely(partial(_in_workspace, raw, workspace))))
    for match in PASTED.finditer(prompt):
        quoted = match.group(1) or match.group(2)
        raw = quoted if quoted is not None else ESCAPE.sub(r"\1", match.group(3))
        found.append((match.start(), _safely(partial(_pasted, raw))))
    result = PromptImages()
    seen: set[bytes] = set()
    for _, item in sorted(found, key=lambda pair: pair[0]):
        if isinstance(item, str):
            result.notes.append(f"{item}; not attached")
        elif item is not None and item.data not in seen:
            if len(result.images) == MAX_PROMPT_IMAGES:
                result.notes.append(f"only the first {MAX_PROMPT_IMAGES} images are attached")
                break
            seen.add(item.data)
            result.images.append(item)
    return result


def _safely(read: Callable[[], LoadedImage | str | None]) -> LoadedImage | str | None:
    """Run one lookup; an image past the limits becomes its note."""
    try:
        return read()
    except ImageRefused as error:
        return str(error)
