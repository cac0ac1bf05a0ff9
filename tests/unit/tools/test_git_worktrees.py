"""pleat's worktrees against what a confined command may have left in them (found by review):
pleat's own git, which runs unconfined, runs nothing a worktree's git files name; a worktree is
never made through a planted symbolic link; work on its branch is never removed unasked."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.git_support import git, git_repo
from tools.git_worktrees import (
    WorktreeError,
    changes,
    create_worktree,
    remove_worktree,
    workspace_in,
)
from tools.sandbox.worktree_paths import worktree_git_paths

# A filter command that leaves a mark when it runs (it passes the file through).
MARKING_FILTER = "touch {mark}; cat"


def test_a_redirected_common_dir_runs_no_filter_when_pleat_looks_at_the_worktree(
    workspace: Path, tmp_path: Path
) -> None:
    git_repo(workspace, {"a.txt": b"hello\n"})
    made, _ = create_worktree(workspace, "x")
    mark = tmp_path / "ran"
    # What a command confined to the worktree (and its .git/worktrees/x) can do: a repository
    # of its own in the worktree, whose config names a clean filter, made the worktree's common
    # directory; and a .gitattributes naming that filter for a file whose times it changes.
    own = made.path / "own"
    shutil.copytree(workspace / ".git", own, ignore=shutil.ignore_patterns("worktrees"))
    with (own / "config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = {MARKING_FILTER.format(mark=mark)}\n')
    (workspace / ".git" / "worktrees" / "x" / "commondir").write_text(f"{own}\n")
    (made.path / ".gitattributes").write_text("a.txt filter=x\n")
    os.utime(made.path / "a.txt", (1, 1))

    with pytest.raises(WorktreeError, match="its git links were changed"):
        changes(made)  # so it is kept, and said so
    assert not mark.exists()


def test_a_filter_in_the_worktrees_own_config_does_not_run(workspace: Path, tmp_path: Path) -> None:
    git_repo(workspace, {"a.txt": b"hello\n"})
    git(workspace, "config", "extensions.worktreeConfig", "true")  # the user's setting
    made, _ = create_worktree(workspace, "x")
    mark = tmp_path / "ran"
    # The worktree's config.worktree lies in its git directory, which its commands may write.
    config = workspace / ".git" / "worktrees" / "x" / "config.worktree"
    config.write_text(f'[filter "x"]\n\tclean = {MARKING_FILTER.format(mark=mark)}\n')
    (made.path / ".gitattributes").write_text("a.txt filter=x\n")
    os.utime(made.path / "a.txt", (1, 1))

    found = changes(made)

    assert not mark.exists()
    assert found.files == 1 and found.commits == 0  # the new .gitattributes


def test_a_filter_in_the_repositorys_config_runs_neither_at_checkout_nor_at_status(
    workspace: Path, tmp_path: Path
) -> None:
    mark = tmp_path / "ran"
    git_repo(workspace, {"a.txt": b"hello\n", ".gitattributes": b"a.txt filter=x\n"})
    for kind in ("clean", "smudge"):  # as a command in an earlier session could write it
        git(workspace, "config", f"filter.x.{kind}", MARKING_FILTER.format(mark=mark))
    git(workspace, "config", "submodule.recurse", "true")

    made, _ = create_worktree(workspace, "x")
    os.utime(made.path / "a.txt", (1, 1))
    found = changes(made)

    assert not mark.exists()
    assert (made.path / "a.txt").read_text() == "hello\n" and not found.any


def test_a_worktree_is_never_made_through_a_planted_symbolic_link(
    workspace: Path, tmp_path: Path
) -> None:
    git_repo(workspace)
    elsewhere = tmp_path / "plugins"  # a directory some program loads code from
    elsewhere.mkdir()
    (workspace / ".pleat").mkdir()
    (workspace / ".pleat" / "worktrees").symlink_to(elsewhere)

    with pytest.raises(WorktreeError, match="is a symbolic link"):
        create_worktree(workspace, "x")
    assert list(elsewhere.iterdir()) == []


def test_commits_on_the_branch_count_though_head_moved_away(workspace: Path) -> None:
    git_repo(workspace)
    made, _ = create_worktree(workspace, "x")
    (made.path / "a.txt").write_text("a\n")
    git(made.path, "add", "a.txt")
    git(made.path, "commit", "-qm", "work")
    git(made.path, "checkout", "-q", "--detach", made.base or "")  # back where it started

    assert changes(made).any  # its branch holds a commit: not "nothing changed"


def test_removing_one_worktree_prunes_no_other(workspace: Path, tmp_path: Path) -> None:
    git_repo(workspace)
    made, _ = create_worktree(workspace, "x")
    git(workspace, "worktree", "lock", str(made.path))
    shutil.rmtree(made.path)
    theirs = tmp_path / "usb" / "theirs"  # the user's, on a drive not mounted now
    git(workspace, "worktree", "add", "-q", "-b", "theirs", str(theirs))
    shutil.rmtree(theirs)

    with pytest.raises(WorktreeError, match="locked"):  # a locked worktree stays
        remove_worktree(made)
    assert (workspace / ".git" / "worktrees" / "theirs").is_dir()


def test_a_filter_whose_name_holds_an_equals_sign_is_refused_not_run(
    workspace: Path, tmp_path: Path
) -> None:
    mark = tmp_path / "ran"
    git_repo(workspace, {"a.txt": b"hello\n", ".gitattributes": b"a.txt filter=a=b\n"})
    # `-c filter.a=b.smudge=` would set filter.a to "b.smudge=": the filter would still run.
    git(workspace, "config", "filter.a=b.smudge", MARKING_FILTER.format(mark=mark))

    with pytest.raises(WorktreeError, match="filter drivers cannot be turned off"):
        create_worktree(workspace, "x")
    assert not mark.exists() and not (workspace / ".pleat" / "worktrees" / "x").exists()


def test_relative_links_as_git_writes_them_with_use_relative_paths(workspace: Path) -> None:
    git_repo(workspace)
    made, _ = create_worktree(workspace, "x")
    gitdir = workspace / ".git" / "worktrees" / "x"
    # git 2.48's worktree.useRelativePaths: each link relative to the file's directory.
    (made.path / ".git").write_text("gitdir: ../../../.git/worktrees/x\n")
    (gitdir / "gitdir").write_text("../../../.pleat/worktrees/x/.git\n")

    assert worktree_git_paths(made.path)[0] == gitdir


def test_a_workspace_in_a_subdirectory_works_in_the_same_one_of_the_worktree(
    workspace: Path,
) -> None:
    (workspace / "pkg").mkdir()
    git_repo(workspace, {"README": b"r\n", "pkg/app.py": b"x = 1\n"})
    made, _ = create_worktree(workspace / "pkg", "x")

    assert workspace_in(made, workspace / "pkg") == made.path / "pkg"
    assert workspace_in(made, workspace) == made.path
    # Its commands may commit from there: the sandbox finds the worktree above it.
    assert worktree_git_paths(made.path / "pkg") == worktree_git_paths(made.path) != ()
    (workspace / "ignored").mkdir()  # not in the worktree's checkout: its root, then
    assert workspace_in(made, workspace / "ignored") == made.path


def test_a_planted_exclude_link_is_not_written_through(workspace: Path, tmp_path: Path) -> None:
    git_repo(workspace)
    target = tmp_path / "bashrc"  # as a command in an earlier session could point it
    target.write_text("echo hi\n")
    exclude = workspace / ".git" / "info" / "exclude"
    exclude.unlink(missing_ok=True)
    exclude.symlink_to(target)

    with pytest.raises(WorktreeError, match="symbolic link"):
        create_worktree(workspace, "x")
    assert target.read_text() == "echo hi\n"
