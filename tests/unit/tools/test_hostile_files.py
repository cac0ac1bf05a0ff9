"""Workspace files that lead out or block: instruction files, ignore files, a crafted git index."""

from __future__ import annotations

import asyncio
import hashlib
import os
import struct
import subprocess
import threading
from pathlib import Path

import pytest

import tools.visible_files
from agent.turn.instruction_files import MAX_INSTRUCTIONS_BYTES, project_instructions
from agent.turn.system_prompt import system_prompt
from tools.base import ToolContext
from tools.search import GlobTool, GrepTool
from tools.visible_files import visible_files
from tools.workspace_text import read_workspace_text

# Outer bound on a call that must not hang: far above what it needs, so a hang fails the test
# instead of stalling the suite.
HANG_LIMIT_SECONDS = 30
# git waits on a FIFO .gitignore; the test shortens its time limit to keep the test quick.
TEST_GIT_TIMEOUT_SECONDS = 0.5


@pytest.fixture
def git_repo(workspace: Path, no_git_above: None) -> Path:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    return workspace.resolve()


def git_ls_files(repo: Path) -> str:
    done = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def quick_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tools.visible_files, "GIT_TIMEOUT_SECONDS", TEST_GIT_TIMEOUT_SECONDS)


def test_only_regular_files_inside_the_workspace_are_read(tmp_path: Path, workspace: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("outside secret\n")
    (workspace / "inside.md").write_text("inside\n")
    os.symlink(outside, workspace / "out.md")
    os.symlink("/proc/self/environ", workspace / "env.md")
    os.symlink(workspace / "inside.md", workspace / "link.md")
    os.mkfifo(workspace / "pipe.md")
    (workspace / "dir.md").mkdir()

    def read(name: str) -> tuple[str | None, str | None]:
        found = read_workspace_text(workspace, workspace / name, 1_000)
        return found.text, found.skipped

    assert read("inside.md") == ("inside\n", None)
    assert read("link.md") == ("inside\n", None)  # a link that stays inside is fine
    assert read("absent.md") == (None, None)
    assert read("out.md") == (None, "out.md leads outside the workspace; not read")
    assert read("env.md") == (None, "env.md leads outside the workspace; not read")
    assert read("pipe.md") == (None, "pipe.md is a named pipe, not a file; not read")
    assert read("dir.md") == (None, "dir.md is a directory, not a file; not read")


def test_a_big_file_is_read_only_up_to_the_cap(workspace: Path) -> None:
    (workspace / "big.md").write_bytes(b"x" * 5_000)
    found = read_workspace_text(workspace, workspace / "big.md", 1_000)
    assert found.text == "x" * 1_000 and found.cut


def test_instruction_files_that_lead_out_are_skipped_with_the_reason(
    tmp_path: Path, workspace: Path
) -> None:
    os.symlink("/proc/self/environ", workspace / "AGENTS.md")
    (workspace / "CLAUDE.md").write_text("Use tabs.\n")
    found = project_instructions(workspace)
    assert (found.name, found.text) == ("CLAUDE.md", "Use tabs.\n")
    assert found.skipped == (
        "project instructions skipped: AGENTS.md leads outside the workspace; not read",
    )
    prompt = system_prompt(workspace, ["read_file"])
    assert "Use tabs." in prompt and "PATH=" not in prompt


def test_a_fifo_instruction_file_does_not_block_and_a_huge_one_is_cut(workspace: Path) -> None:
    os.mkfifo(workspace / "AGENTS.md")
    (workspace / "CLAUDE.md").write_text("y" * (MAX_INSTRUCTIONS_BYTES * 3))
    found = project_instructions(workspace)
    assert found.skipped == (
        "project instructions skipped: AGENTS.md is a named pipe, not a file; not read",
    )
    assert found.text is not None and found.text.endswith("cut at 32,000 bytes]")
    assert len(found.text) < MAX_INSTRUCTIONS_BYTES + 100


def fifo_project(root: Path) -> None:
    os.mkfifo(root / ".gitignore")
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / ".gitignore")
    (root / "sub" / "code.py").write_text("needle = 1\n")


async def test_a_fifo_gitignore_blocks_neither_glob_nor_grep_without_git(
    workspace: Path, ctx: ToolContext, no_git_above: None
) -> None:
    fifo_project(workspace)
    found = await asyncio.wait_for(GlobTool().run({"pattern": "**/*.py"}, ctx), HANG_LIMIT_SECONDS)
    assert found.text == "sub/code.py"
    hits = await asyncio.wait_for(GrepTool().run({"pattern": "needle"}, ctx), HANG_LIMIT_SECONDS)
    assert hits.text == "sub/code.py:1: needle = 1"


@pytest.mark.slow  # waits out a (shortened) git time limit
async def test_a_fifo_gitignore_in_a_git_repository_costs_one_git_timeout(
    git_repo: Path, ctx: ToolContext, quick_git: None
) -> None:
    fifo_project(git_repo)
    for _ in range(2):  # the second call no longer asks git
        found = await asyncio.wait_for(
            GlobTool().run({"pattern": "**/*.py"}, ctx), HANG_LIMIT_SECONDS
        )
        assert found.text == "sub/code.py"
    assert git_repo in tools.visible_files._GIT_HUNG
    # `@` completion lists the workspace with the same function, in a thread.
    files = await asyncio.wait_for(
        asyncio.to_thread(visible_files, git_repo, git_repo),
        HANG_LIMIT_SECONDS,
    )
    assert files == ["sub/code.py"]


def index_entry(name: str, sha: bytes) -> bytes:
    """One version-2 git index entry (zero stat data, mode 100644), padded to 8 bytes."""
    encoded = name.encode()
    body = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0)
    body += sha + struct.pack(">H", len(encoded)) + encoded
    return body + b"\x00" * (8 - len(body) % 8)


def write_crafted_index(repo: Path, names: list[str]) -> None:
    """A git index holding `names` as they are: `git update-index` refuses such paths, but
    nothing stops a downloaded repository from shipping this file."""
    empty_blob = hashlib.sha1(b"blob 0\x00").digest()
    names = sorted(names)
    data = b"DIRC" + struct.pack(">II", 2, len(names))
    data += b"".join(index_entry(name, empty_blob) for name in names)
    (repo / ".git" / "index").write_bytes(data + hashlib.sha1(data).digest())


async def test_a_crafted_git_index_lists_nothing_outside_the_workspace(
    tmp_path: Path, git_repo: Path, ctx: ToolContext
) -> None:
    workspace = git_repo
    (tmp_path / "outside.txt").write_text("needle outside\n")
    (workspace / "ok.txt").write_text("needle inside\n")
    write_crafted_index(
        workspace, ["../outside.txt", "/etc/hostname", "a/../../outside.txt", "ok.txt"]
    )
    assert "../outside.txt" in git_ls_files(workspace)  # git itself lists the crafted entries
    found = await GlobTool().run({"pattern": "**"}, ctx)
    assert found.text == "ok.txt"
    hits = await GrepTool().run({"pattern": "needle"}, ctx)
    assert hits.text == "ok.txt:1: needle inside"


def test_a_stopped_search_kills_a_waiting_git_at_once(git_repo: Path) -> None:
    """git waits on the FIFO; setting `stop` (a cancelled tool call) kills it instead of
    waiting out the time limit, and the workspace is not marked as one where git hangs."""
    fifo_project(git_repo)
    stop = threading.Event()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    try:
        files = visible_files(git_repo, git_repo, stop=stop)
    finally:
        timer.cancel()
    assert files == [] and stop.is_set()
    assert git_repo not in tools.visible_files._GIT_HUNG
