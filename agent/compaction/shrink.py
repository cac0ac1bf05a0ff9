"""The last rung of the ladder: when a request cannot fit even after folding, shrink tool results.

Folding takes the older conversation out; what it cannot take is what the model must still see
(the kept tail, the newest results pulled back). When those alone overflow the window, the
largest tool results are archived verbatim (as shrunk originals of a chunk) and replaced by a
stub with a preview and the exact call that reads them back, so the turn goes on. A prompt's
attached images are dropped the same way (its words stay): an image can never push a request
past the window. Pure functions here; the engine writes the archive and the agent records the
new history.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent.compaction.tail import fold_start
from agent.images.tokens import image_tokens
from sessions.messages import Message, is_summary, unread_results
from tools.kept_output_reader import READER_TOOL_NAME

# Characters of a shrunk result's start kept in its stub, so the model still sees what it was
# (a few lines: enough to recognise a file or a log).
STUB_PREVIEW_CHARS = 300
# A result is worth shrinking only when its stub frees at least this many tokens; smaller ones
# would cost a read_archive call each for almost nothing.
MIN_TOKENS_FREED = 100


def _images_note(message: Message, chunk: int, why: str) -> str:
    """What stands for the images taken off a prompt: which, why, where the originals are."""
    names = ", ".join(image.label() for image in message.images)
    return (
        f"[pleat: the image{'s' if len(message.images) > 1 else ''} attached here ({names}) "
        f"{why}; archived in chunk {chunk} with message {message.id}]"
    )


def shrink_stub(message: Message, chunk: int, why: str) -> str:
    """What the model reads instead of a shrunk result: what it was, where it is, how to read it
    (in pages that fit, since read_archive follows the window)."""
    if message.role != "tool":  # a prompt with images: its words stay, the images go
        note = _images_note(message, chunk, why)
        return f"{message.content}\n\n{note}" if message.content else note
    text = message.content or ""
    preview = text[:STUB_PREVIEW_CHARS].rstrip()
    stub = (
        f"[pleat: this {message.name or 'tool'} output ({len(text):,} characters) {why}; its full "
        f"text is archived in chunk {chunk} as message {message.id}: read it with "
        f"{READER_TOOL_NAME} action=read id={message.id} (it comes in pages that fit). It "
        f"began:]\n{preview}\n[...]"
    )
    return f"{stub}\n{_images_note(message, chunk, why)}" if message.images else stub


@dataclass(frozen=True)
class ShrinkPlan:
    """Which tool results to shrink (indices into the history) to bring it under a size."""

    indices: tuple[int, ...]


def plan_shrink(
    history: Sequence[Message],
    count: Callable[[Message], int],
    excess: int,
    *,
    unread_too: bool = True,
) -> ShrinkPlan:
    """The tool results (and prompts' images) whose shrinking frees `excess` tokens. Those the
    model has already read (before its newest reply) go first, largest first, so the fewest
    stubs do; the newest, which it has not seen yet, only when those are not enough (else a
    re-read would be shrunk again, a loop). Never the system prompt or a summary, never one
    already shrunk. `unread_too` False leaves the newest alone whatever is left over (the
    ladder folds first, then shrinks those). When all of them together do not free enough, all
    are planned: the caller checks the fit."""
    start = fold_start(list(history))
    unread = unread_results(history)
    candidates = []
    last_reply = max((i for i, m in enumerate(history) if m.role == "assistant"), default=-1)
    for index in range(start, len(history)):
        message = history[index]
        prompt_images = message.role == "user" and message.images and not is_summary(message)
        if not (message.role == "tool" or prompt_images) or "shrunk_to_chunk" in message.meta:
            continue
        stub_cost = STUB_PREVIEW_CHARS // 2  # a stub's own size, roughly, in tokens
        gain = count(message) - stub_cost
        if message.role != "tool":  # only the images go
            gain = sum(image_tokens(i.width, i.height) for i in message.images) - stub_cost
        newest = message.id in unread or index > last_reply
        if gain >= MIN_TOKENS_FREED and (unread_too or not newest):
            candidates.append((newest, -gain, index))
    candidates.sort()
    chosen: list[int] = []
    freed = 0
    for _, negative_gain, index in candidates:
        if freed >= excess:
            break
        chosen.append(index)
        freed -= negative_gain
    return ShrinkPlan(tuple(sorted(chosen)))


def apply_shrink(
    history: Sequence[Message], plan: ShrinkPlan, chunk: int, why: str
) -> list[Message]:
    """The history with the planned results replaced by stubs. Ids stay: a stub's id is the id
    its original is archived under."""
    new_history = list(history)
    for index in plan.indices:
        message = history[index]
        meta = {**message.meta, "shrunk_to_chunk": chunk}
        stub = shrink_stub(message, chunk, why)
        new_history[index] = dataclasses.replace(message, content=stub, meta=meta, images=())
    return new_history
