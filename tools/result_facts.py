"""What a tool result says about itself, as typed fields code reads instead of parsing text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, NamedTuple

from sessions.paths import is_session_id

# The key of a tool message's meta (sessions.messages.Message.meta) that holds its facts, as
# ResultFacts.to_dict() gives them. A result journaled before tools reported facts has none.
FACTS_KEY = "facts"

# The three kinds of file a result can name, as the compaction ledger lists them.
FileKind = Literal["read", "written", "edited"]


class ReadStamp(NamedTuple):
    """What one read_file call read: the lines asked for (its offset and limit, defaults filled
    in) and the file as it was opened (its size in bytes and modification time in nanoseconds;
    read through an editor, a hash of its text instead: tools/editor_reads.py). A later read
    with the same stamp whose text is the same is not sent again (tools/rereads.py)."""

    offset: int
    limit: int
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class ResultFacts:
    """Facts of one tool result: filled by the tool that made it (and, for recorded sessions,
    by replay's adapter), carried on the tool message's meta, read by the compaction ledger.
    Whether the call failed is the message's own `is_error` flag, beside these."""

    # The command's exit status; None when no command ran to its end (another tool, a refusal,
    # a timeout, or a recorded result that does not say).
    exit_code: int | None = None
    # The command was killed at its time limit.
    timed_out: bool = False
    # The text was cut to fit the model's budget (tools/output_guard.py) ...
    truncated: bool = False
    # ... and the whole of it is kept as this output number for read_archive (None: not kept).
    kept_output: int | None = None
    # Files the call read, wrote whole and edited, as the tool names them (workspace-relative).
    files_read: tuple[str, ...] = ()
    files_written: tuple[str, ...] = ()
    files_edited: tuple[str, ...] = ()
    # The tool's own text around the program's output, exactly as the result starts and ends
    # with it: pleat's status lines after a command's output; a recorded bash tool's
    # <returncode> and <output> tags. output_of() strips them to quote the output alone.
    text_before_output: str = ""
    text_after_output: str = ""
    # The session a `task` call's sub-agent was journaled in (agent/subagents/team.py): the TUI
    # opens its transcript from the call's block, also in a resumed session.
    subsession: str | None = None
    # Who refused the call, when it did not run: "permissions" (a deny rule, the mode, or the
    # user's no) or "hook" (a PreToolUse hook); "" when it ran. The json output's
    # permission_denials list these (agent/headless/json_report.py).
    refused: str = ""
    # A read_file result: what it read, so a later read of the same lines of the unchanged file
    # is a note naming this result instead of its text again (tools/rereads.py).
    read_stamp: ReadStamp | None = None
    # A read_file note: the id of the earlier result whose text this read would have repeated.
    # A fold's dedup of repeated calls never lets a note supersede that result (cheap_tier.py).
    unchanged_of: str | None = None

    def files(self) -> tuple[tuple[FileKind, tuple[str, ...]], ...]:
        """The file lists by kind."""
        return (
            ("read", self.files_read),
            ("written", self.files_written),
            ("edited", self.files_edited),
        )

    def names_files(self) -> bool:
        """True when the result is of a file operation (it names a file read or changed)."""
        return bool(self.files_read or self.files_written or self.files_edited)

    def failed(self, *, is_error: bool = False) -> bool:
        """Whether the call failed: the message's error flag, a timeout or a non-zero exit."""
        return is_error or self.timed_out or self.exit_code not in (None, 0)

    def output_of(self, text: str) -> str:
        """The program's own output in text: the framing around it removed where text still
        has it (a cut or shrunk result may have lost it; then it stays as it is)."""
        before, after = self.text_before_output, self.text_after_output
        if before and text.startswith(before):
            text = text[len(before) :]
        if after and text.endswith(after):
            text = text[: len(text) - len(after)]
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with only the fields that differ from their defaults (one tool result
        after another in the journal: defaults cost nothing)."""
        out: dict[str, Any] = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value != spec.default:
                out[spec.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResultFacts:
        """Inverse of to_dict(); a field of the wrong type (a damaged or hand-edited journal)
        reads as its default, never an error."""

        def flag(key: str) -> bool:
            return data.get(key) is True

        def number(key: str) -> int | None:
            value = data.get(key)
            return value if type(value) is int else None

        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        def session(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) and is_session_id(value) else None

        def stamp(key: str) -> ReadStamp | None:
            value = data.get(key)
            if not isinstance(value, list | tuple) or len(value) != len(ReadStamp._fields):
                return None
            if not all(type(part) is int for part in value):
                return None
            return ReadStamp(*value)

        def paths(key: str) -> tuple[str, ...]:
            value = data.get(key)
            if not isinstance(value, list | tuple):
                return ()
            return tuple(p for p in value if isinstance(p, str))

        return cls(
            exit_code=number("exit_code"),
            timed_out=flag("timed_out"),
            truncated=flag("truncated"),
            kept_output=number("kept_output"),
            files_read=paths("files_read"),
            files_written=paths("files_written"),
            files_edited=paths("files_edited"),
            text_before_output=text("text_before_output"),
            text_after_output=text("text_after_output"),
            subsession=session("subsession"),
            refused=text("refused"),
            read_stamp=stamp("read_stamp"),
            unchanged_of=text("unchanged_of") or None,
        )

    @classmethod
    def of_message(cls, meta: Mapping[str, Any]) -> ResultFacts | None:
        """The facts a tool message's meta carries; None when it has none (a result journaled
        before tools reported facts, or a message no tool made)."""
        data = meta.get(FACTS_KEY)
        return cls.from_dict(data) if isinstance(data, Mapping) else None
