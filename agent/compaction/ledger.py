"""Facts that code (not the model) takes from folded messages: files, commands, errors, requests."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sessions.messages import Message, ToolCall
from sessions.redact import redact
from tools.result_facts import FileKind, ResultFacts

# Newest commands kept: enough to retrace a long debugging stretch (edit, test, fix, retest)
# while the rendered list stays around 2k tokens.
MAX_COMMANDS = 40
# Paths kept per list: a large refactor touches dozens of files; beyond that the oldest are
# counted, not listed.
MAX_FILES = 60
# Newest requests stored; render_ledger shows only what fits its budget, the rest are in the
# archive anyway. Bounds the ledger kept in the summary message's metadata.
MAX_REQUESTS = 100
# Characters of one command (one line): a full command line, but not a whole heredoc script.
COMMAND_CHARS = 200
# Characters of the last error: the line or two that name the failure.
ERROR_CHARS = 300
# Characters of one stored request: a long paste (a log, a spec) is cut, its full text stays
# in the archive under the message id.
REQUEST_CHARS = 4_000
# Characters of the command quoted inside the last error (the full one is in the list).
ERROR_COMMAND_CHARS = 80
# Extra characters read around a cut before redacting, so a secret straddling the cut is still
# whole when redact() sees it.
REDACT_MARGIN = 512
# Characters of the newest request shown even when the request budget is smaller: the latest
# ask is the one thing the model must not lose.
MIN_REQUEST_PREVIEW = 100
ELLIPSIS = "…"
CUT_NOTE = f"{ELLIPSIS} [cut; the full text is archived]"

# Results journaled before tools reported facts (tools/result_facts.py) say their command's
# outcome only in their text: run_command's last line is "exit code: N" or "timed out after
# N s". Read by _legacy_facts() alone.
_LEGACY_EXIT = re.compile(r"exit code: (-?\d+)[ \t]*")
_LEGACY_TIMEOUT = re.compile(r"timed out after \S+ s\b")
# Characters at the end of such a result searched for that status line (it comes last).
LEGACY_STATUS_CHARS = 400
# pleat's file tools, by the file list their `path` argument goes to (for those same results).
LEGACY_FILE_TOOLS: dict[str, FileKind] = {
    "read_file": "read",
    "write_file": "written",
    "edit_file": "edited",
}


@dataclass
class Ledger:
    """Cumulative facts of everything folded so far in a session."""

    files_read: list[str] = field(default_factory=list)
    files_written: list[str] = field(default_factory=list)
    files_edited: list[str] = field(default_factory=list)
    commands: list[tuple[str, int | None]] = field(default_factory=list)
    last_error: str | None = None
    requests: list[tuple[str, str]] = field(default_factory=list)
    # How many entries the bounds pushed out of each list, oldest first.
    files_read_dropped: int = 0
    files_written_dropped: int = 0
    files_edited_dropped: int = 0
    commands_dropped: int = 0
    requests_dropped: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (lists instead of tuples)."""
        return {
            "files_read": list(self.files_read),
            "files_written": list(self.files_written),
            "files_edited": list(self.files_edited),
            "commands": [[text, code] for text, code in self.commands],
            "last_error": self.last_error,
            "requests": [[mid, text] for mid, text in self.requests],
            "files_read_dropped": self.files_read_dropped,
            "files_written_dropped": self.files_written_dropped,
            "files_edited_dropped": self.files_edited_dropped,
            "commands_dropped": self.commands_dropped,
            "requests_dropped": self.requests_dropped,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Ledger:
        """Inverse of to_dict(); malformed or missing parts become empty, never an error."""
        if not isinstance(d, dict):
            return cls()

        def strings(key: str) -> list[str]:
            value = d.get(key)
            return [s for s in value if isinstance(s, str)] if isinstance(value, list) else []

        def count(key: str) -> int:
            value = d.get(key)
            return value if type(value) is int and value >= 0 else 0

        commands: list[tuple[str, int | None]] = []
        for item in d.get("commands") or ():
            if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str):
                code = item[1] if type(item[1]) is int else None
                commands.append((item[0], code))
        requests: list[tuple[str, str]] = []
        for item in d.get("requests") or ():
            if isinstance(item, list | tuple) and len(item) == 2:
                if isinstance(item[0], str) and isinstance(item[1], str):
                    requests.append((item[0], item[1]))
        last_error = d.get("last_error")
        return cls(
            files_read=strings("files_read"),
            files_written=strings("files_written"),
            files_edited=strings("files_edited"),
            commands=commands,
            last_error=last_error if isinstance(last_error, str) else None,
            requests=requests,
            files_read_dropped=count("files_read_dropped"),
            files_written_dropped=count("files_written_dropped"),
            files_edited_dropped=count("files_edited_dropped"),
            commands_dropped=count("commands_dropped"),
            requests_dropped=count("requests_dropped"),
        )


