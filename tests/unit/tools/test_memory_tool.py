"""The memory tool: view, add, replace and remove change pleat's own file only; a secret given to
it is never on disk (nor in its answer, nor in the call's title); a bad call says why and
changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessions.memory_store import WorkspaceMemory
from tools.base import ToolContext, ToolError
from tools.memory import MemoryTool
from tools.registry import ToolRegistry

# A key of Anthropic's shape (sessions/redact.py knows it), made up for the test.
SECRET = "sk-ant-api03-Zq8vN2xT5kW1pR7mB4cY9hL3dF6gJ0sA"


def all_files(root: Path) -> bytes:
    """Every byte of every file under `root`."""
    return b"".join(
        (Path(folder) / name).read_bytes()
        for folder, _, names in os.walk(root)
        for name in names
        if not (Path(folder) / name).is_fifo()
    )


@pytest.fixture
def tool(workspace: Path) -> MemoryTool:
    return MemoryTool(WorkspaceMemory.of(workspace))


async def call(tool: MemoryTool, workspace: Path, **args: str) -> str:
    return (await tool.run(args, ToolContext(workspace))).text


async def test_add_view_replace_remove(tool: MemoryTool, workspace: Path) -> None:
    assert await call(tool, workspace, command="view") == "The memory is empty."
    said = await call(tool, workspace, command="add", text="The user wants tabs, not spaces")
    assert said == "Added to the memory (line 1): - The user wants tabs, not spaces"
    await call(tool, workspace, command="add", text="## Project\n- tests: pytest -q")
    await call(tool, workspace, command="replace", old="pytest -q", text="pytest -n 0 -q")
    assert await call(tool, workspace, command="view") == (
        "   1  - The user wants tabs, not spaces\n   2  ## Project\n   3  - tests: pytest -n 0 -q"
    )
    said = await call(tool, workspace, command="remove", old="tabs")
    assert said == "Removed from the memory: - The user wants tabs, not spaces"
    assert tool.memory.path.read_text() == "## Project\n- tests: pytest -n 0 -q\n"
    assert not (workspace / "AGENTS.md").exists() and not os.listdir(workspace)


async def test_a_secret_given_to_add_is_not_on_disk(
    tool: MemoryTool, workspace: Path, tmp_path: Path
) -> None:
    args = {"command": "add", "text": f"Deploy with ANTHROPIC key {SECRET} from the vault"}
    said = (await ToolRegistry([tool]).dispatch("memory", args, ToolContext(workspace))).text
    assert SECRET not in said and "secrets are never kept in memory" in said
    assert SECRET not in tool.describe_call(args)
    assert tool.memory.path.read_text() == "- Deploy with ANTHROPIC key [REDACTED] from the vault\n"
    await call(tool, workspace, command="replace", old="vault", text=f"vault, token={SECRET}")
    assert SECRET.encode() not in all_files(tmp_path)


async def test_a_bad_call_says_why_and_changes_nothing(tool: MemoryTool, workspace: Path) -> None:
    await call(tool, workspace, command="add", text="- run ruff before committing")
    await call(tool, workspace, command="add", text="- run mypy before committing")
    before = tool.memory.path.read_text()
    for args, why in (
        ({"command": "add"}, "memory add needs `text`"),
        ({"command": "add", "text": "- run ruff before committing"}, "already in the memory"),
        ({"command": "remove", "old": "black"}, "`old` is not in the memory"),
        ({"command": "remove", "old": "before committing"}, "in the memory 2 times"),
        ({"command": "replace", "old": "ruff"}, "memory replace needs `text`"),
    ):
        with pytest.raises(ToolError, match=why):
            await tool.run(args, ToolContext(workspace))
    out = await ToolRegistry([tool]).dispatch(
        "memory", {"command": "forget"}, ToolContext(workspace)
    )
    assert out.is_error
    assert tool.memory.path.read_text() == before


@pytest.mark.parametrize(
    "steps",
    [
        # A key whose halves are harmless alone: the memory's whole text is what is checked.
        [("add", "", "deploy key sk-ant-api03-Zq8"), ("replace", "Zq8", "Zq8vN2xT5kW")],
        # Secrets of no known format: an env-file line, a Stripe key, base64 of a key.
        [("add", "", "FOO_TOKEN=abcdefghijklmnopqrstuv")],
        [("add", "", "export STRIPE_KEY=sk_live_51HxYzAbCdEf1234567890abcd")],
        [("add", "", "DB_PASS=Zq8vN2xT5kW1pR7m")],
        [("add", "", "key c2stYW50LWFwaTAzLVpxOHZOMnhUNWtXMXBSN21CNGNZOWhMM2RGNmdKMHNB")],
    ],
)
async def test_secrets_of_any_shape_and_built_in_steps_are_not_kept(
    tool: MemoryTool, workspace: Path, tmp_path: Path, steps: list[tuple[str, str, str]]
) -> None:
    said = ""
    for command, old, text in steps:
        args = {"command": command, "text": text} | ({"old": old} if old else {})
        said = await call(tool, workspace, **args)
    kept = tool.memory.path.read_text()
    assert "[REDACTED]" in kept and "secrets are never kept in memory" in said, kept
    for secret in ("Zq8vN2xT5kW", "qrstuv", "51HxYz", "Zq8vN2xT5kW1", "c2stYW50"):
        assert secret.encode() not in all_files(tmp_path)


async def test_plain_notes_are_kept_as_written(tool: MemoryTool, workspace: Path) -> None:
    notes = (
        "run tests/unit/agent/turn/test_auto_memory.py with -n 0",
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 turns it off",
        "released at commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "API_KEY comes from the vault, never from .env",
    )
    for note in notes:
        said = await call(tool, workspace, command="add", text=note)
        assert "REDACTED" not in said
    assert tool.memory.path.read_text() == "".join(f"- {note}\n" for note in notes)


async def test_control_characters_are_not_written(tool: MemoryTool, workspace: Path) -> None:
    await call(tool, workspace, command="add", text="tabs\x1b]52;c;ZXZpbA==\x07 \u202eplease\x9b2J")
    assert tool.memory.path.read_text() == "- tabs]52;c;ZXZpbA== please2J\n"


async def test_each_change_comes_back_as_a_diff_for_the_front_end(
    tool: MemoryTool, workspace: Path
) -> None:
    out = await tool.run({"command": "add", "text": "use tabs"}, ToolContext(workspace))
    assert "+- use tabs" in out.meta["diff"]
    out = await tool.run(
        {"command": "replace", "old": "tabs", "text": "spaces"}, ToolContext(workspace)
    )
    assert "-- use tabs" in out.meta["diff"] and "+- use spaces" in out.meta["diff"]
    out = await tool.run({"command": "remove", "old": "spaces"}, ToolContext(workspace))
    assert "-- use spaces" in out.meta["diff"]
    assert "diff" not in (await tool.run({"command": "view"}, ToolContext(workspace))).meta
