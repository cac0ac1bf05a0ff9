"""Workspace confinement: traversal, absolute paths and symlinks leading out are refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.base import ToolContext, ToolError
from tools.paths import display_path, resolve_in_workspace
from tools.read_file import ReadFileTool
from tools.write_file import WriteFileTool


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A secret file next to the workspace, never to be reached from it."""
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    return secret


def test_relative_path_resolves_inside(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, "src/a.py") == workspace.resolve() / "src" / "a.py"


def test_root_and_inner_dotdot_are_allowed(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, ".") == workspace.resolve()
    assert resolve_in_workspace(workspace, "a/../b.txt") == workspace.resolve() / "b.txt"


@pytest.mark.parametrize("raw", ["../x", "a/../../x", "..", "./../ws-sibling/file"])
def test_traversal_is_refused(workspace: Path, raw: str) -> None:
    with pytest.raises(ToolError, match="outside the workspace") as caught:
        resolve_in_workspace(workspace, raw)
    assert repr(raw) in str(caught.value)


def test_absolute_path_outside_is_refused(workspace: Path, outside: Path) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(workspace, str(outside))
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(workspace, "/etc/passwd")


def test_absolute_path_inside_is_allowed(workspace: Path) -> None:
    inside = workspace / "notes.txt"
    assert resolve_in_workspace(workspace, str(inside)) == inside.resolve()


def test_symlinked_file_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "link.txt").symlink_to(outside)
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(workspace, "link.txt")


def test_symlinked_directory_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "escape").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(workspace, "escape/secret.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(workspace, "escape/new-file.txt")


def test_symlink_inside_the_workspace_is_followed(workspace: Path) -> None:
    (workspace / "real.txt").write_text("x")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    assert resolve_in_workspace(workspace, "alias.txt") == (workspace / "real.txt").resolve()


def test_workspace_behind_a_symlink_still_works(tmp_path: Path, workspace: Path) -> None:
    via = tmp_path / "via"
    via.symlink_to(workspace, target_is_directory=True)
    assert resolve_in_workspace(via, "a.txt") == workspace.resolve() / "a.txt"
    assert display_path(via, workspace.resolve() / "a.txt") == "a.txt"


def test_symlink_loop_is_a_clear_error(workspace: Path) -> None:
    os.symlink("loop-b", workspace / "loop-a")
    os.symlink("loop-a", workspace / "loop-b")
    with pytest.raises(ToolError, match="loop-a"):
        resolve_in_workspace(workspace, "loop-a")


@pytest.mark.parametrize("raw", ["", "   ", "a\x00b"])
def test_empty_or_nul_paths_are_refused(workspace: Path, raw: str) -> None:
    with pytest.raises(ToolError):
        resolve_in_workspace(workspace, raw)


@pytest.mark.parametrize("name", ["é" * 200, "x" * 256])
def test_a_name_too_long_for_any_file_system_is_a_one_line_error(
    workspace: Path, name: str
) -> None:
    with pytest.raises(ToolError, match="longer than 255 bytes") as caught:
        resolve_in_workspace(workspace, f"src/{name}/a.py")
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300


def test_display_path_is_workspace_relative_posix(workspace: Path) -> None:
    root = workspace.resolve()
    assert display_path(workspace, root / "src" / "a.py") == "src/a.py"
    assert display_path(workspace, root) == "."


def text_of(path: Path) -> str:
    """A file's text (a plain function: blocking file reads stay out of async tests)."""
    return path.read_text()


@pytest.fixture
def escape_link(workspace: Path, outside: Path) -> Path:
    """A directory symlink in the workspace leading to the outside file's directory."""
    (workspace / "escape").symlink_to(outside.parent, target_is_directory=True)
    return outside


async def test_tools_refuse_to_read_or_write_through_an_escaping_link(
    workspace: Path, escape_link: Path
) -> None:
    ctx = ToolContext(workspace)
    with pytest.raises(ToolError, match="outside the workspace"):
        await ReadFileTool().run({"path": "escape/secret.txt"}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await WriteFileTool().run({"path": "escape/secret.txt", "content": "pwned"}, ctx)
    assert text_of(escape_link) == "top secret\n"
