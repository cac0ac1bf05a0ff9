"""read_file's notes for unchanged re-reads (tools/rereads.py), on real files: a read of lines the
live history holds, from a file of the same size and mtime, is a note; any change, another range,
or the earlier result gone or stubbed makes it a real read."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from sessions import messages as msg
from sessions.messages import Message, ToolCall
from tools.base import ToolContext, ToolOutput
from tools.read_file import ReadFileTool
from tools.rereads import LiveReads
from tools.result_facts import ReadStamp, ResultFacts

# A fixed modification time (ns), set with os.utime: no test depends on the clock's tick.
MTIME_NS = 1_700_000_000_123_456_789


class Session:
    """A live history the reads go into, as the agent's does (call, result, ids)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.history: list[Message] = [Message(role="system", content="sys", id="m0")]

    async def read(self, **args: object) -> ToolOutput:
        call = ToolCall(f"call_{len(self.history)}", "read_file", json.dumps(args))
        self.history.append(Message(role="assistant", tool_calls=(call,), id=self.new_id()))
        ctx = ToolContext(self.workspace, reads=LiveReads(self.history))
        output = await ReadFileTool().run(dict(args), ctx)
        result = msg.tool_result(call, output.text, **output.message_meta())
        result.id = self.new_id()
        self.history.append(result)
        return output

    def new_id(self) -> str:
        return f"m{len(self.history)}"


def write(path: Path, text: str, mtime_ns: int = MTIME_NS) -> None:
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


SOURCE = "".join(f"def f{i}():\n    return {i}\n" for i in range(40))


async def test_an_unchanged_re_read_is_a_note_and_every_change_reads_again(
    workspace: Path,
) -> None:
    path = workspace / "a.py"
    write(path, SOURCE)
    session = Session(workspace)
    first = await session.read(path="a.py")
    assert first.text.startswith("     1\tdef f0():") and first.facts.read_stamp == ReadStamp(
        1, 2000, len(SOURCE), MTIME_NS
    )
    earlier = session.history[-1]

    again = await session.read(path="a.py")
    assert again.facts.unchanged_of == earlier.id and again.facts.files_read == ("a.py",)
    assert again.text.startswith("[pleat: a.py is unchanged") and "\n" not in again.text
    assert f"message {earlier.id} (call {earlier.tool_call_id})" in again.text
    assert (await session.read(path="a.py", offset=1, limit=2000)).facts.unchanged_of  # defaults

    other_range = await session.read(path="a.py", offset=3)
    assert other_range.text.startswith("     3\tdef f1():")

    os.utime(path, ns=(MTIME_NS + 1, MTIME_NS + 1))  # touched: same text, another mtime
    touched = await session.read(path="a.py")
    assert touched.text == first.text and touched.facts.unchanged_of is None

    # Rewritten within the same mtime tick, same size: the stamp alone cannot tell; the text can.
    write(path, SOURCE.replace("return 7", "return 8"), MTIME_NS + 1)
    rewritten = await session.read(path="a.py")
    assert "    return 8" in rewritten.text and rewritten.facts.unchanged_of is None
    assert (await session.read(path="a.py")).facts.unchanged_of == session.history[-3].id


async def test_a_result_no_longer_in_the_live_context_is_read_again(workspace: Path) -> None:
    write(workspace / "a.py", SOURCE)
    session = Session(workspace)
    first = await session.read(path="a.py")
    stamp = first.facts.read_stamp
    assert stamp is not None
    # The journal's round trip keeps the stamp (a resumed session knows its reads).
    assert ResultFacts.from_dict(first.facts.to_dict()).read_stamp == stamp

    result = session.history[-1]
    stub = "[pleat: this read_file output was shrunk in a fold ...]"  # the last rung, a fold
    session.history[-1] = dataclasses.replace(result, content=stub)
    assert (await session.read(path="a.py")).text == first.text

    del session.history[1:]  # folded into a summary, or rewound
    assert (await session.read(path="a.py")).text == first.text

    tiny = workspace / "t.txt"  # two short lines are cheaper than a note: sent again
    write(tiny, "x\ny\n")
    assert (await session.read(path="t.txt")).text == (await session.read(path="t.txt")).text
