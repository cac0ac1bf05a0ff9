"""pleat's git worktrees: made, looked at, listed and removed (`pleat --worktree`, sub-agents
with `isolation: worktree`, `/worktree`).

A worktree NAME is `<repo>/.pleat/worktrees/NAME` on a new branch `pleat/NAME`, started from the
workspace's HEAD; the main checkout's `.git/info/exclude` gets `/.pleat/worktrees/` so its
`git status` stays clean. The commit it started from is kept in the worktree's git directory
(`pleat-base`), so "changed" means uncommitted changes or commits since then. Git runs as
tools/git_process.py runs it (no configured command, no terminal), with hooks, filter drivers
and submodules off: making a worktree runs no post-checkout hook or smudge filter of the
repository. A command confined to a worktree may write its git directory (tools/sandbox/
worktree_paths.py), so pleat's git never follows the links it holds: it looks at a worktree
with that directory and the repository's named (GIT_DIR, GIT_COMMON_DIR), once they check out
both ways. Blocking: call it in a worker thread.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from tools.git_process import GitResult, filters_off, run_git
from tools.sandbox.worktree_paths import BRANCH_PREFIX, WORKTREES_DIR, worktree_gitdir

# Seconds `git worktree add` may take: it checks out every file, a few seconds for a big
# repository; past two minutes something is wrong (a filter hanging) and the user is told.
CHECKOUT_TIMEOUT_SECONDS = 120.0
# Seconds for the small calls (rev-parse, status, rev-list, branch, worktree list/remove).
SMALL_TIMEOUT_SECONDS = 30.0
# A worktree's name: a word git takes in a branch and a directory; at most 64 characters.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
# The file in the worktree's git directory that holds the commit it started from.
BASE_FILE = "pleat-base"
# The line the main checkout's info/exclude gets, so the worktrees are not untracked files.
EXCLUDE_LINE = "/" + "/".join(WORKTREES_DIR) + "/"
# Words of a made-up name (`swift-otter-3fa2`, as Claude Code makes `bright-running-fox`): easy
# to say and type; the four hex digits keep two sessions started together apart.
ADJECTIVES = ("brisk", "calm", "clever", "eager", "gentle", "keen", "lucky", "quiet", "swift")
NOUNS = ("badger", "falcon", "heron", "lynx", "otter", "puffin", "robin", "walrus", "wren")


class WorktreeError(Exception):
    """A worktree cannot be made, read or removed: one line saying why."""


@dataclass(frozen=True)
class Worktree:
    """One of pleat's worktrees: its name, branch, directory, the main checkout it belongs to,
    and the commit it started from (None: not known, so it counts as changed)."""

    name: str
    branch: str
    path: Path
    repo: Path
    base: str | None


@dataclass(frozen=True)
class Changes:
    """What a worktree holds that its start did not: changed or untracked files, and commits
    (None: not known)."""

    files: int
    commits: int | None

    @property
    def any(self) -> bool:
        return self.files > 0 or self.commits != 0

    def describe(self) -> str:
        if not self.any:
            return "clean"
        commits = "commits not known" if self.commits is None else f"{self.commits} commit(s)"
        return f"{commits}, {self.files} uncommitted file(s)"


def _git(
    args: list[str],
    cwd: Path,
    timeout: float = SMALL_TIMEOUT_SECONDS,
    env: dict[str, str] | None = None,
) -> GitResult:
    """Run git; raises WorktreeError with git's first line when it fails."""
    done = run_git(["-c", "core.hooksPath=/dev/null", *args], cwd, timeout=timeout, env=env)
    if done is None:
        raise WorktreeError(f"git {args[0]} did not run or did not finish")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise WorktreeError(said[0] if said else f"git {args[0]} failed")
    return done


