"""Agent definitions: the front matter subset, where definitions come from, hostile files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.subagents.definitions import (
    MAX_DEFINITION_BYTES,
    MAX_DESCRIPTION_CHARS,
    MAX_OFFERED,
    load_definitions,
)
from sessions import said_once
from sessions.said_once import SAID_FILE, first_time

TOOLS = ["read_file", "list_dir", "glob", "grep", "edit_file", "write_file", "run_command"]


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


def definition(name: str = "", description: str = "does things", body: str = "Do it.") -> str:
    lines = [f"name: {name}"] if name else []
    return "\n".join(["---", *lines, f"description: {description}", "---", body, ""])


# -- where definitions come from ----------------------------------------------------------------


def test_definitions_come_from_the_project_then_the_user_first_found_wins(
    workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write(workspace / ".pleat" / "agents", "a.md", definition("same", "from .pleat"))
    write(workspace / ".claude" / "agents", "b.md", definition("same", "from .claude"))
    write(workspace / ".claude" / "agents", "claude-only.md", definition())
    write(pleat_home / "agents", "mine.md", definition("mine", "from PLEAT_HOME"))
    write(home / ".claude" / "agents", "theirs.md", definition(description="from ~/.claude"))
    found = load_definitions(workspace, TOOLS, home=home)
    assert found.notes == []
    assert found.agents["same"].description == "from .pleat"
    assert found.agents["claude-only"].prompt == "Do it."  # the file's name, when none is given
    assert found.agents["mine"].description == "from PLEAT_HOME"
    assert found.agents["theirs"].description == "from ~/.claude"
    assert [name for name, _ in found.offered()] == ["claude-only", "mine", "same", "theirs"]


def test_tools_and_models_are_read_as_claude_code_writes_them(workspace: Path) -> None:
    agents = workspace / ".claude" / "agents"
    write(agents, "a.md", "---\ndescription: d\ntools: Read, Bash, LS, task, Teleport\n---\n")
    write(agents, "b.md", "---\ndescription: d\nmodel: sonnet\n---\n")
    write(agents, "c.md", "---\ndescription: d\nmodel: openai/gpt-4o-mini\ntools: grep\n---\n")
    write(agents, "d.md", "---\ndescription: d\nmodel: inherit\ntools:\n---\n")
    found = load_definitions(workspace, TOOLS, home=workspace)
    assert found.agents["a"].tools == ("read_file", "run_command", "list_dir")
    assert found.agents["b"].model is None and found.agents["b"].tools is None
    assert (found.agents["c"].model, found.agents["c"].tools) == ("openai/gpt-4o-mini", ("grep",))
    assert (found.agents["d"].model, found.agents["d"].tools) == (None, None)
    assert len(found.notes) == 2
    assert "no tool named Teleport; left out" in found.notes[0]
    assert "'sonnet' is a Claude Code alias" in found.notes[1]


def test_a_claude_code_alias_is_noted_once_for_each_content_of_its_file(
    workspace: Path, pleat_home: Path
) -> None:
    agents = workspace / ".claude" / "agents"
    write(agents, "fast.md", "---\ndescription: quick\nmodel: haiku\n---\n")
    write(agents, "deep.md", "---\ndescription: slow\nmodel: opus\n---\n")

    def alias_notes() -> list[str]:
        found = load_definitions(workspace, TOOLS, home=workspace)
        assert found.agents["fast"].model is None and found.agents["deep"].model is None
        return [note for note in found.notes if "Claude Code alias" in note]

    first = alias_notes()
    assert len(first) == 2 and "'opus'" in first[0] and "'haiku'" in first[1]
    assert alias_notes() == []  # the next start says nothing
    write(agents, "fast.md", "---\ndescription: quicker\nmodel: haiku\n---\n")
    assert alias_notes() == [first[1]]  # a changed file is told about again, once
    assert alias_notes() == []


def test_a_note_is_said_again_rather_than_lost_when_it_cannot_be_remembered(
    pleat_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pleat_home.mkdir()
    said = pleat_home / SAID_FILE
    said.write_text("[not json")  # damaged: the memory starts over
    assert first_time("note", "file") and not first_time("note", "file")
    assert first_time("note", "another file") and first_time("another note", "file")
    monkeypatch.setattr(said_once, "MAX_REMEMBERED", 2)  # the oldest is forgotten first
    assert first_time("a third note") and first_time("note", "file")
    said.unlink()
    said.mkdir()  # cannot be written: every note is new
    assert first_time("note") and first_time("note")


def test_mcp_tools_are_taken_as_written_though_their_servers_have_not_started(
    workspace: Path,
) -> None:
    agents = workspace / ".claude" / "agents"
    listed = "Read, mcp__echo__echo, mcp__docs, mcp__bad name, Teleport"
    write(agents, "a.md", f"---\ndescription: d\ntools: {listed}\n---\n")
    found = load_definitions(workspace, TOOLS, home=workspace)  # no MCP tool is available yet
    assert found.agents["a"].tools == ("read_file", "mcp__echo__echo", "mcp__docs")
    assert len(found.notes) == 1
    assert found.notes[0].endswith("no tool named mcp__bad name, Teleport; left out")


def test_a_file_that_cannot_be_used_is_skipped_with_a_note_and_the_rest_load(
    workspace: Path, tmp_path: Path
) -> None:
    agents = workspace / ".pleat" / "agents"
    write(agents, "good.md", definition())
    write(agents, "nodesc.md", "---\nname: nodesc\n---\nbody\n")
    write(agents, "badname.md", definition("bad name!"))
    write(agents, "reserved.md", definition("general-purpose"))
    write(agents, "big.md", definition(body="x" * MAX_DEFINITION_BYTES))
    write(agents, "torn.md", "---\nname: torn\n")
    (tmp_path / "outside.md").write_text(definition("outside"))
    (agents / "link.md").symlink_to(tmp_path / "outside.md")
    os.mkfifo(agents / "pipe.md")  # opening it must not block the start
    (agents / "dir.md").mkdir()
    found = load_definitions(workspace, TOOLS, home=workspace)
    assert list(found.agents) == ["good"]
    notes = "\n".join(found.notes)
    for name, why in [
        ("nodesc.md", "no description"),
        ("badname.md", "is not a plain word"),
        ("reserved.md", "pleat's own agent"),
        ("big.md", f"larger than {MAX_DEFINITION_BYTES:,} bytes"),
        ("torn.md", "no closing ---"),
        ("link.md", "leads outside"),
        ("pipe.md", "a named pipe"),
        ("dir.md", "a directory"),
    ]:
        assert any(name in line and why in line for line in found.notes), (name, notes)


def test_a_definitions_directory_leading_outside_the_project_is_not_read(
    workspace: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "x.md", definition("x"))
    (workspace / ".pleat").mkdir()
    (workspace / ".pleat" / "agents").symlink_to(elsewhere)
    found = load_definitions(workspace, TOOLS, home=workspace)
    assert found.agents == {} and "leads outside" in found.notes[0]


def test_the_offer_is_bounded_and_stable(workspace: Path) -> None:
    agents = workspace / ".pleat" / "agents"
    for n in range(MAX_OFFERED + 5):
        write(agents, f"agent-{n:02d}.md", definition(description="w" * 500))
    found = load_definitions(workspace, TOOLS, home=workspace)
    offered = found.offered()
    assert [name for name, _ in offered] == [f"agent-{n:02d}" for n in range(MAX_OFFERED)]
    assert all(len(about) == MAX_DESCRIPTION_CHARS for _, about in offered)
    assert found.notes == [
        f"5 agent definitions past the first {MAX_OFFERED} (by name) not offered to the model"
    ]
    assert load_definitions(workspace, TOOLS, home=workspace).offered() == offered
