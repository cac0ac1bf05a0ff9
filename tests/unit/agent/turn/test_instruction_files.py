"""The instruction files' loader: the user's own file in the system prompt, hostile nested files
skipped without blocking, only what a tool really read or edited counting, one step's text
bounded, the nearest files first; `#` notes written safely and told to the model."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.turn.instruction_files import (
    MAX_INSTRUCTIONS_BYTES,
    NoteRefused,
    append_note,
    directories_of,
)
from agent.turn.instruction_set import instruction_notes
from agent.turn.nested_instructions import INSTRUCTIONS_KEY, NOTES_KEY, NestedInstructions
from agent.turn.system_prompt import system_prompt
from sessions import messages as msg
from sessions.messages import Message, ToolCall
from sessions.paths import data_home
from tools.result_facts import ResultFacts


class History:
    """Just a history to add to: what NestedInstructions is given of the agent."""

    def __init__(self) -> None:
        self.history: list[Message] = [Message("system", "You are pleat.", id="m1")]

    def add(self, message: Message) -> Message:
        self.history.append(message)
        return message


def step(host: History, *results: tuple[str, bool, ResultFacts]) -> None:
    """A reply calling tools, then their results (name, is_error, facts)."""
    calls = tuple(ToolCall(f"c{i}", name, json.dumps({})) for i, (name, _, _) in enumerate(results))
    host.add(msg.assistant(None, calls))
    for call, (_, failed, facts) in zip(calls, results, strict=True):
        host.add(msg.tool_result(call, "ok", is_error=failed, facts=facts.to_dict()))


def test_the_users_own_file_joins_the_system_prompt_and_one_leading_out_is_skipped(
    workspace: Path, tmp_path: Path
) -> None:
    home = data_home()
    home.mkdir(parents=True)
    (home / "AGENTS.md").write_text("Always answer in French.\n")
    (workspace / "AGENTS.md").write_text("Use tabs.\n")
    prompt = system_prompt(workspace, ["read_file"])
    assert prompt.index("Always answer in French.") < prompt.index("Use tabs.")
    (home / "AGENTS.md").unlink()
    (tmp_path / "dotfiles.md").write_text("SECRET from outside\n")
    (home / "AGENTS.md").symlink_to(tmp_path / "dotfiles.md")
    assert "SECRET" not in system_prompt(workspace, ["read_file"])
    assert instruction_notes(workspace) == [
        "user instructions skipped: AGENTS.md leads outside the workspace; not read"
    ]


def test_directories_of_a_file() -> None:
    assert directories_of("src/api/app.py") == ["src", "src/api"]
    assert directories_of("./src/app.py") == ["src"]
    assert directories_of("app.py") == [] and directories_of("../out/x.py") == []


async def test_hostile_nested_files_are_skipped_and_only_real_touches_count(
    workspace: Path, tmp_path: Path
) -> None:
    for name in ("out", "pipe", "big", "failed"):
        (workspace / name).mkdir()
    (tmp_path / "secret.md").write_text("SECRET\n")
    (workspace / "out" / "AGENTS.md").symlink_to(tmp_path / "secret.md")
    os.mkfifo(workspace / "pipe" / "AGENTS.md")  # a careless open would wait for a writer
    (workspace / "big" / "CLAUDE.md").write_text("B" * (MAX_INSTRUCTIONS_BYTES * 2))
    (workspace / "failed" / "AGENTS.md").write_text("never sent\n")
    host = History()
    nested = NestedInstructions(host, workspace)
    step(
        host,
        ("read_file", False, ResultFacts(files_read=("out/a.py",))),
        ("read_file", False, ResultFacts(files_read=("pipe/a.py",))),
        ("edit_file", True, ResultFacts(files_edited=("failed/a.py",))),  # an error: not reached
        ("write_file", False, ResultFacts(files_written=("big/a.py",))),
    )
    added = await nested.after_tools()
    assert added is not None and added.meta[INSTRUCTIONS_KEY] == ["big/CLAUDE.md"]
    assert added.content is not None and "SECRET" not in added.content
    assert added.content.endswith(f"[... big/CLAUDE.md cut at {MAX_INSTRUCTIONS_BYTES:,} bytes]")
    assert nested.skipped == [
        "nested instructions skipped: out/AGENTS.md leads outside the workspace; not read",
        "nested instructions skipped: pipe/AGENTS.md is a named pipe, not a file; not read",
    ]
    assert await nested.after_tools() is None  # the history ends with it: no step since


async def test_one_step_adds_at_most_one_files_worth_the_nearest_first(workspace: Path) -> None:
    deep = workspace / "a" / "b"
    deep.mkdir(parents=True)
    (workspace / "a" / "AGENTS.md").write_text("OUTER " * 4_000)  # 24,000 characters
    (deep / "AGENTS.md").write_text("INNER " * 2_000)  # 12,000: both do not fit together
    host = History()
    nested = NestedInstructions(host, workspace)
    step(host, ("read_file", False, ResultFacts(files_read=("a/b/c.py",))))
    added = await nested.after_tools()
    assert added is not None and added.content is not None
    assert added.meta[INSTRUCTIONS_KEY] == ["a/b/AGENTS.md", "a/AGENTS.md"]
    assert "INNER" in added.content and "OUTER OUTER" not in added.content
    assert added.content.endswith("(read them with read_file): a/AGENTS.md")
    step(host, ("edit_file", False, ResultFacts(files_edited=("a/b/c.py",))))
    assert await nested.after_tools() is None  # both are in the conversation (one by name)
    assert nested.in_use() == ["a/AGENTS.md", "a/b/AGENTS.md"]


def test_a_note_goes_to_the_file_in_use_and_never_through_a_symlink_or_a_pipe(
    workspace: Path, tmp_path: Path
) -> None:
    assert append_note(workspace, "  use tabs  ") == "AGENTS.md"  # none yet: AGENTS.md made
    assert (workspace / "AGENTS.md").read_text() == "- use tabs\n"
    (workspace / "AGENTS.md").unlink()
    (workspace / "CLAUDE.md").write_text("Claude's rules")  # the file in use, without a newline
    assert append_note(workspace, "line one\nline two") == "CLAUDE.md"
    assert (workspace / "CLAUDE.md").read_text() == "Claude's rules\nline one\nline two\n"
    (workspace / "AGENTS.md").symlink_to(tmp_path / "outside.md")
    (workspace / "CLAUDE.md").unlink()
    with pytest.raises(NoteRefused, match="outside the workspace"):
        append_note(workspace, "x")
    assert not (tmp_path / "outside.md").exists()
    (workspace / "AGENTS.md").unlink()
    os.mkfifo(workspace / "AGENTS.md")
    with pytest.raises(NoteRefused, match="not a regular file"):
        append_note(workspace, "x")
    with pytest.raises(NoteRefused, match="empty"):
        append_note(workspace, "   ")


def test_a_note_is_told_once_and_again_after_a_fold_took_it(workspace: Path) -> None:
    host = History()
    nested = NestedInstructions(host, workspace)
    nested.note("AGENTS.md", "never edit vendor/")
    host.add(msg.user("hello"))
    nested.add_notes()
    assert host.history[-1].meta[NOTES_KEY] == ["- never edit vendor/"]
    host.add(msg.user("again"))
    nested.add_notes()
    assert host.history[-1].content == "again"
    del host.history[1:]  # a fold took them into a chunk
    host.add(msg.user("after the fold"))
    nested.add_notes()
    assert host.history[-1].content == (
        "[pleat: the user added to AGENTS.md, for this and later sessions]\n- never edit vendor/"
    )
