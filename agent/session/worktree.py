"""`pleat --worktree [NAME]`: the session works in a git worktree of its own, and leaving it
removes the worktree when nothing changed there, asks (keep or remove) when something did, and
keeps it where nobody can be asked (`pleat -p`), saying where. Each outcome is one line."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from agent.terminal_text import visible
from sessions.worktree_use import WorktreeUse
from tools.git_worktrees import (
    Worktree,
    WorktreeError,
    changes,
    create_worktree,
    remove_worktree,
    workspace_in,
)

# Asks the user one question and gives the answer (None: nobody to ask, or no answer).
AskLine = Callable[[str], str | None]
# Runs the session in a workspace, with a line to say first; its exit code.
RunIn = Callable[[Path, str], int]


def in_worktree(workspace: Path, name: str, run: RunIn, *, interactive: bool) -> int:
    """Run the session (`run`) in the worktree `name` of `workspace`'s repository ("": a made-up
    name), in its directory at `workspace`'s place in the checkout, then leave it, asking on
    the terminal when `interactive` and stdin is one. Each outcome is one line on stderr; a
    worktree that cannot be made is exit code 2."""
    try:
        worktree, said = enter_worktree(workspace, name)
    except WorktreeError as error:
        print(f"pleat: error: --worktree: {visible(str(error))}", file=sys.stderr)
        return 2
    try:
        use = WorktreeUse(worktree.path)
    except OSError as error:
        print(f"pleat: error: --worktree: {visible(str(error))}", file=sys.stderr)
        return 2
    try:
        return run(workspace_in(worktree, workspace), said)
    finally:
        ask = terminal_question if interactive and sys.stdin.isatty() else None
        if use.others():  # another pleat works there still: it is the one to leave it
            said = f"kept worktree {worktree.name} at {worktree.path}: another pleat works in it"
        else:
            said = leave_worktree(worktree, ask)
        print(f"pleat: {visible(said)}", file=sys.stderr)
        use.release()


def terminal_question(question: str) -> str | None:
    """Ask on the terminal (after the UI has given it back); None at end of input."""
    try:
        return input(question)
    except (EOFError, KeyboardInterrupt):
        return None


def enter_worktree(workspace: Path, name: str | None) -> tuple[Worktree, str]:
    """The worktree to work in (made, or pleat's of that name reused) and the line saying so.
    Raises WorktreeError with one line."""
    worktree, reused = create_worktree(workspace, name or None)
    verb = "working again in" if reused else "working in a new"
    return worktree, visible(
        f"{verb} worktree {worktree.name} (branch {worktree.branch}) at {worktree.path}"
    )


def leave_worktree(worktree: Worktree, ask: AskLine | None = None) -> str:
    """Remove the worktree and its branch when nothing changed in it; otherwise ask `ask`
    whether to keep or remove it (None: keep it). The line saying what was done."""
    where = f"worktree {worktree.name} (branch {worktree.branch}) at {worktree.path}"
    try:
        found = changes(worktree)
        if found.any:
            answer = None
            if ask is not None:
                question = f"{where} has changes ({found.describe()}). Keep it? [K]eep/[r]emove "
                answer = ask(visible(question))
            if not (answer or "").strip().lower().startswith("r"):
                return visible(f"kept {where}: {found.describe()}")
            remove_worktree(worktree)
            return visible(f"removed {where} and its changes, as asked")
        remove_worktree(worktree)
    except WorktreeError as error:
        return visible(f"{where} left as it is: {error}")
    return visible(f"removed worktree {worktree.name} and its branch: nothing changed in it")
