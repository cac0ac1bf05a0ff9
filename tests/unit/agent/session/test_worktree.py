"""Worktrees on real git repositories in temporary directories: leaving a `--worktree` session
(asked only when something changed), `/worktree`'s list, the git paths the sandbox opens (only a
worktree pleat made), a definition's `isolation`, and `--worktree` outside a repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent.commands.builtin import BY_NAME
from agent.events import CommandOutput
from agent.session.worktree import enter_worktree, in_worktree, leave_worktree
from agent.slash.context import CommandContext
from agent.slash.dispatch import run_builtin
from agent.slash.no_screens import NoScreens
from agent.subagents.definitions import WORKTREE, load_definitions
from agent.turn.auto_memory import memory_section, workspace_memory
from tests.support.git_support import git, git_repo
from tests.support.pleat_process import pleat
from tools.git_worktrees import create_worktree
from tools.sandbox.worktree_paths import worktree_git_paths


def branches(repo: Path) -> list[str]:
    return git(repo, "branch", "--format=%(refname:short)", "--list", "pleat/*").split()


def test_leaving_asks_only_when_something_changed(workspace: Path) -> None:
    git_repo(workspace)
    asked: list[str] = []

    def answer(reply: str) -> Callable[[str], str]:
        def ask(question: str) -> str:
            asked.append(question)
            return reply

        return ask

    clean, _ = enter_worktree(workspace, "clean")
    committed, said = enter_worktree(workspace, "committed")
    assert said.startswith("working in a new worktree committed (branch pleat/committed)")
    (committed.path / "a.txt").write_text("a\n")
    git(committed.path, "add", "a.txt")
    git(committed.path, "commit", "-qm", "a")
    dirty, _ = enter_worktree(workspace, "dirty")
    (dirty.path / "b.txt").write_text("b\n")

    line = leave_worktree(clean, answer("keep"))
    assert asked == [] and not clean.path.exists()
    assert line == "removed worktree clean and its branch: nothing changed in it"
    line = leave_worktree(committed, answer(""))  # Enter: keep, the default
    assert "has changes (1 commit(s), 0 uncommitted file(s)). Keep it?" in asked[0]
    assert line.startswith("kept worktree committed (branch pleat/committed)")
    line = leave_worktree(dirty, answer("r"))
    assert "0 commit(s), 1 uncommitted file(s)" in asked[1]
    assert line.startswith("removed worktree dirty") and not dirty.path.exists()
    assert branches(workspace) == ["pleat/committed"] and committed.path.is_dir()
    assert leave_worktree(committed).startswith("kept worktree committed")  # nobody to ask
    assert git(workspace, "status", "--porcelain") == ""  # .pleat/worktrees is excluded


async def test_worktree_lists_what_pleat_made_with_its_state(workspace: Path) -> None:
    git_repo(workspace)
    changed, _ = create_worktree(workspace, "changed")
    (changed.path / "README").write_text("new\n")
    create_worktree(workspace, "quiet")
    git(workspace, "worktree", "add", "-q", "-b", "mine", str(workspace.parent / "mine"))
    ctx = CommandContext(changed.path, NoScreens())
    events = [e async for e in run_builtin(ctx, BY_NAME["worktree"], "")]
    (output,) = [e for e in events if isinstance(e, CommandOutput)]
    lines = output.text.splitlines()
    assert lines[0] == f"Worktrees pleat made in {workspace}:"
    assert lines[1] == (
        f"- changed  branch pleat/changed  changed: 0 commit(s), 1 uncommitted file(s)  "
        f"{changed.path}  (this session)"
    )
    assert lines[2].startswith("- quiet  branch pleat/quiet  clean  ") and len(lines) == 3
    refused = [e async for e in run_builtin(ctx, BY_NAME["worktree"], "extra")]
    assert ctx.outcome == "refused" and isinstance(refused[0], CommandOutput)


async def test_worktree_outside_a_repository_fails_in_one_line(
    workspace: Path, no_git_above: None
) -> None:
    ctx = CommandContext(workspace, NoScreens())
    (output,) = [e async for e in run_builtin(ctx, BY_NAME["worktree"], "")]
    assert isinstance(output, CommandOutput) and output.failed and ctx.outcome == "failed"
    assert output.text == f"{workspace} is not in a git repository"


def test_the_flag_outside_a_repository_is_one_line_and_exit_code_2(
    workspace: Path, no_git_above: None
) -> None:
    done = pleat("-p", "hi", "--worktree", "x", "--cwd", str(workspace))
    assert done.returncode == 2
    assert done.stderr == f"pleat: error: --worktree: {workspace} is not in a git repository\n"


def test_the_sandbox_opens_git_metadata_only_for_a_worktree_pleat_made(
    workspace: Path, tmp_path: Path
) -> None:
    git_repo(workspace)
    made, _ = create_worktree(workspace, "made")
    common = workspace / ".git"
    assert worktree_git_paths(made.path) == (
        common / "worktrees" / "made",
        common / "objects",
        common / "refs" / "heads" / "pleat",
        common / "logs" / "refs" / "heads" / "pleat",
    )
    assert worktree_git_paths(workspace) == ()  # the main checkout: its .git is inside it
    own = tmp_path / "own"  # a worktree the user made elsewhere
    git(workspace, "worktree", "add", "-q", "-b", "pleat/own", str(own))
    assert worktree_git_paths(own) == ()
    # A `.git` file planted in a downloaded directory that looks like one of pleat's.
    planted = tmp_path / "x" / ".pleat" / "worktrees" / "made"
    planted.mkdir(parents=True)
    (planted / ".git").write_text(f"gitdir: {common / 'worktrees' / 'made'}\n")
    assert worktree_git_paths(planted) == ()
    beside = workspace / ".pleat" / "worktrees" / "beside"  # in the right place, but no link back
    beside.mkdir()
    (beside / ".git").write_text(f"gitdir: {common / 'worktrees' / 'made'}\n")
    assert worktree_git_paths(beside) == ()


@pytest.mark.parametrize(("value", "isolation"), [("worktree", WORKTREE), ("none", None)])
def test_a_definitions_isolation(workspace: Path, value: str, isolation: str | None) -> None:
    agents = workspace / ".pleat" / "agents"
    agents.mkdir(parents=True)
    (agents / "a.md").write_text(f"---\ndescription: d\nisolation: {value}\n---\nbody\n")
    (agents / "b.md").write_text("---\ndescription: d\nisolation: container\n---\nbody\n")
    found = load_definitions(workspace, ["read_file"])
    assert found.agents["a"].isolation == isolation and found.agents["b"].isolation is None
    assert any("isolation 'container' unknown (worktree is)" in note for note in found.notes)


def test_from_a_subdirectory_the_session_works_in_the_same_one(workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    git_repo(workspace, {"README": b"r\n", "pkg/app.py": b"x = 1\n"})
    ran: list[Path] = []

    def run(path: Path, said: str) -> int:
        ran.append(path)
        return 0

    assert in_worktree(workspace / "pkg", "sub", run, interactive=False) == 0
    assert ran == [workspace / ".pleat" / "worktrees" / "sub" / "pkg"]


def test_a_worktree_session_shares_its_repositorys_auto_memory(workspace: Path) -> None:
    """What the repository's sessions taught the memory reaches a `--worktree` session (from a
    subdirectory too), and what it learns there stays the repository's."""
    (workspace / "pkg").mkdir()
    git_repo(workspace, {"README": b"r\n", "pkg/app.py": b"x = 1\n"})
    workspace_memory(workspace / "pkg").change(lambda text: text + "The user wants tabs in pkg.\n")
    worktree, _ = create_worktree(workspace, "mem")
    inside = worktree.path / "pkg"
    assert "tabs in pkg" in "\n".join(memory_section(inside))
    workspace_memory(inside).change(lambda text: text + "The user runs pytest with -x.\n")
    assert "pytest with -x" in workspace_memory(workspace / "pkg").read().text
    # Outside pleat's worktrees, a directory is its own workspace.
    assert workspace_memory(workspace).directory != workspace_memory(workspace / "pkg").directory


def test_two_sessions_in_one_worktree_the_last_to_leave_removes_it(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pleat -w feat` twice at once: the first to leave finds the other still working there
    and keeps the worktree; the last one removes it (nothing changed)."""
    git_repo(workspace)
    paths: list[Path] = []

    def second_session(path: Path, said: str) -> int:
        paths.append(path)
        return 0

    def first_session(path: Path, said: str) -> int:
        paths.append(path)
        return in_worktree(workspace, "feat", second_session, interactive=False)

    # The second session runs (and leaves) while the first still works in the worktree.
    assert in_worktree(workspace, "feat", first_session, interactive=False) == 0
    second, first = capsys.readouterr().err.splitlines()[-2:]
    assert paths[0] == paths[1] and not paths[0].exists()
    assert second.startswith("pleat: kept worktree feat at ") and "another pleat works" in second
    assert first == "pleat: removed worktree feat and its branch: nothing changed in it"
