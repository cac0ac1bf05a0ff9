"""The run_command tool: a shell command in the workspace, bounded in time and output."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
from pathlib import Path
from typing import Any

import aiofiles.os

from sessions.output_spool import OutputSpool
from sessions.secret_names import SECRET_ENV_NAME, holds_secret
from tools.background_commands import BackgroundCommands, sent_away, started
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.capped_output import HEAD_BYTES as HEAD_BYTES
from tools.capped_output import TAIL_BYTES as TAIL_BYTES
from tools.capped_output import CappedOutput
from tools.command_limits import DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS
from tools.result_facts import ResultFacts
from tools.sandbox.denials import denial_note, sandbox_cause
from tools.sandbox.policy import Sandbox

# Bytes per pipe read: a pipe buffer's worth.
READ_CHUNK_BYTES = 65_536
# Seconds to drain the pipe after the shell exits: a pipe holds at most 64 KiB, so anything
# longer means a background process still holds the output open (it is then killed).
DRAIN_SECONDS = 2.0
# Seconds to wait for a killed process group's shell to be reaped before giving up on it.
REAP_SECONDS = 5.0


def command_environment() -> dict[str, str]:
    """The environment commands (and git) run with: the user's, minus anything named like a
    secret (sessions/secret_names.py), and minus any variable whose value holds one of those
    secrets under another name (`DATABASE_URL=postgres://u:<the key>@host`)."""
    secrets = [value for name, value in os.environ.items() if holds_secret(name, value)]
    return {
        name: value
        for name, value in os.environ.items()
        if not SECRET_ENV_NAME.search(name) and not any(s in value for s in secrets)
    }


# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "Shell command line, run by /bin/sh -c."},
        "timeout": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_TIMEOUT_SECONDS,
            "description": f"Seconds before it is killed (default {DEFAULT_TIMEOUT_SECONDS}).",
        },
        "background": {
            "type": "boolean",
            "description": (
                "Run in the background (servers, watchers): returns an id at once for "
                "command_output and command_stop; no time limit unless `timeout` is given."
            ),
        },
        "no_sandbox": {
            "type": "boolean",
            "description": (
                "Run outside the sandbox (only after it refused something the command must "
                "do; the user is always asked first)."
            ),
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


async def _pump(
    stream: asyncio.StreamReader, sink: CappedOutput | None, spool: OutputSpool | None
) -> None:
    """Copy the merged stdout/stderr into the capped buffer (and the session's spool file, as
    it arrives) until end of file."""
    while chunk := await stream.read(READ_CHUNK_BYTES):
        if sink is not None:
            sink.add(chunk)
        if spool is not None:
            await spool.write(chunk)


async def _open_spool(ctx: ToolContext) -> OutputSpool | None:
    """A spool file in the session's outputs directory; None without a session, or when it
    cannot be made (the capped in-memory copy then serves alone)."""
    if ctx.outputs is None:
        return None
    try:
        spool = await OutputSpool.open(ctx.outputs.directory)
    except OSError:
        return None
    spool.redact = ctx.outputs.redacted
    return spool


async def _read_pipe(
    read_fd: int, sink: CappedOutput | None, spool: OutputSpool | None
) -> tuple[asyncio.BaseTransport, asyncio.Task[None]]:
    """Start copying the pipe to `sink` and `spool`: its transport and the copying task (the
    pipe is closed if this fails)."""
    reader = asyncio.StreamReader()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    try:
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
    except BaseException:
        pipe.close()
        raise
    return transport, asyncio.create_task(_pump(reader, sink, spool))


@dataclasses.dataclass(frozen=True)
class _SentAway:
    """A foreground command Ctrl+B sent to the background: its output so far (closed), and its
    pipe, still being copied to its spool."""

    output: CappedOutput
    reading: tuple[asyncio.BaseTransport, asyncio.Task[None]]


async def _exits_unless_sent_away(
    process: asyncio.subprocess.Process, limit_seconds: float, door: asyncio.Event | None
) -> bool:
    """Wait for the command to exit (TimeoutError past the limit); True when `door` (Ctrl+B)
    opened first."""
    if door is None:
        await asyncio.wait_for(process.wait(), limit_seconds)
        return False
    exited, opened = asyncio.ensure_future(process.wait()), asyncio.ensure_future(door.wait())
    try:
        done, _ = await asyncio.wait(
            [exited, opened], timeout=limit_seconds, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        exited.cancel()
        opened.cancel()
    if not done:
        raise TimeoutError
    return exited not in done


async def _collect(
    process: asyncio.subprocess.Process,
    read_fd: int,
    limit_seconds: float,
    spool: OutputSpool | None = None,
    door: asyncio.Event | None = None,
) -> tuple[CappedOutput, bool, bool] | _SentAway:
    """Read the output until the command ends: (output, timed out, background killed); or,
    when `door` opens first (Ctrl+B), the command still running, handed over.

    On timeout or cancellation the whole process group is killed; cancellation re-raises.
    """
    output = CappedOutput()
    transport: asyncio.BaseTransport | None = None
    pump: asyncio.Task[None] | None = None
    try:
        reading = await _read_pipe(read_fd, output, spool)
        transport, pump = reading
        copying = pump
        timed_out = False
        try:
            if await _exits_unless_sent_away(process, limit_seconds, door):
                output.closed = True
                transport = pump = None  # handed over: not closed here
                return _SentAway(output, reading)
        except TimeoutError:
            timed_out = True
            _kill_group(process)
            await process.wait()
        done, _ = await asyncio.wait([copying], timeout=DRAIN_SECONDS)
        lingering = not done
        if lingering:
            _kill_group(process)
        return output, timed_out, lingering
    except asyncio.CancelledError:
        _kill_group(process)
        await asyncio.wait([asyncio.ensure_future(process.wait())], timeout=REAP_SECONDS)
        raise
    finally:
        if transport is not None:
            transport.close()
        if pump is not None:
            pump.cancel()
            await asyncio.wait([pump])


async def _spawn(
    argv: list[str], cwd: Path, env: dict[str, str], write_fd: int
) -> asyncio.subprocess.Process:
    """Start the command in a session of its own, its output to `write_fd`. Cancelled while it
    starts (a stop at that moment), it is killed, group and all, once started: asyncio would
    kill its first process only, and leave the shell's children running."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):
            _kill_group(await starting)
        raise


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the command's whole process group (its own session): the shell and children.

    No SIGTERM grace: the command already overran or was cancelled, and a hung process could
    ignore SIGTERM.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class RunCommandTool(Tool):
    """Run a shell command in the workspace directory."""

    name = "run_command"
    description = (
        "Run a shell command (/bin/sh -c) in the workspace: tests, builds, git. stdout and "
        "stderr merged, no stdin. Output too long to show is kept whole for read_archive (no "
        f"need to run it again). Reports the exit code. Timeout {DEFAULT_TIMEOUT_SECONDS} s by "
        f"default, at most {MAX_TIMEOUT_SECONDS} s. Credential variables (keys, tokens, "
        "secrets, passwords) are not in its environment."
    )
    parameters = _PARAMETERS
    main_argument = "command"
    main_argument_kind = "command"
    read_only = False
    sandboxable = True

    def __init__(
        self,
        default_timeout: float = DEFAULT_TIMEOUT_SECONDS,
        background: BackgroundCommands | None = None,
    ) -> None:
        self.default_timeout = min(default_timeout, MAX_TIMEOUT_SECONDS)
        # Where `background: true` commands, and those Ctrl+B sends away, go (None: refused).
        self.background = background

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return str(args.get("command", ""))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        command: str = args["command"]
        if not command.strip():
            raise ToolError("empty command")
        timeout = args.get("timeout", self.default_timeout)
        if not 1 <= timeout <= MAX_TIMEOUT_SECONDS:
            raise ToolError(f"timeout must be between 1 and {MAX_TIMEOUT_SECONDS} seconds")
        background = self.background if args.get("background") is True else None
        if args.get("background") is True:
            if background is None or ctx.outputs is None:
                raise ToolError("background commands need a session (their output is kept there)")
            background.check_room()
        # Our own pipe, not stdout=PIPE: asyncio's Process.wait() also waits for its pipes to
        # close, which a background child (`server &`) can keep open forever.
        read_fd, write_fd = os.pipe()
        sandbox = confining(ctx, args)
        argv, env = ["/bin/sh", "-c", command], command_environment()
        network = sandbox is not None and (sandbox.network or sandbox.opens_network(command))
        if sandbox is not None:  # confined in the child before it runs (tools/sandbox/)
            argv, env = sandbox.argv(argv, network=network), sandbox.environment(env)
        try:
            process = await _spawn(argv, ctx.workspace, env, write_fd)
        except OSError as exc:
            os.close(read_fd)
            raise ToolError(f"cannot start the command: {exc.strerror or exc}") from exc
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        try:
            spool = await _open_spool(ctx)
        except BaseException:  # cancelled (a stop) before its output is collected: killed too
            _kill_group(process)
            os.close(read_fd)
            raise
        if background is not None:
            return await _start_in_background(background, command, process, read_fd, spool, args)
        door = asyncio.Event() if self.background is not None and spool is not None else None
        if door is not None and self.background is not None:
            self.background.foreground_started(door)  # Ctrl+B opens it
        try:
            collected = await _collect(process, read_fd, timeout, spool, door)
        except BaseException:
            if spool is not None:
                await spool.abandon()
            raise
        finally:
            if door is not None and self.background is not None:
                self.background.foreground_ended(door)
        if isinstance(collected, _SentAway):
            assert self.background is not None and spool is not None
            job = self.background.adopt(
                command, process, spool, collected.reading, read_offset=collected.output.total
            )
            return sent_away(job, collected.output.text())
        output, timed_out, lingering = collected
        spooled = await spool.close() if spool is not None else None
        result = self._result(output, process.returncode, timed_out, lingering, timeout)
        if sandbox is not None and result.is_error and not timed_out:
            result = explained(result, output.text(), sandbox, network=network)
        if spooled is None:
            return result
        if ctx.budget.fits(result.text):  # nothing will be cut: the spool is not needed
            await aiofiles.os.remove(spooled.path)
            return result
        spooled = dataclasses.replace(spooled, after=result.facts.text_after_output)
        return dataclasses.replace(result, spooled=spooled)

    @staticmethod
    def _result(
        output: CappedOutput, code: int | None, timed_out: bool, lingering: bool, timeout: float
    ) -> ToolOutput:
        """The text the model reads: the output, then what happened to the command."""
        body = output.text().rstrip("\n") or "(no output)"
        notes: list[str] = []
        if lingering:
            notes.append("[background processes kept the output open; they were killed]")
        if timed_out:
            notes.append(f"timed out after {timeout} s; the command and its children were killed")
        else:
            notes.append(f"exit code: {code}")
        exit_code = None if timed_out else code
        status = "\n" + "\n".join(notes)
        facts = ResultFacts(exit_code=exit_code, timed_out=timed_out, text_after_output=status)
        meta = {"exit_code": exit_code, "timed_out": timed_out, "output_bytes": output.total}
        return ToolOutput(body + status, is_error=timed_out or code != 0, meta=meta, facts=facts)


