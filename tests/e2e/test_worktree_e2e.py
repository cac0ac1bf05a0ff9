"""`pleat -p --worktree`: the model's command commits inside the sandbox, in the worktree, on its
branch; the main checkout is untouched, and the worktree (which has a commit) is kept."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.support.git_support import git, git_repo
from tests.support.hook_support import tool_results
from tests.support.pleat_process import run_pleat
from tests.support.sandbox_support import needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls


@needs_sandbox
def test_a_worktree_session_commits_there_and_leaves_the_main_checkout_untouched(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    git_repo(workspace)
    start = git(workspace, "rev-parse", "HEAD")
    outside = tmp_path / "outside.txt"
    commit = "echo new > feature.txt && git add feature.txt && git commit -qm 'add feature'"
    server.push(
        ToolCalls(
            [
                ("run_command", {"command": f"{commit} && git log -1 --format=%s"}),
                ("run_command", {"command": f"echo x > {shlex.quote(str(outside))}"}),
            ]
        ),
        Text("committed"),
    )

    done = run_pleat(workspace, server, "-p", "add the feature", "--worktree", "feat")

    assert done.returncode == 0, done.stderr
    committed, refused = tool_results(server, 1)
    assert "add feature" in committed
    assert not outside.exists() and "the sandbox" in refused  # it held all along
    tree = workspace / ".pleat" / "worktrees" / "feat"
    assert (tree / "feature.txt").read_text() == "new\n"
    assert git(workspace, "log", "-1", "--format=%s", "pleat/feat").strip() == "add feature"
    # The main checkout: the same HEAD, no file of the work, and a clean status.
    assert git(workspace, "rev-parse", "HEAD") == start
    assert not (workspace / "feature.txt").exists()
    assert git(workspace, "status", "--porcelain") == ""
    assert f"kept worktree feat (branch pleat/feat) at {tree}" in done.stderr