# -- reading tool results --------------------------------------------------------------------


def _legacy_facts(result: Message, call: ToolCall | None) -> ResultFacts:
    """Facts of a result journaled before tools reported them (a session from before facts,
    resumed and folded now): run_command's status line, and the `path` argument of pleat's
    file tools. Every other result has facts on its meta; drop this when such journals no
    longer need reading."""
    text = result.content or ""
    last = text[-LEGACY_STATUS_CHARS:].rstrip().rpartition("\n")[2]
    exit_match = _LEGACY_EXIT.fullmatch(last)
    timed_out = _LEGACY_TIMEOUT.match(last) is not None
    status = ""
    if exit_match is not None or timed_out:
        body_end = text.rstrip().rfind("\n")
        status = text[body_end:] if body_end >= 0 else text
    facts = ResultFacts(
        exit_code=int(exit_match.group(1)) if exit_match is not None else None,
        timed_out=timed_out,
        text_after_output=status,
    )
    kind = LEGACY_FILE_TOOLS.get(call.name) if call is not None else None
    path = call.parsed_arguments().get("path") if call is not None else None
    if kind is None or not isinstance(path, str):
        return facts
    return replace(
        facts,
        files_read=(path,) if kind == "read" else (),
        files_written=(path,) if kind == "written" else (),
        files_edited=(path,) if kind == "edited" else (),
    )


def _facts(result: Message, call: ToolCall | None) -> ResultFacts:
    """What a tool result says: the facts on its meta (legacy results: read from their text)."""
    facts = ResultFacts.of_message(result.meta)
    return facts if facts is not None else _legacy_facts(result, call)


def _failed(result: Message, facts: ResultFacts) -> bool:
    return facts.failed(is_error=bool(result.meta.get("is_error")))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _clean(text: str, limit: int, secrets: Sequence[str]) -> str:
    """The start of text, redacted (with a margin past the cut), on one line, cut to limit."""
    return _cut(_one_line(redact(text[: limit + REDACT_MARGIN], secrets)), limit)


def _command_line(command: str, secrets: Sequence[str]) -> str:
    """A command on one line; a heredoc script is shown as its first line and a line count."""
    lines = command.strip().split("\n")
    if len(lines) > 1 and "<<" in lines[0]:
        suffix = f" {ELLIPSIS} (+{len(lines) - 1} lines)"
        return _clean(lines[0], COMMAND_CHARS - len(suffix), secrets) + suffix
    return _clean(command, COMMAND_CHARS, secrets)


def _excerpt(text: str, *, from_end: bool, limit: int, secrets: Sequence[str]) -> str:
    """Non-empty lines of text joined by " | ": the first ones, or the last ones (where a
    command's error usually is), redacted and cut to limit."""
    if from_end:
        window = text[-(limit + REDACT_MARGIN) :]
        if len(window) < len(text):
            # Drop the word cut in half: redact() could not recognize half a secret.
            space = re.search(r"\s", window)
            window = window[space.end() :] if space else ""
    else:
        window = text[: limit + REDACT_MARGIN]
    lines = [line.strip() for line in redact(window, secrets).split("\n") if line.strip()]
    joined = " | ".join(lines)
    if not from_end or len(joined) <= limit:
        return _cut(joined, limit)
    return ELLIPSIS + joined[-(limit - 1) :].lstrip()


def _normal_path(path: str) -> str:
    path = path.strip()
    while path.startswith("./") and len(path) > 2:
        path = path[2:]
    return path


# -- building --------------------------------------------------------------------------------


def _is_request(message: Message) -> bool:
    return (
        message.role == "user"
        and isinstance(message.content, str)
        and not message.meta.get("injected")
        and not message.meta.get("kind")
    )


def _bounded(items: list[str], limit: int, touched: set[str]) -> tuple[list[str], int]:
    """At most limit items, dropping the oldest first but sparing those touched just now."""
    excess = len(items) - limit
    if excess <= 0:
        return items, 0
    drop: set[int] = set()
    for index, item in enumerate(items):
        if len(drop) == excess:
            break
        if item not in touched:
            drop.add(index)
    for index in range(len(items)):
        if len(drop) == excess:
            break
        drop.add(index)
    return [item for index, item in enumerate(items) if index not in drop], excess


def _command_of(call: ToolCall, facts: ResultFacts | None) -> str | None:
    """The shell line a call ran: its `command` argument, unless its result is a file operation
    (an editor tool's `command` is an action such as "view", not a shell line)."""
    command = call.parsed_arguments().get("command")
    if not isinstance(command, str) or (facts is not None and facts.names_files()):
        return None
    return command


