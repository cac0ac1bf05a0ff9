"""Background commands through the tool registry, with real processes: run_command with
`background: true` answers at once with an id, command_output reads what came since the last
read (bounded, with the exit code once ended), command_stop and the owner's close kill the whole
process group, Ctrl+B's door sends a running foreground command there, and at most MAX_RUNNING
run at once."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from sessions.outputs import KeptOutputs
from sessions.redact import KnownSecrets
from tests.support.mcp_support import alive
from tools.background_commands import MAX_RUNNING, BackgroundCommands
from tools.background_tools import background_of, with_background
from tools.base import ToolContext, ToolOutput
from tools.output_budget import OutputBudget
from tools.registry import ToolRegistry, default_registry
from tools.shell import RunCommandTool

# Seconds a test waits for a condition a real process brings about (generous: a busy machine).
WAIT_SECONDS = 30.0
POLL_SECONDS = 0.05


@pytest.fixture
def outputs(tmp_path: Path) -> KeptOutputs:
    return KeptOutputs(tmp_path / "session" / "outputs")


@pytest.fixture
def ctx(workspace: Path, outputs: KeptOutputs) -> ToolContext:
    return ToolContext(workspace, outputs=outputs)


async def wait_until(condition: Callable[[], object], what: str) -> None:
    for _ in range(int(WAIT_SECONDS / POLL_SECONDS)):
        if condition():
            return
        await asyncio.sleep(POLL_SECONDS)
    raise AssertionError(f"timed out waiting for {what}")


async def read_pid(path: Path) -> int:
    await wait_until(lambda: path.exists() and path.read_text().strip(), f"{path.name}")
    return int(await asyncio.to_thread(path.read_text))


async def call(registry: ToolRegistry, ctx: ToolContext, name: str, **args: object) -> ToolOutput:
    return await registry.dispatch(name, args, ctx)


async def output_until(registry: ToolRegistry, ctx: ToolContext, wanted: str) -> str:
    """command_output(bg-1) until what it gave, all reads together, holds `wanted`."""
    seen = ""
    for _ in range(int(WAIT_SECONDS / POLL_SECONDS)):
        seen += (await call(registry, ctx, "command_output", id="bg-1")).text + "\n"
        if wanted in seen:
            return seen
        await asyncio.sleep(POLL_SECONDS)
    raise AssertionError(f"command_output never gave {wanted!r}: {seen!r}")


async def test_a_background_command_answers_at_once_is_read_and_stopped(
    workspace: Path, ctx: ToolContext, outputs: KeptOutputs
) -> None:
    registry = default_registry()
    command = "echo $$ > shell.pid; sleep 30 & echo $! > child.pid; echo started; wait; echo done"
    started = await call(registry, ctx, "run_command", command=command, background=True)
    assert not started.is_error and "bg-1" in started.text
    shell = await read_pid(workspace / "shell.pid")
    child = await read_pid(workspace / "child.pid")
    assert alive(shell) and alive(child)  # the call answered while the command runs
    first = await output_until(registry, ctx, "started")
    assert "bg-1: still running" in first and "done" not in first
    again = await call(registry, ctx, "command_output", id="bg-1")
    assert again.text.startswith("(no new output)")  # read since the last read only
    stopped = await call(registry, ctx, "command_stop", id="bg-1")
    assert "bg-1 stopped" in stopped.text
    assert not alive(shell) and not alive(child)  # the whole process group
    last = await call(registry, ctx, "command_output", id="bg-1")
    assert "bg-1: stopped (exit code -9)" in last.text and "done" not in last.text
    job = background_of(registry).all()[0]  # type: ignore[union-attr]
    assert job.path.parent == outputs.directory and job.path.read_text() == "started\n"


async def test_an_ended_command_gives_its_exit_code_and_output(ctx: ToolContext) -> None:
    registry = default_registry()
    await call(registry, ctx, "run_command", command="echo hi; exit 3", background=True)
    seen = await output_until(registry, ctx, "exit code 3")
    assert seen.count("hi\n") == 1 and seen.index("hi\n") < seen.index("exit code 3")
    result = await call(registry, ctx, "command_output", id="bg-1")
    assert result.meta["exit_code"] == 3 and not result.meta["running"]
    stop = await call(registry, ctx, "command_stop", id="bg-1")
    assert "had already ended: exit code 3" in stop.text
    unknown = await call(registry, ctx, "command_output", id="bg-9")
    assert unknown.is_error and "no background command 'bg-9'; the known ones: bg-1" in unknown.text


async def test_a_read_is_bounded_and_the_rest_comes_next(workspace: Path) -> None:
    ctx = ToolContext(workspace, OutputBudget(300), KeptOutputs(workspace.parent / "outputs"))
    registry = default_registry()
    # 3,000 lines of "é" and a line number: two bytes a letter, so reads cut characters too.
    command = 'i=0; while [ $i -lt 3000 ]; do echo "ééééé $i"; i=$((i+1)); done'
    await call(registry, ctx, "run_command", command=command, background=True)
    job = background_of(registry).all()[0]  # type: ignore[union-attr]
    await wait_until(lambda: job.ended, "the command to end")
    first = await call(registry, ctx, "command_output", id="bg-1")
    assert "more bytes of output not read yet: call command_output again" in first.text
    assert len(first.text) <= ctx.budget.safe_chars + 200  # the read, plus its status lines
    reads = [first.text]
    while "not read yet" in reads[-1]:
        reads.append((await call(registry, ctx, "command_output", id="bg-1")).text)
    assert reads[-1].endswith("bg-1: exit code 0")
    text = "".join(re.split(r"\n\[|\nbg-1: ", read)[0] for read in reads)
    assert "\ufffd" not in text  # no character cut in two between reads
    assert [int(n) for n in re.findall(r"ééééé (\d+)", text)] == list(range(3000))


async def test_at_most_max_running_and_close_kills_them_all(
    workspace: Path, ctx: ToolContext
) -> None:
    registry = default_registry()
    for n in range(MAX_RUNNING):
        command = f"echo $$ > {n}.pid; sleep 30"
        assert not (
            await call(registry, ctx, "run_command", command=command, background=True)
        ).is_error
    pids = [await read_pid(workspace / f"{n}.pid") for n in range(MAX_RUNNING)]
    refused = await call(registry, ctx, "run_command", command="true", background=True)
    assert refused.is_error and "stop one with command_stop first" in refused.text
    background = background_of(registry)
    assert background is not None
    await background.close()
    assert not any(alive(pid) for pid in pids)
    assert all(job.ended and job.ending == "the session ended" for job in background.all())


async def test_the_door_sends_a_running_foreground_command_to_the_background(
    workspace: Path, ctx: ToolContext
) -> None:
    registry = default_registry()
    background = background_of(registry)
    assert background is not None and not background.send_foreground_to_background()
    command = "echo $$ > shell.pid; echo before; while [ ! -e go ]; do sleep 0.05; done; echo after"
    running = asyncio.create_task(call(registry, ctx, "run_command", command=command))
    shell = await read_pid(workspace / "shell.pid")
    await wait_until(lambda: background._foreground, "the command to open its door")
    assert background.send_foreground_to_background()  # Ctrl+B
    result = await asyncio.wait_for(running, WAIT_SECONDS)
    assert result.text.startswith("before\n") and "background as bg-1" in result.text
    assert result.meta["background_id"] == "bg-1" and alive(shell)
    (workspace / "go").touch()
    seen = await output_until(registry, ctx, "exit code 0")
    assert "\nafter\n" in seen and "before" not in seen  # what the model had is not given again


async def test_a_sub_agents_tools_get_their_own_background_commands() -> None:
    parent = BackgroundCommands()
    mine = BackgroundCommands()
    registry = ToolRegistry([with_background(tool, mine) for tool in [RunCommandTool(42, parent)]])
    shell = registry.get("run_command")
    assert isinstance(shell, RunCommandTool)
    assert shell.background is mine and shell.default_timeout == 42
    assert background_of(registry) is mine


async def test_without_a_session_a_background_command_is_refused(workspace: Path) -> None:
    result = await call(
        default_registry(), ToolContext(workspace), "run_command", command="true", background=True
    )
    assert result.is_error and "need a session" in result.text


async def test_an_ended_commands_output_file_holds_no_known_secret(
    workspace: Path, outputs: KeptOutputs
) -> None:
    """A background command's output stays on disk for command_output and /shells: once it
    ends, the session's known secrets are redacted there as in every file pleat keeps (found
    by review: `cat notes.txt` left the configured key in the log)."""
    key = "sk-test-0123456789abcdefghij"
    outputs.secrets = KnownSecrets([key])
    (workspace / "notes.txt").write_text(f"the key: {key}\n")
    ctx = ToolContext(workspace, outputs=outputs)
    registry = default_registry()
    await call(registry, ctx, "run_command", command="cat notes.txt", background=True)
    job = background_of(registry).all()[0]  # type: ignore[union-attr]
    await wait_until(lambda: job.ended, "the end")
    assert job.path.read_text() == "the key: [REDACTED]\n"
