"""Attached images between the session and the provider: kept in the session when attached, sent
as OpenAI `image_url` parts with base64 data URLs when the model accepts images."""

from __future__ import annotations

import asyncio
import base64
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from sessions.image_ref import ImageRef
from sessions.image_store import ImageCopyError, SessionImages
from sessions.messages import ImageSource, Message, provider_messages
from tools.image_file import LoadedImage

# A message's attached images, as the agent takes them with a prompt.
Images = tuple[ImageRef, ...]

# Characters of encoded images kept in memory between requests. Every request re-sends the
# whole history, images included; re-reading and re-encoding them all on every call of a long
# session would cost a disk read per image per call. 64 MiB holds about a dozen images at the
# size limit, or hundreds of ordinary screenshots; past it the least recently sent is dropped
# (and read again if it is still in the history).
MAX_CACHED_CHARS = 64 * 1024 * 1024


def data_url(image: ImageRef, data: bytes) -> str:
    return f"data:{image.media_type};base64,{base64.b64encode(data).decode('ascii')}"


class Attachments:
    """One agent's images: `keep` copies one into the session (tools.base.ImageAttacher),
    `image_part` gives what the provider gets (sessions.messages.ImageSource), `refusal` says
    why images cannot be sent to the model, if they cannot."""

    def __init__(self, store: SessionImages | None, support: Callable[[], str | None]) -> None:
        self.store = store
        self._support = support  # agent.model.llm.LLM.image_support
        self._urls: OrderedDict[str, str] = OrderedDict()
        self._cached_chars = 0
        self._lock = threading.Lock()  # payloads are built in worker threads

    def refusal(self) -> str | None:
        if self.store is None:
            return "no session to keep images in"
        return self._support()

    def keep(self, image: LoadedImage) -> ImageRef:
        if self.store is None:
            raise OSError("no session to keep images in")
        info = image.info
        return self.store.keep(
            image.data,
            media_type=info.media_type,
            width=info.width,
            height=info.height,
            source=image.source,
        )

    def keep_all(self, images: Sequence[LoadedImage]) -> tuple[ImageRef, ...]:
        """Copy a prompt's images into the session (blocking: call it in a thread)."""
        return tuple(self.keep(image) for image in images)

    def image_part(self, image: ImageRef) -> dict[str, Any] | str:
        if (why := self.refusal()) is not None:
            return why
        try:
            url = self._data_url(image)
        except ImageCopyError as error:
            return str(error)
        return {"type": "image_url", "image_url": {"url": url}}

    def _data_url(self, image: ImageRef) -> str:
        with self._lock:
            url = self._urls.get(image.file)
            if url is not None:
                self._urls.move_to_end(image.file)
                return url
        assert self.store is not None
        url = data_url(image, self.store.read(image))
        with self._lock:
            if image.file not in self._urls:
                self._urls[image.file] = url
                self._cached_chars += len(url)
            while self._cached_chars > MAX_CACHED_CHARS and len(self._urls) > 1:
                _, dropped = self._urls.popitem(last=False)
                self._cached_chars -= len(dropped)
        return url


async def request_messages(
    history: Sequence[Message], images: ImageSource | None
) -> list[dict[str, Any]]:
    """The messages of a request (sessions.messages.provider_messages); built in a thread when
    some carry images, whose copies may have to be read from disk."""
    if any(message.images for message in history):
        return await asyncio.to_thread(provider_messages, list(history), images)
    return provider_messages(list(history), images)
