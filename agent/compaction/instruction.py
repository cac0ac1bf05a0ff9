"""Step 4's message: the compression instruction appended to the live conversation."""

from __future__ import annotations

from collections.abc import Sequence

from sessions.archive import ChunkInfo
from sessions.messages import Message, is_summary

# The summary's sections: what a model needs to pick the work up again without the folded
# messages (the task, progress, state, next step, and the exact facts a summary tends to lose).
SUMMARY_SECTIONS = """\
## Task
The user's current request (verbatim when short) and the overall goal.
## Done
What has been completed, with outcomes.
## State
Files created or changed and how; test and build status; what is running or half-done.
## Next
The next steps you were about to take.
## Facts
Exact values to keep: file paths, commands, error messages, identifiers, decisions and why."""


def compression_instruction(
    *,
    target_tokens: int,
    previous_topics: str | None = None,
    previous_summary: str | None = None,
    focus: str | None = None,
    instructions: str = "",
) -> str:
    """The text of the instruction. It asks for <topics>, <continues_previous>, <summary>;
    `instructions` are the user's own for every summary ([compaction] instructions)."""
    parts = [
        "[pleat: context compaction. This message is from pleat, not from the user.]",
        "Pause the task for this one reply. The older part of the conversation above is about to "
        "be folded: it will be replaced by the summary you write now and archived word for word "
        "on disk, where you can search and read it later with the archive reader tool.",
        "Do not call any tool. Do not answer or continue the conversation. Reply with text "
        "only, in exactly this form:",
        "<topics>3 to 6 short topic phrases, comma-separated</topics>\n"
        "<continues_previous>true or false</continues_previous>\n"
        "<summary>\n...the summary...\n</summary>",
    ]
    if previous_topics:
        parts.append(
            "<continues_previous> is true only if the conversation above carries on the same "
            f"task as the previous archived chunk, whose topics were: {previous_topics}. "
            "Otherwise it is false."
        )
    else:
        parts.append("There is no previous archived chunk, so <continues_previous> is false.")
    if previous_summary:
        parts.append(
            "Start from the previous summary below and update it with the conversation since: "
            "keep what is still true, drop what is stale or superseded, add what is new.\n"
            f"<previous_summary>\n{previous_summary}\n</previous_summary>"
        )
    if instructions:
        parts.append(f"The user's instructions for every summary:\n{instructions}")
    if focus:
        parts.append(
            f"The user asked this compaction to focus on: {focus}\n"
            "Keep more detail about that; be briefer about the rest, but keep every constraint "
            "and open problem of the current task."
        )
    parts.append(
        f"Write the summary in about {target_tokens} tokens or less, with these sections:\n"
        f"{SUMMARY_SECTIONS}\n"
        "Keep exact paths, commands and error text. Never write secrets (API keys, tokens, "
        "passwords): write [REDACTED] instead. Write in the language the user writes in."
    )
    return "\n\n".join(parts)


def previous_summary(history: Sequence[Message]) -> str | None:
    """The summary of the summary message at the head of `history`, which the next one updates."""
    head = history[1] if len(history) > 1 and is_summary(history[1]) else None
    summary = head.meta.get("summary") if head is not None else None
    return summary if isinstance(summary, str) else None


def instruction_message(
    history: Sequence[Message],
    chunks: Sequence[ChunkInfo],
    *,
    target_tokens: int,
    focus: str | None,
    instructions: str,
) -> Message:
    """The instruction appended to `history` (its previous summary updated, the last chunk's
    topics passed), marked injected."""
    text = compression_instruction(
        target_tokens=target_tokens,
        previous_topics=chunks[-1].topics if chunks else None,
        previous_summary=previous_summary(history),
        focus=focus,
        instructions=instructions,
    )
    return Message(role="user", content=text, meta={"kind": "instruction", "injected": True})
