"""The git metadata a command in one of pleat's worktrees must write to commit there, and nothing
more: a linked worktree keeps its index and HEAD in the main repository's `.git/worktrees/NAME`,
its objects in `.git/objects` and its branch in `.git/refs/heads/pleat/`, all outside the
worktree the sandbox lets it change (tools/git_worktrees.py makes these worktrees).

Read from files, without running git (a sandbox is made at every session start): the
worktree's `.git` file names its git directory, whose `commondir` names the repository's, and
each link is checked against the other, so a `.git` file planted in a downloaded directory opens
nothing: the workspace must be `<repo>/.pleat/worktrees/NAME`, its git directory
`<repo>/.git/worktrees/...` pointing back at it, and its HEAD a branch under `pleat/`.
"""

from __future__ import annotations

import os
from pathlib import Path

# Where pleat puts its worktrees, under the main checkout; and their branches' namespace.
WORKTREES_DIR = (".pleat", "worktrees")
BRANCH_PREFIX = "pleat/"
# Bytes read of each small git file (`.git`, `commondir`, `gitdir`, `HEAD`): one path or ref
# each; a longer file is not git's.
MAX_LINK_BYTES = 4096


def _line(path: Path) -> str | None:
    """The first line of a small regular file, or None."""
    try:
        if not path.is_file() or path.is_symlink():
            return None
        with path.open("rb") as file:
            data = file.read(MAX_LINK_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_LINK_BYTES:
        return None
    text = data.decode("utf-8", "replace").splitlines()
    return text[0].strip() if text else None


def worktree_gitdir(workspace: Path) -> Path | None:
    """The git directory (`<repo>/.git/worktrees/ID`) of the worktree at `workspace` when it is
    one of pleat's, or a directory in it, and its links check out both ways; None otherwise."""
    here = workspace.resolve()
    # The worktree's root: the nearest directory with a `.git`, as git finds it.
    root = next((p for p in (here, *here.parents) if os.path.lexists(p / ".git")), here)
    link = _line(root / ".git")
    if link is None or not link.startswith("gitdir: "):
        return None
    gitdir = (root / link.removeprefix("gitdir: ")).resolve()
    common_link = _line(gitdir / "commondir")
    if common_link is None:
        return None
    common = (gitdir / common_link).resolve()
    main = common.parent
    # Its `gitdir` file is absolute, or relative to it (git 2.48's worktree.useRelativePaths).
    back = gitdir / (_line(gitdir / "gitdir") or "/")
    if (
        common.name != ".git"
        or gitdir.parent != common / "worktrees"
        or root.parent != main.joinpath(*WORKTREES_DIR)
        or back.resolve() != root / ".git"
    ):
        return None
    return gitdir


def checkout_workspace(workspace: Path) -> Path:
    """The directory of the main checkout that `workspace` stands for when it is in one of
    pleat's worktrees (the same subdirectory of the repository), else `workspace` itself: what
    a repository's worktrees share, as its auto memory."""
    if worktree_gitdir(workspace) is None:
        return workspace
    here = workspace.resolve()
    root = next(p for p in (here, *here.parents) if os.path.lexists(p / ".git"))
    main = root.parents[len(WORKTREES_DIR)]  # <repo>/.pleat/worktrees/NAME: worktree_gitdir checks
    return main / here.relative_to(root)


def worktree_git_paths(workspace: Path) -> tuple[Path, ...]:
    """The git directories a sandboxed command in `workspace` may write so that `git commit`
    works, when `workspace` is one of pleat's worktrees; () otherwise."""
    gitdir = worktree_gitdir(workspace)
    if gitdir is None:
        return ()
    head = _line(gitdir / "HEAD") or ""
    if not head.startswith(f"ref: refs/heads/{BRANCH_PREFIX}"):
        return ()
    common = gitdir.parent.parent
    branches = BRANCH_PREFIX.rstrip("/")
    found = (
        gitdir,
        common / "objects",
        common / "refs" / "heads" / branches,
        common / "logs" / "refs" / "heads" / branches,
    )
    return tuple(path for path in found if path.is_dir() and not path.is_symlink())
