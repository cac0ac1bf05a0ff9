"""The model is told the added directories with the next prompt whenever they differ from what
it was last told (agent/turn/added_dirs.py), and /add-dir widens the whole run."""

from __future__ import annotations

from pathlib import Path

from agent.turn.added_dirs import NOTE_KEY, add_directory, added_note
from agent.turn.checkpoints import CheckpointRecorder
from sessions.messages import Message
from tools.base import ToolContext
from tools.sandbox.policy import Sandbox


def test_told_once_then_again_only_when_the_set_changes(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert added_note((), []) is None  # none added, none told: nothing said
    note = added_note((first,), [])
    assert note is not None and note.meta == {"injected": True, NOTE_KEY: [str(first)]}
    assert f"- {first}" in (note.content or "")
    history: list[Message] = [note]
    assert added_note((first,), history) is None
    widened = added_note((first, second), history)
    assert widened is not None and f"- {second}" in (widened.content or "")
    gone = added_note((), [*history, widened])  # a resumed session's run without them
    assert gone is not None and "out of reach" in (gone.content or "")


class Holder:
    """What add_directory changes: an agent's context and checkpoints."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context
        self.checkpoints: CheckpointRecorder | None = None


def test_add_directory_widens_the_sandbox_and_the_tools(tmp_path: Path) -> None:
    sandbox = Sandbox("workspace-write", tmp_path / "ws")
    holder = Holder(ToolContext(tmp_path / "ws", sandbox=sandbox))
    assert add_directory(holder, tmp_path / "other") is None
    assert holder.context.extra_roots == (tmp_path / "other",) == sandbox.added
    assert str(tmp_path / "other") in sandbox.writable()
    assert (
        str(tmp_path / "other")
        not in Sandbox("read-only", tmp_path, added=sandbox.added).writable()
    )


def test_a_directory_holding_pleats_own_files_is_not_added(tmp_path: Path) -> None:
    sandbox = Sandbox("workspace-write", tmp_path / "ws")
    holder = Holder(ToolContext(tmp_path / "ws", sandbox=sandbox))
    code = Path(__file__).resolve().parents[4]  # this checkout: pleat's own code
    refused = add_directory(holder, code)
    assert refused is not None and "holds pleat's own files" in refused
    assert holder.context.extra_roots == () == sandbox.added and sandbox.exposed is None
