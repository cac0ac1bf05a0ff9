"""Parse the model's answer to the compression instruction: topics, continues_previous, summary."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# The three tags the instruction asks for (agent/compaction/instruction.py).
TAG_NAMES = ("topics", "continues_previous", "summary")
# An opening or closing tag, any case, whitespace allowed before the ">".
_TAG = re.compile(r"<(/?)(" + "|".join(TAG_NAMES) + r")\s*>", re.IGNORECASE)
# Characters of topics kept: one line in chunk indexes.
MAX_TOPIC_CHARS = 200


class ReplyError(ValueError):
    """The reply cannot be used as a summary (no summary, or an empty one)."""


@dataclass(frozen=True)
class CompressionReply:
    topics: str
    continues_previous: bool
    summary: str


@dataclass(frozen=True)
class _Element:
    """One matched <name>...</name>: where it starts and ends, and its content's span."""

    name: str
    start: int
    inner_start: int
    inner_end: int
    end: int


def _scan(text: str) -> tuple[list[_Element], list[tuple[str, int]]]:
    """(top-level elements in order, openers never closed as (name, content start)).

    Tags are matched like brackets: a closing tag closes the nearest open tag of its name
    (tags opened inside it and never closed are dropped), a stray closing tag is ignored.
    An element inside another one is part of that one's content, not a tag of the reply:
    a summary that quotes <topics> or <summary> keeps the quote and changes nothing else.
    """
    stack: list[tuple[str, int, int]] = []
    open_names: Counter[str] = Counter()  # names on the stack: stray closers cost O(1)
    matched: list[_Element] = []
    for tag in _TAG.finditer(text):
        name = tag.group(2).lower()
        if not tag.group(1):
            stack.append((name, tag.start(), tag.end()))
            open_names[name] += 1
            continue
        if not open_names[name]:
            continue
        while True:
            opened, start, inner = stack.pop()
            open_names[opened] -= 1
            if opened == name:
                matched.append(_Element(name, start, inner, tag.start(), tag.end()))
                break
    top: list[_Element] = []
    for element in sorted(matched, key=lambda e: e.start):
        if not top or element.start >= top[-1].end:  # matched elements nest or are disjoint
            top.append(element)
    return top, [(name, inner) for name, _, inner in stack]


def parse_reply(text: str) -> CompressionReply:
    """Accept the tags in any order; a missing <continues_previous> means false; a summary
    whose closing tag was cut off (the reply hit its token limit) is taken up to the end;
    a reply without a non-empty summary is refused. When a tag is repeated, the last wins."""
    top, unclosed = _scan(text)
    last = {e.name: text[e.inner_start : e.inner_end].strip() for e in top}
    summary = last.get("summary")
    if summary is None:
        cut = [inner for name, inner in unclosed if name == "summary"]
        if cut:
            summary = text[cut[-1] :].strip()
    if not summary:
        raise ReplyError("the reply has no <summary>")
    topics = " ".join(last.get("topics", "").split())[:MAX_TOPIC_CHARS]
    continues = last.get("continues_previous", "").lower() == "true"
    return CompressionReply(topics=topics, continues_previous=continues, summary=summary)
