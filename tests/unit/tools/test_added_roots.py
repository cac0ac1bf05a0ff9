"""Directories the user added beside the workspace (tools/base.py extra_roots): every file tool
takes their paths as the workspace's, each confined to the root it lies in, and nothing else."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tools.base import ToolContext, ToolError
from tools.edit_file import EditFileTool
from tools.file_restore import current, in_root, put_back
from tools.list_dir import ListDirTool
from tools.paths import display_path, resolve_in_roots, resolve_in_workspace, root_of
from tools.read_file import ReadFileTool
from tools.search import GlobTool, GrepTool
from tools.write_file import WriteFileTool


@pytest.fixture
def added(tmp_path: Path) -> Path:
    """A directory beside the workspace, holding one file."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("shared notes\n")
    return other.resolve()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A secret beside both, in no root."""
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    return secret


@pytest.fixture
def wide(ctx: ToolContext, added: Path) -> ToolContext:
    return dataclasses.replace(ctx, extra_roots=(added,))


def test_a_path_in_an_added_directory_resolves_to_its_root(workspace: Path, added: Path) -> None:
    path, root = resolve_in_roots(workspace, str(added / "notes.txt"), (added,))
    assert (path, root) == (added / "notes.txt", added)
    assert display_path(workspace, path) == str(added / "notes.txt")  # shown absolute
    inside, its_root = resolve_in_roots(workspace, "a.txt", (added,))
    assert its_root == workspace.resolve() and display_path(workspace, inside) == "a.txt"


def test_without_the_added_directory_the_same_path_is_refused(workspace: Path, added: Path) -> None:
    with pytest.raises(ToolError, match=r"outside the workspace \(.*\); access refused"):
        resolve_in_workspace(workspace, str(added / "notes.txt"))


def test_a_path_in_neither_is_refused_naming_the_added_directories(
    workspace: Path, added: Path, outside: Path
) -> None:
    with pytest.raises(ToolError) as caught:
        resolve_in_workspace(workspace, str(outside), (added,))
    assert f"and the added directories ({added})" in str(caught.value)
    assert root_of(workspace, outside, (added,)) is None


@pytest.mark.parametrize("escape", ["{added}/../secret.txt", "{added}/sub/../../secret.txt"])
def test_dotdot_out_of_an_added_directory_is_refused(
    workspace: Path, added: Path, outside: Path, escape: str
) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(workspace, escape.format(added=added), (added,))


def test_a_symlink_out_of_an_added_directory_is_refused(
    workspace: Path, added: Path, outside: Path
) -> None:
    (added / "link.txt").symlink_to(outside)
    (added / "door").symlink_to(outside.parent, target_is_directory=True)
    for raw in (added / "link.txt", added / "door" / "secret.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            resolve_in_workspace(workspace, str(raw), (added,))


def test_the_deepest_added_directory_is_the_root(workspace: Path, added: Path) -> None:
    inner = added / "inner"
    inner.mkdir()
    assert root_of(workspace, inner / "x", (added, inner)) == inner


async def test_read_write_edit_and_list_work_in_an_added_directory(
    wide: ToolContext, added: Path
) -> None:
    target = str(added / "new" / "made.txt")
    written = await WriteFileTool().run({"path": target, "content": "one\n"}, wide)
    assert written.text == f"created {target} (1 lines, 4 bytes)"
    assert (added / "new" / "made.txt").read_text() == "one\n"
    edited = await EditFileTool().run(
        {"path": target, "old_string": "one", "new_string": "two"}, wide
    )
    assert edited.facts.files_edited == (target,)
    read = await ReadFileTool().run({"path": target}, wide)
    assert read.text == "     1\ttwo"
    listed = await ListDirTool().run({"path": str(added)}, wide)
    assert listed.text.splitlines() == ["new/", "notes.txt"]


async def test_the_same_tools_refuse_it_without_the_added_directory(
    ctx: ToolContext, added: Path
) -> None:
    for tool, args in (
        (ReadFileTool(), {"path": str(added / "notes.txt")}),
        (WriteFileTool(), {"path": str(added / "x.txt"), "content": "x"}),
        (ListDirTool(), {"path": str(added)}),
        (GrepTool(), {"pattern": "shared", "path": str(added)}),
    ):
        with pytest.raises(ToolError, match="outside the workspace"):
            await tool.run(args, ctx)
    assert not (added / "x.txt").exists()


async def test_grep_and_glob_show_an_added_directorys_files_absolute(
    wide: ToolContext, added: Path, workspace: Path
) -> None:
    (workspace / "own.txt").write_text("shared here too\n")
    found = await GrepTool().run({"pattern": "shared", "path": str(added)}, wide)
    assert found.text.splitlines()[0] == f"{added}/notes.txt:1: shared notes"
    globbed = await GlobTool().run({"pattern": "*.txt", "path": str(added)}, wide)
    assert globbed.text.splitlines()[0] == f"{added}/notes.txt"
    own = await GrepTool().run({"pattern": "shared"}, wide)  # the workspace, as before
    assert own.text.splitlines()[0] == "own.txt:1: shared here too"


async def test_a_write_through_a_symlink_out_of_an_added_directory_is_refused(
    wide: ToolContext, added: Path, outside: Path
) -> None:
    (added / "door").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(ToolError, match="outside the workspace"):
        await WriteFileTool().run({"path": str(added / "door" / "secret.txt"), "content": ""}, wide)
    assert untouched(outside)


def untouched(secret: Path) -> bool:
    return secret.read_text() == "top secret\n"


def test_undo_reads_and_puts_back_a_file_of_an_added_directory(
    workspace: Path, added: Path
) -> None:
    kept = str(added / "notes.txt")
    assert current(workspace, kept, (added,)).data == b"shared notes\n"
    put_back(workspace, kept, b"old\n", "100644", extra_roots=(added,))
    assert (added / "notes.txt").read_text() == "old\n"
    put_back(workspace, str(added / "d" / "n.txt"), b"x", None, extra_roots=(added,))
    put_back(workspace, str(added / "d" / "n.txt"), None, None, str(added / "d"), (added,))
    assert not (added / "d").exists()  # the directory made for it went with it


@pytest.mark.parametrize("kept", ["{added}/notes.txt", "{added}/../secret.txt", "../secret.txt"])
def test_undo_reaches_nothing_outside_the_added_directories_of_this_run(
    workspace: Path, added: Path, outside: Path, kept: str
) -> None:
    raw = kept.format(added=added)
    with pytest.raises(ToolError, match="cannot reach"):
        in_root(workspace, raw)  # not added to this run (or climbing out): refused
    with pytest.raises(ToolError, match="cannot reach"):
        put_back(workspace, raw, b"overwritten", None)
    assert outside.read_text() == "top secret\n"
    assert (added / "notes.txt").read_text() == "shared notes\n"