async def _start_in_background(
    background: BackgroundCommands,
    command: str,
    process: asyncio.subprocess.Process,
    read_fd: int,
    spool: OutputSpool | None,
    args: dict[str, Any],
) -> ToolOutput:
    """Hand a just-started command to the background: its output copied to its spool file."""
    if spool is None:
        _kill_group(process)
        os.close(read_fd)
        raise ToolError("cannot open the background command's output file in the session")
    try:
        reading = await _read_pipe(read_fd, None, spool)
    except BaseException:
        _kill_group(process)
        await spool.abandon()
        raise
    job = background.adopt(command, process, spool, reading, timeout=args.get("timeout"))
    return started(job)


def confining(ctx: ToolContext, args: dict[str, Any]) -> Sandbox | None:
    """The sandbox this call runs in: the session's, when it is active and the call did not
    ask (and was approved: agent/permissions/policy.py) to run outside it."""
    sandbox = ctx.sandbox
    if sandbox is None or not sandbox.active or args.get("no_sandbox") is True:
        return None
    return sandbox


def explained(result: ToolOutput, output: str, sandbox: Sandbox, *, network: bool) -> ToolOutput:
    """A failed command's result with what the sandbox seems to have refused, when its output
    points at it (tools/sandbox/denials.py); `network`: it ran with the network open."""
    cause = sandbox_cause(output, sandbox, network=network)
    if cause is None:
        return result
    note = "\n" + denial_note(cause, sandbox)
    facts = dataclasses.replace(
        result.facts, text_after_output=result.facts.text_after_output + note
    )
    return dataclasses.replace(
        result, text=result.text + note, facts=facts, meta={**result.meta, "sandbox": cause}
    )
