"""Recorded sessions: reading them (one OpenAI-format session a JSON line, gzipped or not), the
one tool they use, and the adapter that gives their tool results the facts pleat's tools give."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessions.messages import Message, ToolCall
from tools.result_facts import FACTS_KEY, ResultFacts

# The one tool of the recorded sessions (mini-swe-agent's bash), offered in every replayed
# request so tool schemas count toward the window as they do live.
BASH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a bash command.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}

# mini-swe-agent's bash results open with the exit status and an output tag,
# "<returncode>N</returncode>\n<output>\n" (a long output has <warning> and <output_head> tags
# instead of <output>), and end with the closing tag.
_RETURNCODE = re.compile(r"\A\s*<returncode>(-?\d+)</returncode>\n?(?:<output>\n?)?")
_CLOSING_TAG = re.compile(r"\n?</output(?:_tail)?>\s*\Z")
# Its result for a command killed at its time limit: a sentence, the output, and advice.
_TIMEOUT_OPENING = re.compile(
    r"\AThe last command <command>.*?</command> timed out and has been killed\.\n"
    r"The output of the command was:\n ?<output>\n?",
    re.DOTALL,
)
_TIMEOUT_CLOSING = re.compile(r"\n?</output>\n[^\n]*\Z")
# SWE-agent's editor tool: its `command` argument is an editor action on the file at `path`;
# the actions that read it, create it, and change it.
EDITOR_TOOL = "str_replace_editor"
EDITOR_READS = frozenset({"view"})
EDITOR_WRITES = frozenset({"create"})
EDITOR_EDITS = frozenset({"str_replace", "insert", "undo_edit"})


@dataclass
class RecordedSession:
    name: str
    messages: list[Message]


def _editor_facts(call: ToolCall) -> ResultFacts:
    """An editor call's file, listed by its action (a failed action is not told apart: the
    recorded result does not say, in a form to rely on, whether it failed)."""
    args = call.parsed_arguments()
    action, path = args.get("command"), args.get("path")
    if not isinstance(path, str):
        return ResultFacts()
    if action in EDITOR_READS:
        return ResultFacts(files_read=(path,))
    if action in EDITOR_WRITES:
        return ResultFacts(files_written=(path,))
    if action in EDITOR_EDITS:
        return ResultFacts(files_edited=(path,))
    return ResultFacts()


def _shell_facts(text: str) -> ResultFacts:
    """A shell result's exit status or timeout, and the framing around its output."""
    opening = _RETURNCODE.match(text)
    if opening is not None:
        closing = _CLOSING_TAG.search(text, opening.end())
        return ResultFacts(
            exit_code=int(opening.group(1)),
            text_before_output=opening.group(0),
            text_after_output=closing.group(0) if closing is not None else "",
        )
    opening = _TIMEOUT_OPENING.match(text)
    if opening is not None:
        closing = _TIMEOUT_CLOSING.search(text, opening.end())
        return ResultFacts(
            timed_out=True,
            text_before_output=opening.group(0),
            text_after_output=closing.group(0) if closing is not None else "",
        )
    return ResultFacts()  # e.g. the final `git diff` of a submission: no status given


def result_facts(call: ToolCall | None, text: str) -> ResultFacts:
    """The facts of a recorded tool result, from its call and the format of its text."""
    if call is not None and call.name == EDITOR_TOOL:
        return _editor_facts(call)
    return _shell_facts(text)


def adapt_results(messages: Sequence[Message]) -> list[Message]:
    """The messages with every tool result carrying facts on its meta, as a result of pleat's
    own tools does (the error flag included), so the compaction ledger reads fields alone."""
    calls = {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}
    adapted: list[Message] = []
    for message in messages:
        if message.role == "tool" and FACTS_KEY not in message.meta:
            facts = result_facts(calls.get(message.tool_call_id or ""), message.content or "")
            meta = {**message.meta, "is_error": facts.failed(), FACTS_KEY: facts.to_dict()}
            message = dataclasses.replace(message, meta=meta)
        adapted.append(message)
    return adapted


def read_sessions(path: Path) -> Iterator[RecordedSession]:
    """Sessions from a JSONL file (optionally gzipped): one {"messages": [...]} per line, their
    tool results adapted (adapt_results)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            record = json.loads(line)
            name = str(record.get("instance_id") or f"session-{number}")
            messages = [
                Message.from_record({**m, "id": f"m{i}"}) for i, m in enumerate(record["messages"])
            ]
            yield RecordedSession(name, adapt_results(messages))
