"""Parse the model's answer to the compression instruction: topics, continues_previous, summary."""

from __future__ import annotations

import re
from dataclasses import dataclass


class ReplyError(ValueError):
    """The reply cannot be used as a summary (no summary, or an empty one)."""


@dataclass(frozen=True)
class CompressionReply:
    topics: str
    continues_previous: bool
    summary: str


def _tag(name: str, text: str) -> str | None:
    """The content of the last complete <name>...</name> (case-insensitive), else None."""
    found = re.findall(rf"<{name}\s*>(.*?)</{name}\s*>", text, re.IGNORECASE | re.DOTALL)
    return found[-1].strip() if found else None


def parse_reply(text: str) -> CompressionReply:
    """Accept the tags in any order; a missing <continues_previous> means false; a summary
    whose closing tag was cut off (the reply hit its token limit) is taken up to the end;
    a reply without a non-empty summary is refused."""
    summary = _tag("summary", text)
    if summary is None:
        opened = list(re.finditer(r"<summary\s*>", text, re.IGNORECASE))
        if opened:
            summary = text[opened[-1].end() :].strip()
    if not summary:
        raise ReplyError("the reply has no <summary>")
    topics = _tag("topics", text) or ""
    topics = " ".join(topics.split())[:200]  # one line in chunk indexes
    continues = (_tag("continues_previous", text) or "").strip().lower() == "true"
    return CompressionReply(topics=topics, continues_previous=continues, summary=summary)
