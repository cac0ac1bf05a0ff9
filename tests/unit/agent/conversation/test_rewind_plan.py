"""What a rewind plans, and what it refuses, from a real session's journal and real tool runs:
missing checkpoints, a damaged journal line, turns recorded before checkpoints existed, a
command outside git; and the conflicts it finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.conversation.rewind import parse_rewind
from agent.conversation.rewind_plan import RewindRefused, plan_rewind
from agent.turn.checkpoints import CheckpointRecorder
from sessions.messages import Message, ToolCall
from sessions.redact import KnownSecrets
from sessions.store import Session
from tools.base import ToolContext
from tools.registry import ToolRegistry, default_registry


class Turns:
    """A session whose turns call real tools through a real recorder (no model needed)."""

    def __init__(self, workspace: Path, *, checkpoints: bool = True) -> None:
        self.workspace = workspace
        self.session = Session.create(workspace, model="m")
        self.registry: ToolRegistry = default_registry()
        self.recorder = CheckpointRecorder(workspace, self.session.checkpoints, self.session.record)
        self.checkpoints = checkpoints
        self.history = [Message("system", "you are pleat", id="m1")]
        self.calls = 0

    def add(self, message: Message) -> Message:
        message.id = f"m{len(self.history) + 1}"
        self.history.append(message)
        self.session.message(message)
        return message

    async def turn(
        self, prompt: str, *calls: tuple[str, dict[str, str]], mark: bool = True
    ) -> None:
        request = self.add(Message("user", prompt))
        if self.checkpoints and mark:
            self.recorder.start_turn(request)
        tool_calls = []
        for name, args in calls:
            self.calls += 1
            tool_calls.append(ToolCall(f"call{self.calls}", name, json.dumps(args)))
        self.add(Message("assistant", None, tool_calls=tuple(tool_calls)))
        for call in tool_calls:
            tool = self.registry.get(call.name)
            assert tool is not None
            context = ToolContext(self.workspace)

            def run(call: ToolCall = call, context: ToolContext = context):  # type: ignore[no-untyped-def]
                return self.registry.dispatch(call.name, call.arguments, context)

            if self.checkpoints:
                output = await self.recorder.around(call, tool, call.parsed_arguments(), run)
            else:
                output = await run()
            self.add(Message("tool", output.text, tool_call_id=call.id, name=call.name))
        self.add(Message("assistant", "done"))
        await self.session.sync()

    def plan(self, number: int | None, scope: str = "both"):  # type: ignore[no-untyped-def]
        return plan_rewind(
            self.session.journal.path,
            self.history,
            number,
            scope,  # type: ignore[arg-type]
            workspace=self.workspace,
            store=self.session.checkpoints,
            git=None,
            registry=self.registry,
        )


@pytest.fixture
async def turns(workspace: Path):  # type: ignore[no-untyped-def]
    made = Turns(workspace)
    yield made
    made.session.close()


def write(path: str, content: str) -> tuple[str, dict[str, str]]:
    return ("write_file", {"path": path, "content": content})


async def test_a_plan_puts_back_the_earliest_content_and_finds_conflicts(
    turns: Turns, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("v0\n")
    await turns.turn("one", write("a.txt", "v1\n"))
    await turns.turn("two", write("a.txt", "v2\n"), write("b.txt", "b\n"))
    await turns.turn("three", ("read_file", {"path": "a.txt"}))
    plan = turns.plan(2)
    assert {r.path: r.conflict for r in plan.restores} == {"a.txt": False, "b.txt": False}
    assert [m.id for m in plan.history or []] == ["m1", "m2", "m3", "m4", "m5"]
    (workspace / "b.txt").write_text("the user's\n")
    plan = turns.plan(1, "files")
    assert plan.history is None and plan.conflicts == ["b.txt"]
    target = {r.path: r.target for r in plan.restores}
    assert turns.session.checkpoints.get(target["a.txt"] or "") == b"v0\n"
    assert target["b.txt"] is None  # it did not exist before turn 1
    (workspace / "a.txt").write_text("v0\n")  # already as it was: nothing to put back
    assert [r.path for r in turns.plan(1, "files").restores] == ["b.txt"]


async def test_a_missing_checkpoint_is_refused(turns: Turns, workspace: Path) -> None:
    (workspace / "a.txt").write_text("v0\n")
    await turns.turn("one", write("a.txt", "v1\n"))
    for blob in (turns.session.directory / "checkpoints").rglob("*"):
        if blob.is_file():
            blob.unlink()
    with pytest.raises(RewindRefused, match="checkpoints of turn 1 and after are missing"):
        turns.plan(None)
    assert turns.plan(None, "conversation").history is not None  # the conversation still can


async def test_a_damaged_line_after_the_turn_refuses_the_files(
    turns: Turns, workspace: Path
) -> None:
    await turns.turn("one", write("a.txt", "v1\n"))
    with turns.session.journal.path.open("a") as journal:
        journal.write('{"type":"checkpoint","turn":\n')
    with pytest.raises(RewindRefused, match=r"line \d+ of the journal is damaged"):
        turns.plan(1)


async def test_turns_before_checkpoints_existed_cannot_undo_files(workspace: Path) -> None:
    old = Turns(workspace, checkpoints=False)
    try:
        await old.turn("written by an older pleat", write("a.txt", "v1\n"))
        await old.turn("only read", ("read_file", {"path": "a.txt"}))
        with pytest.raises(RewindRefused, match="turn 1 was recorded before pleat kept"):
            old.plan(1)
        assert old.plan(2).restores == []  # a turn that changed nothing undoes fine
    finally:
        old.session.close()


async def test_a_command_outside_git_is_noted_not_undone(turns: Turns, workspace: Path) -> None:
    await turns.turn("run", ("run_command", {"command": "echo x > made.txt"}))
    plan = turns.plan(None)
    assert plan.restores == []
    assert plan.notes == [
        "run_command: changes made by commands are only known in a git workspace "
        "(1 call not undone)"
    ]


async def test_nothing_to_undo_and_no_such_turn(turns: Turns) -> None:
    with pytest.raises(RewindRefused, match="nothing to undo"):
        turns.plan(None)
    await turns.turn("one")
    with pytest.raises(RewindRefused, match="there is no turn 2: this conversation has 1"):
        turns.plan(2)


async def test_a_file_holding_a_key_is_not_kept_and_the_undo_says_so(
    turns: Turns, workspace: Path
) -> None:
    key = "sk-known-key-0123456789"
    turns.recorder.secrets = KnownSecrets([key])
    (workspace / ".env").write_text(f"API_KEY={key}\n")
    await turns.turn("one", write(".env", "API_KEY=\n"))
    stored = [p.read_bytes() for p in (turns.session.directory).rglob("*") if p.is_file()]
    assert not [data for data in stored if key.encode() in data], "the key reached the disk"
    plan = turns.plan(None)
    assert plan.restores == []
    assert plan.notes == [
        ".env: its old content held a key, which pleat never writes to disk; not restored"
    ]


async def test_a_request_delivered_within_a_turn_undoes_like_a_turn(
    turns: Turns, workspace: Path
) -> None:
    """A prompt queued while a turn runs reaches the model between tool steps: a user message
    with no `turn` record of its own, after one that has it."""
    await turns.turn("one", write("a.txt", "a\n"))
    await turns.turn("queued meanwhile", write("b.txt", "b\n"), mark=False)
    plan = turns.plan(None)
    assert plan.turn.prompt == "queued meanwhile"
    assert [(r.path, r.target) for r in plan.restores] == [("b.txt", None)]


@pytest.mark.parametrize(
    ("arg", "parsed"),
    [
        ("2", (2, "both")),
        ("2 files", (2, "files")),
        (" 12  conversation ", (12, "conversation")),
        ("²", None),  # a digit to str.isdigit, not to int(): was a traceback headless
        ("٣", None),
        ("2 everything", None),
        ("2 files extra", None),
        ("-1", None),
        ("9999999", None),
        ("", None),
    ],
)
def test_rewind_arguments(arg: str, parsed: tuple[int, str] | None) -> None:
    assert parse_rewind(arg) == parsed
