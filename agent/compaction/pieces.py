"""For a head too big for one window: cut folded messages into window-sized transcript pieces and
summarize them one after another, each carrying the running summary forward."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from agent.compaction.instruction import compression_instruction
from agent.compaction.reply import CompressionReply
from sessions.messages import Message

# A single message larger than a piece is shown by its start and end: the archive keeps it
# whole, and a summary needs its gist, not every line. Characters per token is the usual
# English/code average, used only to turn a token room into a character cut.
CHARS_PER_TOKEN = 4


def render_message(message: Message, max_chars: int | None = None) -> str:
    """One message as transcript text: `[m12 user]`, tool calls and results named."""
    label = f"[{message.id} {message.role}" + (f" {message.name}" if message.name else "") + "]"
    lines = [label]
    if message.content:
        text = message.content
        if max_chars is not None and len(text) > max_chars:
            half = max_chars // 2
            cut = len(text) - 2 * half
            note = f"[... {cut} characters cut here; the archive has them ...]"
            text = f"{text[:half]}\n{note}\n{text[-half:]}"
        lines.append(text)
    for call in message.tool_calls:
        lines.append(f"(calls {call.name} {call.arguments})")
    lines += [f"(image attached: {image.label()})" for image in message.images]
    return "\n".join(lines)


def render_transcript(messages: Sequence[Message], max_chars_per_message: int | None = None) -> str:
    return "\n\n".join(render_message(m, max_chars_per_message) for m in messages)


def split_into_pieces(
    messages: Sequence[Message], count: Callable[[Message], int], max_tokens: int
) -> list[list[Message]]:
    """Consecutive pieces of at most `max_tokens` each (a message over it forms its own piece
    and is cut when rendered)."""
    pieces: list[list[Message]] = [[]]
    size = 0
    for message in messages:
        tokens = count(message)
        if pieces[-1] and size + tokens > max_tokens:
            pieces.append([])
            size = 0
        pieces[-1].append(message)
        size += tokens
    return [p for p in pieces if p]


async def summarize_in_pieces(
    folded: Sequence[Message],
    system: Message,
    ask: Callable[[list[Message]], Awaitable[CompressionReply]],
    *,
    count: Callable[[Message], int],
    room: int,
    target: int,
    previous: str | None,
    focus: str | None,
    instructions: str = "",
) -> CompressionReply:
    """Summarize `folded` piece by piece (at most `room` tokens each), each piece a transcript
    in one request under `system`, starting from the `previous` summary; `instructions`: the
    user's for every summary. Raises what `ask` raises."""
    pieces = split_into_pieces(folded, count, room)
    running, topics, continues = previous, "", False
    for number, piece in enumerate(pieces, 1):
        text = compression_instruction(
            target_tokens=target, previous_summary=running, focus=focus, instructions=instructions
        )
        transcript = render_transcript(piece, max_chars_per_message=room * CHARS_PER_TOKEN)
        body = (
            f"[pleat: part {number} of {len(pieces)} of the conversation being folded, "
            f"as a transcript]\n\n{transcript}\n\n{text}"
        )
        request = [system, Message(role="user", content=body, meta={"injected": True})]
        reply = await ask(request)
        running, topics = reply.summary, reply.topics or topics
        continues = continues or (number == 1 and reply.continues_previous)
    assert running is not None
    return CompressionReply(topics, continues, running)
