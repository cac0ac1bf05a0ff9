"""pleat's notes for unchanged re-reads (tools/rereads.py), as a replay gives them to recorded bash
sessions: a file view run again, with the same output, while the earlier result is still live.

The recorded sessions read files with shell commands (`cat F`, `nl -ba F | sed -n 'A,Bp'`,
`sed -n 'A,Bp' F`, `head -n N F`, ...), where pleat's model calls read_file. A view (one of
those, the whole command: no other pipe, no redirection, no `;` or `&&`) is the path and range
read_file would read, its command text the range. A recorded result becomes the note read_file
would give when an earlier result of the same command is in the replayed history as it is
(neither folded away nor stubbed), its text is the same, and no command since names the file
other than a view (an edit through `sed -i`, a heredoc, a script given the path). pleat compares
the file's size and modification time, which a recording does not keep: the same output of the
same view, with nothing in between naming the file, stands in for them. A command that changes
the file without naming it (a script that writes it) is not seen, so the count is an upper
bound of that rare case, as pleat's own check has its own (docs/COMPACTION.md).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from sessions.messages import Message, ToolCall
from tools.rereads import EarlierRead, unchanged_note
from tools.result_facts import FACTS_KEY, ResultFacts

# A path as the views write it: no spaces, quotes, pipes or redirections.
_PATH = r"(?P<path>[\w./@+-]+)"
# A sed range, quoted or not: `'10,20p'`, "10,20p", 10,20p (several ranges `;`-joined in quotes).
_SED_RANGE = r"""(?:'[\d,;p ]+'|"[\d,;p ]+"|[\d,]+p)"""
# The shell commands that only show (part of) one file, as the recorded sessions' model wrote
# them; each is the whole command.
_VIEWS = tuple(
    re.compile(pattern + r"\Z")
    for pattern in (
        rf"cat(?: -n)? {_PATH}",
        rf"nl(?: -ba)? {_PATH}",
        rf"(?:cat|nl(?: -ba)?) {_PATH} \| sed -n {_SED_RANGE}",
        rf"sed -n {_SED_RANGE} {_PATH}",
        rf"(?:head|tail)(?: -n)? -?\d+ {_PATH}",
    )
)


def viewed_path(call: ToolCall | None) -> str | None:
    """The file a recorded bash call only views, or None (another command, or not bash)."""
    if call is None or call.name != "bash":
        return None
    command = call.parsed_arguments().get("command")
    if not isinstance(command, str):
        return None
    line = " ".join(command.split())
    for view in _VIEWS:
        if (match := view.match(line)) is not None:
            return match.group("path")
    return None


def _command(call: ToolCall) -> str:
    command = call.parsed_arguments().get("command")
    return " ".join(command.split()) if isinstance(command, str) else ""


def note_for(history: Sequence[Message], result: Message) -> Message | None:
    """The note standing for `result` (a recorded tool result about to join `history`, the
    replay's live one), or None when it is not an unchanged re-read (see the module)."""
    calls = {c.id: c for m in history if m.role == "assistant" for c in m.tool_calls}
    call = calls.get(result.tool_call_id or "")
    path = viewed_path(call)
    if call is None or path is None or not result.content:
        return None
    for index in range(len(history) - 1, -1, -1):
        earlier = history[index]
        if earlier.role == "assistant":
            named = [c for c in earlier.tool_calls if c.id != call.id and path in _command(c)]
            if any(viewed_path(c) is None for c in named):
                return None  # a command since names the file: it may have changed it
            continue
        if earlier.role != "tool" or earlier.content != result.content:
            continue
        before = calls.get(earlier.tool_call_id or "")
        if before is None or _command(before) != _command(call):
            continue
        note = unchanged_note(path, EarlierRead(earlier.id, before.id))
        if len(note) >= len(result.content):
            return None  # a short result costs less than the note
        facts = ResultFacts(exit_code=0, files_read=(path,), unchanged_of=earlier.id)
        meta = {**result.meta, FACTS_KEY: facts.to_dict()}
        return dataclasses.replace(result, content=note, meta=meta)
    return None
