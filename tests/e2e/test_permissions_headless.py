"""`pleat -p` with permission modes and rules, as a script runs it (the entry point in process),
real files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent.permissions.plan_mode import HEADLESS, PLAN_NOTE
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (each test runs pleat headless: litellm's import, once per worker): left out of the
# fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("pleat: error: ")
    return lines[0]


def test_plan_mode_refuses_a_write_and_the_plan_is_the_answer(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(
        ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]),
        ToolCalls([("exit_plan_mode", {"plan": "1. write a.txt"})]),
        ToolCalls([("run_command", {"command": "touch b.txt"})]),
        Text("The plan: 1. write a.txt"),
    )
    done = run_pleat(workspace, server, "-p", "greet", "--permission-mode", "plan", yes=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The plan: 1. write a.txt"
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    assert server.requests[0].messages[-1]["content"] == f"greet\n\n{PLAN_NOTE}"
    write, plan, command = tool_results(server, 3)
    assert write.startswith("refused: pleat is in plan mode") and "write_file" in write
    assert plan == HEADLESS  # nobody to accept it: the mode stays plan ...
    assert command.startswith("refused: pleat is in plan mode")  # ... for the next call too
    assert "✗ refused: pleat is in plan mode" in done.stderr


def test_accept_edits_runs_an_edit_and_refuses_a_command(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("old\n")
    server.push(
        ToolCalls([("edit_file", {"path": "a.txt", "old_string": "old", "new_string": "new"})]),
        ToolCalls([("run_command", {"command": "touch ran"})]),
        Text("edited"),
    )
    # Without the sandbox, where accept-edits asks for a command (a sandboxed one would run).
    env = {"PLEAT_PERMISSION_MODE": "accept-edits", "PLEAT_SANDBOX": "off"}
    done = run_pleat(
        workspace, server, "-p", "edit", "--output-format", "stream-json", yes=False, env=env
    )
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert init["subtype"] == "init" and init["permissionMode"] == "acceptEdits"  # Claude's
    assert init["pleat_permission_mode"] == "accept-edits"
    assert (workspace / "a.txt").read_text() == "new\n"
    assert not (workspace / "ran").exists()
    edit, command = tool_results(server, 2)
    assert not edit.startswith("refused")
    assert command.startswith(
        "refused: the user did not approve run_command: pleat runs headless in accept-edits mode"
    )
    assert "rerun with --yes" in command and "--permission-mode accept-edits" not in command


def test_a_deny_rule_beats_yes(server: ScriptedServer, workspace: Path, pleat_home: Path) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text('deny = ["run_command(rm *)"]\n')
    (workspace / "keep.txt").write_text("keep")
    server.push(
        ToolCalls([("run_command", {"command": "ls && rm -f keep.txt"})]),
        ToolCalls([("run_command", {"command": "touch made.txt"})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "clean up")  # with --yes: full-auto
    assert done.returncode == 0, done.stderr
    assert (workspace / "keep.txt").read_text() == "keep"
    assert (workspace / "made.txt").exists()  # full-auto runs what no rule denies
    denied, made = tool_results(server, 2)
    assert denied.startswith('refused: run_command is denied by the rule "run_command(rm *)"')
    assert not made.startswith("refused")


def test_a_deny_rule_sees_through_paths_and_wrappers_with_yes(
    server: ScriptedServer, workspace: Path
) -> None:
    """`--yes --deny 'run_command(rm *)'`: rm given by its path or under a wrapper beyond sudo
    and env (flock, taskset, setpriv, unshare, chroot) is refused too; nothing is removed."""
    commands = [
        "/bin/rm a1",
        "flock lk rm a2",
        "taskset -c 0 rm a3",
        "setpriv rm a4",
        "unshare rm a5",
        "chroot / rm a6",
    ]
    for name in ("a1", "a2", "a3", "a4", "a5", "a6"):
        (workspace / name).write_text("keep")
    server.push(
        ToolCalls([("run_command", {"command": command}) for command in commands]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "clean up", "--deny", "run_command(rm *)")
    assert done.returncode == 0, done.stderr
    results = tool_results(server, 1)
    assert len(results) == len(commands)
    refusal = 'refused: run_command is denied by the rule "run_command(rm *)"'
    for command, result in zip(commands, results, strict=True):
        assert result.startswith(refusal), command
    assert sorted(p.name for p in workspace.iterdir() if p.name.startswith("a")) == [
        "a1", "a2", "a3", "a4", "a5", "a6",
    ]  # fmt: skip


def test_an_allow_rule_lets_a_command_run_in_ask_mode(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    # Without the sandbox, where a command no rule allows asks (a sandboxed one would run).
    (pleat_home / "config.toml").write_text(
        'allow = ["run_command(touch allowed*)"]\nsandbox = "off"\n'
    )
    server.push(
        ToolCalls([("run_command", {"command": "touch allowed.txt"})]),
        ToolCalls([("run_command", {"command": "touch allowed.txt; touch other.txt"})]),
        ToolCalls([("run_command", {"command": "echo flag"})]),
        Text("done"),
    )
    done = run_pleat(
        workspace, server, "-p", "touch", "--allow", "run_command(echo *)", "--allow",
        "run_comand(ls)", yes=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (workspace / "allowed.txt").exists()
    assert not (workspace / "other.txt").exists()  # a compound command needs every part allowed
    allowed, compound, flag = tool_results(server, 3)
    assert not allowed.startswith("refused")
    assert compound.startswith("refused: the user did not approve run_command")
    assert flag.startswith("flag")  # the --allow flag adds to the file's rules
    assert 'pleat: note: allow rule "run_comand(ls)" names no tool pleat has' in done.stderr


@pytest.mark.parametrize(
    ("args", "env", "config", "needle"),
    [
        (["--yes", "--permission-mode", "plan"], {}, "", "--yes means --permission-mode full-auto"),
        (["--permission-mode", "yolo"], {}, "", "permission_mode must be one of ask"),
        ([], {"PLEAT_PERMISSION_MODE": "yolo"}, "", "PLEAT_PERMISSION_MODE must be one of"),
        ([], {}, 'deny = ["run_command()"]\n', "deny[0] 'run_command()' is not a rule"),
        (["--allow", "run_command(pytest"], {}, "", "allow[0] 'run_command(pytest' is not a rule"),
        ([], {"PLEAT_ALLOW": "run_command(x)"}, "", "PLEAT_ALLOW must be a TOML array"),
    ],
)
def test_bad_permission_settings_are_one_line(
    server: ScriptedServer,
    workspace: Path,
    pleat_home: Path,
    args: list[str],
    env: dict[str, str],
    config: str,
    needle: str,
) -> None:
    if config:
        pleat_home.mkdir(parents=True, exist_ok=True)
        (pleat_home / "config.toml").write_text(config)
    done = run_pleat(workspace, server, "-p", "hi", *args, yes=False, env=env)
    assert done.returncode == 2
    assert needle in one_error_line(done)
    assert not server.requests
