"""pleat's built-in prompts headless: `pleat -p "/init"` asks for AGENTS.md, `pleat -p "/review"`
sends the uncommitted changes and its turn only reads (the entry point in process, a real git
repository, the scripted server recording what the model was sent)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent.commands.builtin_prompts import INIT_PROMPT, NO_CHANGES, REVIEW_PROMPT
from agent.permissions.policy import READ_ONLY_REFUSAL
from tests.support.git_support import git_repo
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (each test runs pleat headless: litellm's import, once per worker).
pytestmark = pytest.mark.slow


def request_text(server: ScriptedServer, index: int = 0) -> str:
    """The prompt the model was sent in request `index` (the last user message)."""
    users = [m for m in server.requests[index].messages if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    errors = [line for line in done.stderr.splitlines() if line.startswith("pleat: error: ")]
    assert len(errors) == 1, done.stderr
    return errors[0]


def test_init_asks_for_agents_md_and_the_write_runs_in_the_sessions_mode(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    server.push(
        ToolCalls([("write_file", {"path": "AGENTS.md", "content": "# Agents\n\nRun pytest.\n"})]),
        Text("Wrote AGENTS.md."),
    )
    done = run_pleat(workspace, server, "-p", "/init", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "Wrote AGENTS.md." and result["is_error"] is False
    assert request_text(server) == INIT_PROMPT  # the prompt, not the command line
    assert (workspace / "AGENTS.md").read_text() == "# Agents\n\nRun pytest.\n"
    assert "pleat: /init: pleat's built-in prompt" in done.stderr


def test_review_sends_the_changes_and_refuses_writes_and_commands(
    server: ScriptedServer, workspace: Path
) -> None:
    git_repo(workspace, {"app.py": b"def main():\n    return 1\n"})
    (workspace / "app.py").write_text("def main():\n    return 2  # changed\n")
    (workspace / "new_module.py").write_text("print('new')\n")
    server.push(
        ToolCalls([("write_file", {"path": "app.py", "content": "fixed\n"})]),
        ToolCalls([("run_command", {"command": "touch ran"})]),
        ToolCalls([("read_file", {"path": "app.py"})]),
        Text("One finding: app.py returns 2."),
    )
    # --yes: full-auto would run both calls; the review turn refuses them all the same.
    done = run_pleat(workspace, server, "-p", "/review focus on the return value")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "One finding: app.py returns 2."
    sent = request_text(server)
    assert sent.startswith(REVIEW_PROMPT)
    assert "-    return 1\n+    return 2  # changed" in sent  # git diff HEAD
    assert "?? new_module.py" in sent  # git status: the new file the diff leaves out
    assert sent.endswith("The user adds: focus on the return value")
    write, command, read = tool_results(server, 3)
    assert write == "refused: " + READ_ONLY_REFUSAL.format(tool="write_file")
    assert command == "refused: " + READ_ONLY_REFUSAL.format(tool="run_command")
    assert "return 2  # changed" in read  # reading tools run
    assert (workspace / "app.py").read_text() == "def main():\n    return 2  # changed\n"
    assert not (workspace / "ran").exists()


def test_review_with_nothing_to_review_makes_no_request(
    server: ScriptedServer, workspace: Path
) -> None:
    done = run_pleat(workspace, server, "-p", "/review")  # not a repository
    assert done.returncode != 0
    assert "is not in one" in one_error_line(done)
    git_repo(workspace)
    done = run_pleat(workspace, server, "-p", "/review", "--output-format", "json")
    assert done.returncode != 0
    assert one_error_line(done) == f"pleat: error: {NO_CHANGES}"
    assert server.requests == []
