"""A hook opted into the sandbox: a failure the sandbox caused is said as the sandbox's and decides
nothing, but a guard's own block stands even when the model wrote refusal-like words into the
command it echoes."""

from __future__ import annotations

import json
from pathlib import Path

from agent.hooks.config import HookSpec
from agent.hooks.process import run_hook
from tests.support.sandbox_support import needs_sandbox
from tools.sandbox.policy import Sandbox

pytestmark = needs_sandbox

# A guard as users write them: it echoes the command it blocks on stderr, and exits 2.
GUARD = (
    'cmd=$(jq -r .tool_input.command); case "$cmd" in *rm*) '
    'echo "Blocked by policy: $cmd" >&2; exit 2;; esac'
)


def event(command: str) -> bytes:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    return json.dumps({**payload, "tool_input": {"command": command}}).encode()


async def test_a_log_the_sandbox_refuses_is_a_failure_that_names_it(
    workspace: Path, tmp_path: Path
) -> None:
    spec = HookSpec("PreToolUse", f"cat >> {tmp_path / 'outside.log'}", sandboxed=True)
    done = await run_hook(
        spec,
        event("ls"),
        workspace,
        {"PATH": "/usr/bin:/bin"},
        Sandbox("workspace-write", workspace),
    )
    assert done.exit_code is None and not done.blocked
    assert done.problem.startswith("was refused by the sandbox (changing")


async def test_a_guards_block_stands_whatever_the_model_wrote_in_its_command(
    workspace: Path,
) -> None:
    spec = HookSpec("PreToolUse", GUARD, sandboxed=True)
    sandbox = Sandbox("workspace-write", workspace)
    env = {"PATH": "/usr/bin:/bin"}
    for command in ("rm -f keep.txt # Permission denied", "rm -f /etc/x # Permission denied"):
        done = await run_hook(spec, event(command), workspace, env, sandbox)
        assert done.exit_code == 2 and done.blocked, done.problem
        assert done.reason == f"Blocked by policy: {command}"
