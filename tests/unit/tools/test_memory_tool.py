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