class _Builder:
    """One update: the ledger being extended and what this batch touched."""

    def __init__(self, base: Ledger, secrets: Sequence[str]) -> None:
        self.ledger = replace(
            base,
            files_read=list(base.files_read),
            files_written=list(base.files_written),
            files_edited=list(base.files_edited),
            commands=list(base.commands),
            requests=list(base.requests),
        )
        self.secrets = secrets
        self.files = {
            "read": self.ledger.files_read,
            "written": self.ledger.files_written,
            "edited": self.ledger.files_edited,
        }
        self.touched: dict[str, set[str]] = {kind: set() for kind in self.files}
        self.command_by_call: dict[str, str] = {}
        self.request_ids = {mid for mid, _ in self.ledger.requests}

    def request(self, message: Message) -> None:
        if message.content is None or (message.id and message.id in self.request_ids):
            return
        self.request_ids.add(message.id)
        content = message.content
        text = redact(content[: REQUEST_CHARS + REDACT_MARGIN], self.secrets)
        if len(content) > REQUEST_CHARS + REDACT_MARGIN or len(text) > REQUEST_CHARS:
            text = text[:REQUEST_CHARS].rstrip() + CUT_NOTE
        if message.images:  # what was shown with the words (the chunk keeps the images)
            names = ", ".join(image.label() for image in message.images)
            text += f" [attached: {redact(names, self.secrets)}]"
        self.ledger.requests.append((message.id, text))

    def call(self, call: ToolCall, result: Message | None, facts: ResultFacts | None) -> None:
        """A tool call, with its result and that result's facts (None: no result folded)."""
        command = _command_of(call, facts)
        if command is not None:
            text = _command_line(command, self.secrets)
            self.command_by_call[call.id] = text
            commands = [c for c in self.ledger.commands if c[0] != text]
            commands.append((text, facts.exit_code if facts is not None else None))
            self.ledger.commands = commands
            return
        if result is None or facts is None or _failed(result, facts):
            return  # no file was read or changed
        for kind, paths in facts.files():
            for path in paths:
                if not path.strip():
                    continue
                clean = _normal_path(_clean(path, COMMAND_CHARS, self.secrets))
                self.touched[kind].add(clean)
                if clean not in self.files[kind]:
                    self.files[kind].append(clean)

    def error(self, message: Message, call: ToolCall | None, facts: ResultFacts) -> None:
        tool = message.name or (call.name if call is not None else None) or "tool"
        command = self.command_by_call.get(message.tool_call_id or "")
        text = facts.output_of(message.content or "")
        if command is not None:
            status = "timed out" if facts.timed_out else f"exit code {facts.exit_code}"
            if not facts.timed_out and facts.exit_code is None:
                status = "failed"
            head = f"{tool} `{_cut(command, ERROR_COMMAND_CHARS)}` ({status}) in {message.id}"
            excerpt = _excerpt(text, from_end=True, limit=ERROR_CHARS, secrets=self.secrets)
        else:
            head = f"{tool} failed in {message.id}"
            excerpt = _excerpt(text, from_end=False, limit=ERROR_CHARS, secrets=self.secrets)
        self.ledger.last_error = f"{head}: {excerpt}" if excerpt else head

    def finish(self) -> Ledger:
        ledger = self.ledger
        ledger.files_read, dropped = _bounded(ledger.files_read, MAX_FILES, self.touched["read"])
        ledger.files_read_dropped += dropped
        ledger.files_written, dropped = _bounded(
            ledger.files_written, MAX_FILES, self.touched["written"]
        )
        ledger.files_written_dropped += dropped
        ledger.files_edited, dropped = _bounded(
            ledger.files_edited, MAX_FILES, self.touched["edited"]
        )
        ledger.files_edited_dropped += dropped
        excess = len(ledger.commands) - MAX_COMMANDS
        if excess > 0:
            ledger.commands = ledger.commands[excess:]
            ledger.commands_dropped += excess
        excess = len(ledger.requests) - MAX_REQUESTS
        if excess > 0:
            ledger.requests = ledger.requests[excess:]
            ledger.requests_dropped += excess
        return ledger


def update_ledger(
    previous: Ledger | None, folded: Sequence[Message], *, known_secrets: Iterable[str] = ()
) -> Ledger:
    """previous + the facts of the newly folded messages, deduplicated and bounded; previous
    is not modified. Every recorded text has passed through redact()."""
    builder = _Builder(previous if previous is not None else Ledger(), tuple(known_secrets))
    calls = {c.id: c for m in folded if m.role == "assistant" for c in m.tool_calls}
    results = {m.tool_call_id: m for m in folded if m.role == "tool" and m.tool_call_id}
    for message in folded:
        if _is_request(message):
            builder.request(message)
        elif message.role == "assistant":
            for call in message.tool_calls:
                result = results.get(call.id)
                builder.call(call, result, _facts(result, call) if result is not None else None)
        elif message.role == "tool":
            owner = calls.get(message.tool_call_id or "")
            facts = _facts(message, owner)
            if _failed(message, facts):
                builder.error(message, owner, facts)
    return builder.finish()
