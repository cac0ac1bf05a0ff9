"""What a session list shows of a journal, gathered line by line (so it can resume mid-file)."""

# `pleat sessions` reads a journal whole through this; the archive index feeds it only the
# lines appended since its last look and keeps its state (sessions/index_sync.py): both count
# alike, by the same rules.

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from sessions.messages import TYPED_KEY
from sessions.session_name import NAME_LINE, recorded_name

# Characters of the first request shown by `pleat sessions`.
FIRST_REQUEST_CHARS = 60
# Characters of a session's typed prompts kept for the resume picker's filter: the words a
# person remembers a session by are in its first prompts; a long session's rest is not searched.
PROMPTS_CHARS = 4_000
# How a journal line holding a message starts (the journal writes "type" first, no spaces).
MESSAGE_PREFIX = '{"type":"message"'
# Why a journal whose first line is not a session header is listed as damaged.
NOT_A_HEADER = "its first line is not a session header"


def first_request_of(line: str) -> str:
    """The text of a journaled user message line as the user typed it, or "" when it is not
    one."""
    try:
        record = json.loads(line)
        content = record["message"]["content"]
        typed = (record["message"].get("meta") or {}).get(TYPED_KEY)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return ""
    if isinstance(typed, str) and typed:
        return typed
    return content if isinstance(content, str) else ""


def typed_prompt(line: str) -> str | None:
    """The text of a journaled user message the user typed, None for an injected one."""
    try:
        message = json.loads(line)["message"]
        if (message.get("meta") or {}).get("injected"):
            return None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    return first_request_of(line)


@dataclass
class JournalSummary:
    """A journal's header and counts so far; `feed` it the journal's lines in order."""

    header: dict[str, Any] | None = None
    damaged: str | None = None  # NOT_A_HEADER once the first line is read and is not one
    messages: int = 0
    turns: int = 0
    first: str = ""
    name: str | None = None
    prompts: list[str] = field(default_factory=list)

    def feed(self, line: str) -> None:
        """Count one line (the first one is the header)."""
        if self.damaged is not None:
            return
        if self.header is None:
            try:
                header = json.loads(line)
            except (ValueError, RecursionError):
                header = None
            if not isinstance(header, dict) or header.get("type") != "session":
                self.damaged = NOT_A_HEADER
            else:
                self.header = header
            return
        if line.startswith(NAME_LINE):
            self.name = recorded_name(line)
        if not line.startswith(MESSAGE_PREFIX):
            return
        self.messages += 1
        if '"role":"user"' not in line:
            return
        self.first = self.first or first_request_of(line)
        if (typed := typed_prompt(line)) is not None:
            self.turns += 1
            if sum(map(len, self.prompts)) < PROMPTS_CHARS:
                self.prompts.append(" ".join(typed.split())[:PROMPTS_CHARS])

    @property
    def first_request(self) -> str:
        return " ".join(self.first.split())[:FIRST_REQUEST_CHARS]

    @property
    def prompts_text(self) -> str:
        return "\n".join(self.prompts)[:PROMPTS_CHARS]

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> JournalSummary:
        """The summary `to_json` wrote; raises ValueError when it is not one."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a summary")
        try:
            return cls(**data)
        except TypeError as error:
            raise ValueError(str(error)) from None
