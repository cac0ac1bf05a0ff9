"""run_command: exit codes, merged and capped output, timeouts and cancellation kill the group."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

import tools.shell as shell
from tools.base import ToolContext, ToolError
from tools.shell import HEAD_BYTES, TAIL_BYTES, RunCommandTool

# Seconds the tests allow for something that takes milliseconds: a sanity bound on a loaded
# CI machine, never a performance assertion.
GENEROUS_SECONDS = 30.0


def is_gone(pid: int) -> bool:
    """True when the process has exited (a zombie waiting for its parent counts as exited)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return fields[0] in ("Z", "X")


async def wait_until_gone(pid: int) -> bool:
    for _ in range(int(GENEROUS_SECONDS / 0.05)):
        if is_gone(pid):
            return True
        await asyncio.sleep(0.05)
    return False


def real_path(path: Path) -> str:
    """The symlink-free form of a path, as `pwd -P` prints it."""
    return str(path.resolve(strict=True))


def file_text(path: Path) -> str:
    """The stripped text of a file the command writes, or "" while it is not there yet."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return ""


async def wait_for_pid(path: Path) -> int:
    """The pid a command wrote to `path`, once it is there."""
    for _ in range(int(GENEROUS_SECONDS / 0.02)):
        if text := file_text(path):
            return int(text)
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_success_merges_stderr_and_reports_the_exit_code(ctx: ToolContext) -> None:
    out = await RunCommandTool().run({"command": "echo out; echo err >&2"}, ctx)
    assert out.text == "out\nerr\nexit code: 0"
    assert out.meta["exit_code"] == 0
    assert not out.is_error


async def test_failure_reports_the_exit_code(ctx: ToolContext) -> None:
    out = await RunCommandTool().run({"command": "echo broken; exit 3"}, ctx)
    assert out.text == "broken\nexit code: 3"
    assert out.meta["exit_code"] == 3
    assert out.is_error


async def test_runs_in_the_workspace_with_empty_stdin(workspace: Path, ctx: ToolContext) -> None:
    real = real_path(workspace)
    out = await RunCommandTool().run({"command": "pwd -P; cat; echo done"}, ctx)
    assert out.text == f"{real}\ndone\nexit code: 0"
    silent = await RunCommandTool().run({"command": "true"}, ctx)
    assert silent.text == "(no output)\nexit code: 0"


async def test_runaway_output_keeps_head_and_tail_in_memory(ctx: ToolContext) -> None:
    """Past HEAD_BYTES + TAIL_BYTES the middle is dropped (and counted) while the command runs;
    the registry then cuts what is left to the model's budget
    (tests/unit/tools/test_output_budget.py)."""
    size = HEAD_BYTES + TAIL_BYTES + 1_000_000
    command = f"echo START; head -c {size} /dev/zero | tr '\\0' x; echo; echo END"
    out = await RunCommandTool().run({"command": command}, ctx)
    assert out.text.startswith("START\nxxx")
    assert out.text.endswith("xxx\nEND\nexit code: 0")
    assert "bytes of output were not kept (too much)" in out.text
    assert len(out.text) < HEAD_BYTES + TAIL_BYTES + 200
    assert out.meta["output_bytes"] == len("START\n") + size + len("\nEND\n")


async def test_timeout_kills_the_process_group(workspace: Path, ctx: ToolContext) -> None:
    command = "echo begun; sleep 100 & echo $! > bg.pid; wait"
    loop = asyncio.get_running_loop()
    started = loop.time()
    out = await RunCommandTool().run({"command": command, "timeout": 1}, ctx)
    assert loop.time() - started < GENEROUS_SECONDS
    assert out.text.startswith("begun\n")
    assert out.text.endswith("timed out after 1 s; the command and its children were killed")
    assert out.meta == {"exit_code": None, "timed_out": True, "output_bytes": 6}
    assert out.is_error
    assert await wait_until_gone(await wait_for_pid(workspace / "bg.pid"))


# A shell that writes its pid and its background child's, then waits for the child.
SHELL_AND_CHILD = "echo $$ > sh.pid; sleep 100 & echo $! > bg.pid; wait"


async def cancelled_leaves_nothing(
    workspace: Path, task: asyncio.Task[object], started: asyncio.Event | None = None
) -> None:
    """Once SHELL_AND_CHILD runs in `task` (and `started` is set), cancel it: the shell and its
    child are gone."""
    if started is not None:
        await started.wait()
    shell_pid = await wait_for_pid(workspace / "sh.pid")
    sleeper_pid = await wait_for_pid(workspace / "bg.pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(sleeper_pid)
    assert await wait_until_gone(shell_pid)


async def test_cancellation_kills_the_process_group(workspace: Path, ctx: ToolContext) -> None:
    task = asyncio.create_task(RunCommandTool().run({"command": SHELL_AND_CHILD}, ctx))
    await cancelled_leaves_nothing(workspace, task)


@pytest.mark.slow  # waits out the two-second drain by design: the whole suite runs it
async def test_background_process_holding_the_output_is_killed(
    workspace: Path, ctx: ToolContext
) -> None:
    out = await RunCommandTool().run({"command": "sleep 100 & echo $! > bg.pid; echo hi"}, ctx)
    assert out.text.startswith("hi\n")
    assert "kept the output open" in out.text
    assert out.text.endswith("exit code: 0")
    assert await wait_until_gone(await wait_for_pid(workspace / "bg.pid"))


async def test_bad_arguments_and_preview(ctx: ToolContext) -> None:
    tool = RunCommandTool()
    with pytest.raises(ToolError, match="timeout must be between 1 and 600"):
        await tool.run({"command": "true", "timeout": 601}, ctx)
    with pytest.raises(ToolError, match="empty command"):
        await tool.run({"command": "  "}, ctx)
    assert await tool.preview({"command": "make test"}, ctx) == "make test"


async def test_commands_do_not_see_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-should-not-leak")
    monkeypatch.setenv("PLEAT_VISIBLE_VALUE", "visible")
    output = await RunCommandTool().run({"command": "env"}, ToolContext(workspace=tmp_path))
    assert "should-not-leak" not in output.text
    assert "PLEAT_VISIBLE_VALUE=visible" in output.text


async def test_configured_default_timeout_applies(tmp_path: Path) -> None:
    output = await RunCommandTool(default_timeout=1).run(
        {"command": "sleep 30"}, ToolContext(workspace=tmp_path)
    )
    assert output.meta["timed_out"] and "timed out after 1" in output.text


async def test_a_stop_before_the_output_is_collected_kills_the_group(
    workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop (SIGTERM to the TUI) landing after the command started but before its output
    was being read, while its spool file opens on a busy machine, killed nothing: the command
    outlived pleat (seen in CI). The spool's opening is held here to make that moment."""
    opening = asyncio.Event()

    async def held_spool(_: ToolContext) -> None:
        opening.set()
        await asyncio.Event().wait()  # a spool that takes as long as the stop needs

    monkeypatch.setattr(shell, "_open_spool", held_spool)
    task = asyncio.create_task(RunCommandTool().run({"command": SHELL_AND_CHILD}, ctx))
    await cancelled_leaves_nothing(workspace, task, opening)
