"""A deterministic stand-in for the model in compression calls (replay's default, and tests):
it answers the instruction with a summary made from the conversation it was shown."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent.model.llm import LLMReply
from agent.model.tokens import count_text
from sessions.usage import Usage

# Label every summary it writes, so nobody mistakes replay results for a real model's.
LABEL = "[offline summarizer: deterministic, no model was called]"
# Characters of each user request and of the last reply quoted in its summary.
QUOTE_CHARS = 200


class OfflineSummarizer:
    """Quacks like agent.model.llm.LLM for the compaction engine: stream() yields one LLMReply."""

    model = "offline-summarizer"

    def __init__(self, window: int) -> None:
        self.window = window
        self.calls = 0

    def context_window(self) -> int:
        return self.window

    def reply_limits(self) -> tuple[int, int | None]:
        return 0, None  # no thinking, no output limit to respect

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        max_tokens: int | None = None,
    ) -> AsyncIterator[LLMReply]:
        self.calls += 1
        text = self.summarize(messages[:-1])
        prompt = sum(count_text(json.dumps(m)) for m in messages)
        yield LLMReply(
            text=text,
            tool_calls=(),
            usage=Usage(prompt_tokens=prompt, completion_tokens=count_text(text)),
            finish_reason="stop",
        )

    @staticmethod
    def summarize(messages: list[dict[str, Any]]) -> str:
        requests = [
            " ".join(str(m.get("content") or "").split())[:QUOTE_CHARS]
            for m in messages
            if m.get("role") == "user"
        ]
        commands: list[str] = []
        for message in messages:
            for call in message.get("tool_calls") or ():
                commands.append(call["function"]["name"])
        last = next(
            (
                str(m.get("content") or "")
                for m in reversed(messages)
                if m.get("role") == "assistant"
            ),
            "",
        )
        lines = [LABEL, "## Task"] + [f"- {r}" for r in requests[-3:]]
        lines += ["## Done", f"- {len(commands)} tool calls ({', '.join(sorted(set(commands)))})"]
        lines += ["## Next", f"- continue from: {' '.join(last.split())[:QUOTE_CHARS]}"]
        return (
            "<topics>replayed work</topics>\n<continues_previous>false</continues_previous>\n"
            "<summary>\n" + "\n".join(lines) + "\n</summary>"
        )
