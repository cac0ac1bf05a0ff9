"""/export: the conversation as markdown, folded parts read back from the archive and marked.

The live history holds a summary where older turns were folded; their words are in the session's
chunks (sessions/archive.py), verbatim. The export puts each chunk's messages first, in chunk
order, under a heading saying they were folded, then the live conversation (its summary
messages, which are pleat's own text, left out). A tool result the cheap tier shrank is written
as its archived original. Every text goes through `visible`: a file a person may `cat` holds no
escape sequence.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent.terminal_text import visible
from sessions.archive import ChunkArchive
from sessions.messages import Message, is_summary, typed_text

# Characters of one tool result written: an export is for reading; a 100 KB command output is in
# the session's kept outputs, not in the transcript.
MAX_RESULT_CHARS = 4_000
# Characters of the first prompt in the default file name (as Claude Code's export names its
# file after the date and the first prompt).
NAME_PROMPT_CHARS = 40
# Opening the export file: create it, never over an existing one, never through a symlink.
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# The export file's mode: the user's own, as any file they save (the umask applies).
FILE_MODE = 0o644
# Headings of each role's messages.
ROLE_HEADINGS = {"user": "User", "assistant": "Assistant", "tool": "Tool result"}


class ExportRefused(Exception):
    """The file cannot be written: one line saying why."""


@dataclass(frozen=True)
class Exported:
    """What /export wrote: where, and how many messages (of them folded)."""

    path: Path
    messages: int
    folded: int

    def line(self) -> str:
        folded = f", {self.folded} of them folded (from the archive)" if self.folded else ""
        return f"exported {self.messages} messages to {self.path}{folded}"


def default_name(history: Iterable[Message], when: float) -> str:
    """YYYY-MM-DD-HHMMSS-first-words-of-the-first-prompt.md (just the time when none)."""
    first = next((typed_text(m) for m in history if _is_request(m)), "")
    slug = re.sub(r"[^a-z0-9]+", "-", first.lower())[:NAME_PROMPT_CHARS].strip("-")
    stamp = time.strftime("%Y-%m-%d-%H%M%S", time.localtime(when))
    return f"{stamp}-{slug}.md" if slug else f"{stamp}.md"


def _is_request(message: Message) -> bool:
    return message.role == "user" and not message.meta.get("injected")


def _fenced(text: str) -> str:
    """`text` in a code fence longer than any run of backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _message_markdown(message: Message, folded: bool) -> str:
    """One message: a heading (marked folded), its text, its tool calls."""
    mark = " (folded)" if folded else ""
    text = typed_text(message) if message.role == "user" else message.content or ""
    if message.role == "tool":
        heading = f"### Tool result: {message.name or 'tool'}{mark}"
        cut = len(text) - MAX_RESULT_CHARS
        shown = text[:MAX_RESULT_CHARS] + (f"\n… ({cut:,} more characters)" if cut > 0 else "")
        return f"{heading}\n\n{_fenced(shown)}"
    parts = [f"### {ROLE_HEADINGS.get(message.role, message.role)}{mark}"]
    if text.strip():
        parts.append(text.strip())
    parts += [
        f"Tool call: `{call.name}`\n\n{_fenced(call.arguments)}" for call in message.tool_calls
    ]
    return "\n\n".join(parts)


def _shown(message: Message) -> bool:
    """A message the export writes: not the system prompt, not pleat's summaries and notes."""
    return message.role != "system" and not is_summary(message) and not message.meta.get("injected")


@dataclass(frozen=True)
class Rendered:
    """The conversation as markdown, the messages it holds (of them folded), in order."""

    text: str
    messages: list[Message]
    folded: int


def conversation_markdown(
    session_id: str, workspace: Path, history: list[Message], archive: ChunkArchive
) -> Rendered:
    """The markdown of the conversation; an unreadable chunk is said, not fatal."""
    sections = [
        f"# pleat session {session_id}",
        f"Workspace `{workspace}`, exported {time.strftime('%Y-%m-%d %H:%M')}. "
        "Parts marked *folded* were folded out of the live context; their text comes from the "
        "session's archive.",
    ]
    written: dict[str, Message] = {}
    originals: dict[str, Message] = {}
    folded_count = 0
    for info in archive.chunks():
        try:
            folded, shrunk = archive.read_parts(info.number)
        except (OSError, ValueError) as error:
            sections.append(f"## Folded into chunk {info.number}: unreadable ({error})")
            continue
        originals.update((m.id, m) for m in shrunk)
        kept = [m for m in folded if _shown(m) and m.id not in written]
        if not kept:
            continue
        sections.append(f"## Folded into chunk {info.number} · {info.topics}")
        for message in kept:
            sections.append(_message_markdown(originals.get(message.id, message), folded=True))
            written[message.id] = message
        folded_count += len(kept)
        sections.append(f"*(end of folded chunk {info.number})*")
    live = [m for m in history if _shown(m) and m.id not in written]
    if folded_count and live:
        sections.append("## In the live context")
    sections += [_message_markdown(originals.get(m.id, m), folded=False) for m in live]
    # The configured key never reaches a file pleat writes: the journal and the archive hold
    # it redacted, the live history does not (found by review).
    text = archive.secrets.text(visible("\n\n".join(sections) + "\n"))
    return Rendered(text, [*written.values(), *live], folded_count)


def write_export(path: Path, text: str) -> None:
    """Write `text` to a new file at `path`. Raises ExportRefused when it exists or cannot be
    written (never overwrites: the user names another file)."""
    try:
        fd = os.open(path, CREATE_FLAGS, FILE_MODE)
    except FileExistsError:
        raise ExportRefused(f"{path} exists: give another file name (/export FILE)") from None
    except OSError as error:
        raise ExportRefused(f"cannot write {path}: {error.strerror or error}") from None
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as stream:
        stream.write(text)


def export_conversation(
    session_id: str,
    workspace: Path,
    history: list[Message],
    archive: ChunkArchive,
    file_name: str = "",
) -> Exported:
    """Write the conversation to `file_name` (relative to the workspace; default: a dated name
    after the first prompt). Blocking: call it in a thread. Raises ExportRefused."""
    rendered = conversation_markdown(session_id, workspace, history, archive)
    name = file_name.strip() or default_name(rendered.messages, time.time())
    path = workspace / Path(name).expanduser()
    write_export(path, rendered.text)
    return Exported(path, len(rendered.messages), rendered.folded)
