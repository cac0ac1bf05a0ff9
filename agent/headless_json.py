"""`--output-format json | stream-json`: headless results for scripts, in Claude Code's shape.

`json` prints one object when the run ends: `{"type": "result", "subtype", "is_error", "result",
"session_id", "num_turns", "duration_ms", "total_cost_usd", "usage"}`, plus pleat's
`compactions`. `stream-json` prints one object per line as the run goes: a `system`/`init`
line, each assistant message, each tool result (as a `user` message holding a `tool_result`),
each compaction (a `system`/`compaction` line), then the same result object. The field names
are Claude Code's, so scripts written for `claude -p --output-format json` read pleat's output.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Literal, TextIO

from agent.events import CompactionDone, Event, TextDelta, TurnDone
from agent.loop import Agent
from sessions.messages import Message
from sessions.usage import UsageTally

OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")
# Claude Code's result subtypes: the run answered, hit its turn cap, or failed.
SUBTYPES = {"answer": "success", "iteration_cap": "error_max_turns"}
ERROR_SUBTYPE = "error_during_execution"


def _usage(before: UsageTally, after: UsageTally) -> dict[str, int]:
    """The tokens of this run's calls (compression included), with Anthropic's field names."""
    return {
        "input_tokens": after.prompt_tokens - before.prompt_tokens,
        "cache_creation_input_tokens": after.cache_creation_tokens - before.cache_creation_tokens,
        "cache_read_input_tokens": after.cached_tokens - before.cached_tokens,
        "output_tokens": after.completion_tokens - before.completion_tokens,
    }


class JsonReport:
    """Follows one headless run's events and prints them as `json` or `stream-json`."""

    def __init__(self, agent: Agent, session_id: str, out: TextIO, *, stream: bool) -> None:
        self.agent = agent
        self.session_id = session_id
        self.out = out
        self.stream = stream
        self.started = time.monotonic()
        self.usage_before = dataclasses.replace(agent.usage)
        self.compactions = 0
        self.turns = 0
        # Messages already printed (stream-json), by id: a fold replaces the history, so new
        # messages are found by id, not by position.
        self._shown = {message.id for message in agent.history}

    def _print(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record) + "\n")  # ASCII: no control byte reaches the terminal
        self.out.flush()

    def start(self) -> None:
        """The init line of stream-json: the session, the model, the tools, the workspace, the
        permission mode."""
        if self.stream:
            self._print(
                {
                    "type": "system",
                    "subtype": "init",
                    "session_id": self.session_id,
                    "cwd": str(self.agent.context.workspace),
                    "model": self.agent.llm.model,
                    "tools": self.agent.registry.names(),
                    "permissionMode": self.agent.permissions.mode,
                }
            )

    def event(self, event: Event) -> None:
        """Take one event of the run; in stream-json, print what it completed."""
        if isinstance(event, CompactionDone):
            self.compactions += 1
            if self.stream:
                self._print(
                    {
                        "type": "system",
                        "subtype": "compaction",
                        "session_id": self.session_id,
                        "chunk": event.chunk,
                        "folded_messages": event.folded_messages,
                        "tokens_before": event.tokens_before,
                        "tokens_after": event.tokens_after,
                        "topics": event.topics,
                    }
                )
        if isinstance(event, TurnDone):
            self.turns += event.iterations
        if self.stream and not isinstance(event, TextDelta):
            for message in self.agent.history:
                if message.id not in self._shown and message.role in ("assistant", "tool"):
                    self._shown.add(message.id)
                    self._print(self._message(message))

    def _message(self, message: Message) -> dict[str, Any]:
        """An assistant message, or a tool result as the user message that carries it."""
        common = {"parent_tool_use_id": None, "session_id": self.session_id}
        if message.role == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content or "",
                "is_error": bool(message.meta.get("is_error")),
            }
            return {"type": "user", "message": {"role": "user", "content": [result]}, **common}
        content: list[dict[str, Any]] = []
        if message.content:
            content.append({"type": "text", "text": message.content})
        for call in message.tool_calls:
            content.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": call.parsed_arguments(),
                }
            )
        body = {
            "id": message.id,
            "type": "message",
            "role": "assistant",
            "model": self.agent.llm.model,
            "content": content,
        }
        return {"type": "assistant", "message": body, **common}

    def finish(self, done: TurnDone | None, error: str | None, answer: str = "") -> None:
        """The result object, printed last in both formats."""
        reason = done.reason if done is not None else "error"
        is_error = error is not None or reason not in SUBTYPES
        after = self.agent.usage
        cost = (after.cost or 0.0) - (self.usage_before.cost or 0.0)
        self._print(
            {
                "type": "result",
                "subtype": SUBTYPES.get(reason, ERROR_SUBTYPE) if error is None else ERROR_SUBTYPE,
                "is_error": is_error,
                "result": error if error is not None else (done.text if done else answer) or answer,
                "session_id": self.session_id,
                "num_turns": self.turns,
                "duration_ms": round((time.monotonic() - self.started) * 1000),
                "total_cost_usd": round(cost, 10),
                "usage": _usage(self.usage_before, after),
                "compactions": self.compactions,
            }
        )