def _out(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    return _git(args, cwd, env=env).stdout.decode("utf-8", "replace").strip()


def _inert(cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """Settings under which git in `cwd` runs no filter driver and enters no submodule."""
    settings = filters_off(cwd, env)
    if settings is None:
        raise WorktreeError("the repository's filter drivers cannot be turned off")
    return [*settings, "-c", "submodule.recurse=false"]


def _pinned(worktree: Worktree) -> dict[str, str]:
    """The environment that makes git look at `worktree` through its own git directory and
    the repository's, whatever its `.git` file and `commondir` say now."""
    gitdir = worktree_gitdir(worktree.path)
    if gitdir is None or gitdir.parent.parent != worktree.repo / ".git":
        raise WorktreeError(
            "its git links were changed: not looked at (see where its .git file and commondir"
            " point before you run git there)"
        )
    common = str(worktree.repo / ".git")
    return {"GIT_DIR": str(gitdir), "GIT_COMMON_DIR": common, "GIT_WORK_TREE": str(worktree.path)}


def main_checkout(workspace: Path) -> Path:
    """The main checkout of the repository `workspace` lies in (from any of its worktrees)."""
    try:
        common = _out(["rev-parse", "--path-format=absolute", "--git-common-dir"], workspace)
    except WorktreeError:
        raise WorktreeError(f"{workspace} is not in a git repository") from None
    path = Path(common).resolve()
    if path.name != ".git":
        raise WorktreeError("worktrees need a repository with a main checkout (not a bare one)")
    return path.parent


def made_up_name(prefix: str = "") -> str:
    """A fresh name: `prefix` and random hex (`agent-1a2b3c4d`), or two words and hex."""
    if prefix:
        return f"{prefix}{secrets.token_hex(4)}"
    words = (secrets.choice(ADJECTIVES), secrets.choice(NOUNS), secrets.token_hex(2))
    return "-".join(words)


def create_worktree(workspace: Path, name: str | None = None) -> tuple[Worktree, bool]:
    """The worktree `name` (made up when None) of `workspace`'s repository, made on a new
    branch from `workspace`'s HEAD, or the one of that name pleat made before (True: reused)."""
    name = name or made_up_name()
    if not NAME.match(name):
        raise WorktreeError(
            f"worktree name {name[:64]!r} is not a plain word (letters, digits, - and _)"
        )
    repo = main_checkout(workspace)
    path = repo.joinpath(*WORKTREES_DIR, name)
    for part in (path.parent.parent, path.parent):
        if part.is_symlink() or (part.exists() and not part.is_dir()):
            raise WorktreeError(f"{part} is a symbolic link or a file: no worktree is made there")
    for known in pleat_worktrees(repo):
        if known.path == path:
            return known, True
    if path.exists() or path.is_symlink():
        raise WorktreeError(f"{path} exists and is not a worktree pleat made")
    try:
        base = _out(["rev-parse", "--verify", "HEAD^{commit}"], workspace)
    except WorktreeError:
        raise WorktreeError("the repository has no commit yet: commit once first") from None
    _exclude(repo)
    branch = f"{BRANCH_PREFIX}{name}"
    add = ["worktree", "add", "-q", "-b", branch, str(path), base]
    _git([*_inert(repo), *add], repo, CHECKOUT_TIMEOUT_SECONDS)
    gitdir = Path(_out(["rev-parse", "--absolute-git-dir"], path))
    try:
        (gitdir / BASE_FILE).write_text(base + "\n")
    except OSError as error:
        raise WorktreeError(f"cannot note where {name} started: {error.strerror}") from None
    return Worktree(name, branch, path, repo, base), False


def workspace_in(worktree: Worktree, workspace: Path) -> Path:
    """Where in `worktree` to work for `workspace`: its directory at the same place in the
    checkout (`pleat --worktree` from `repo/pkg` works in `.../NAME/pkg`), or the worktree's
    root when that place is the checkout's root or is not in the worktree (an ignored one)."""
    try:
        prefix = _out(["rev-parse", "--show-prefix"], workspace)
    except WorktreeError:
        return worktree.path
    place = worktree.path / prefix
    inside = place.resolve().is_relative_to(worktree.path.resolve())
    return place if prefix and inside and place.is_dir() else worktree.path


def _exclude(repo: Path) -> None:
    """Add EXCLUDE_LINE to the main checkout's info/exclude (once). (The path is built, not
    asked of git: `--git-path` gives it with its symbolic links resolved.)"""
    exclude = repo / ".git" / "info" / "exclude"
    if exclude.is_symlink() or exclude.parent.is_symlink():  # planted: it would write elsewhere
        raise WorktreeError(f"{exclude} is a symbolic link: not written through")
    try:
        text = exclude.read_text("utf-8", "replace") if exclude.is_file() else ""
        if EXCLUDE_LINE not in text.splitlines():
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with exclude.open("a", encoding="utf-8") as file:
                file.write(("" if not text or text.endswith("\n") else "\n") + EXCLUDE_LINE + "\n")
    except OSError as error:
        raise WorktreeError(f"cannot write {exclude}: {error.strerror}") from None


def pleat_worktrees(workspace: Path) -> list[Worktree]:
    """The worktrees pleat made in `workspace`'s repository (those under .pleat/worktrees on
    a pleat/ branch), as git lists them."""
    repo = main_checkout(workspace)
    home = repo.joinpath(*WORKTREES_DIR)
    listed = _out(["worktree", "list", "--porcelain"], repo)
    found: list[Worktree] = []
    for block in listed.split("\n\n"):
        fields = dict(line.partition(" ")[::2] for line in block.splitlines())
        path = Path(fields.get("worktree", "/"))
        branch = fields.get("branch", "").removeprefix("refs/heads/")
        if path.parent != home or not branch.startswith(BRANCH_PREFIX):
            continue
        found.append(Worktree(path.name, branch, path, repo, _base(path)))
    return found


def _base(path: Path) -> str | None:
    """The commit the worktree at `path` started from, as noted when it was made."""
    gitdir = worktree_gitdir(path)
    try:
        base = "" if gitdir is None else (gitdir / BASE_FILE).read_text("utf-8", "replace")
    except OSError:
        return None
    base = base.strip()
    return base if re.fullmatch(r"[0-9a-f]{40,64}", base) else None


def changes(worktree: Worktree) -> Changes:
    """What the worktree changed since it was made: its files, and the commits on its HEAD or
    its branch (HEAD may have moved off it) since its start."""
    env = _pinned(worktree)
    look = [*_inert(worktree.path, env), "status", "--porcelain", "--ignore-submodules=all"]
    status = _out([*look, "--untracked-files=normal"], worktree.path, env)
    files = len([line for line in status.splitlines() if line.strip()])
    commits = None
    if worktree.base is not None:
        since = ["HEAD", f"refs/heads/{worktree.branch}", f"^{worktree.base}"]
        try:
            commits = int(_out(["rev-list", "--count", *since, "--"], worktree.path, env))
        except (WorktreeError, ValueError):
            commits = None
    return Changes(files, commits)


def remove_worktree(worktree: Worktree) -> None:
    """Remove the worktree (its files, changed or not) and its branch. (Git removes one whose
    directory went already; `git worktree prune` would take the user's other worktrees whose
    directories are away too, on a drive not mounted.)"""
    _git(["worktree", "remove", "--force", str(worktree.path)], worktree.repo)
    _git(["branch", "-D", worktree.branch], worktree.repo)
