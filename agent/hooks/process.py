"""Running one hook: `/bin/sh -c` in the workspace, in its own process group, the event as JSON on
stdin; past its time limit (or when the caller is cancelled) the whole group is killed. Of its
stdout and stderr at most MAX_HOOK_OUTPUT_BYTES each are kept (the rest is read and counted, so a
flooding hook never blocks on a full pipe), decoded, and made terminal-safe before anyone reads
them (the raw stdout is kept beside, for its JSON answer)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent.hooks.answer import MAX_HOOK_OUTPUT_BYTES, HookRun
from agent.hooks.config import HookSpec
from agent.terminal_text import visible
from tools.sandbox.denials import OPTED_IN, sandbox_cause
from tools.sandbox.policy import Sandbox

# Bytes per pipe read.
READ_CHUNK_BYTES = 65_536
# Seconds to wait for a hook's pipes to close after its shell exited: a pipe is drained in
# milliseconds, so longer means a background process it started holds them (it is killed).
DRAIN_SECONDS = 2.0
# Seconds to wait for a killed hook's shell to be reaped.
REAP_SECONDS = 5.0
# Seconds to wait for the pipes once the lingering group is killed: a killed process's pipes
# close at once, so what still holds them then is a process outside the group (a `setsid`
# child) that no wait will end; what was read so far is kept.
KILLED_DRAIN_SECONDS = 0.5


async def run_hook(
    spec: HookSpec,
    stdin: bytes,
    cwd: Path,
    env: Mapping[str, str],
    sandbox: Sandbox | None = None,
) -> HookRun:
    """Run one hook to its end, its time limit, or the caller's cancellation (which kills it
    and is raised again); as the user, or in `sandbox` when it is active and the hook opted in
    (`sandbox = true`). A confined hook that failed because the sandbox refused it something
    did not decide anything: its run is a failure that names the sandbox (refused_by_sandbox)."""
    argv, environment = ["/bin/sh", "-c", spec.command], {**env, **dict(spec.env)}
    confined = sandbox if sandbox is not None and sandbox.active and spec.sandboxed else None
    if confined is not None:
        argv, environment = confined.argv(argv), confined.environment(environment)
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    # Our own pipes for its output, not PIPE: asyncio's Process.wait() also waits for those to
    # close, which a background process the hook started could keep open for ever.
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=environment,
            stdin=asyncio.subprocess.PIPE,
            stdout=out_write,
            stderr=err_write,
            start_new_session=True,
        )
    except OSError as error:
        os.close(out_read)
        os.close(err_read)
        return HookRun(spec, None, problem=f"cannot start: {error.strerror or error}")
    finally:
        os.close(out_write)
        os.close(err_write)
    run = await _supervise(spec, process, stdin, out_read, err_read)
    return run if confined is None else refused_by_sandbox(run, confined, stdin)


def refused_by_sandbox(run: HookRun, sandbox: Sandbox, stdin: bytes = b"") -> HookRun:
    """A confined hook's run, or, when it did not go on and what it said shows the sandbox
    refused it something, a failure saying so and how to let it out: never a block, a deny or
    a "go on" it did not mean (a log it could not write makes /bin/sh exit 2). A line of its
    output that repeats text of the event (a guard echoing the command it blocks, which the
    model wrote: `rm x # Permission denied`) is no evidence (found by review)."""
    if run.exit_code == 0 or run.problem:
        return run
    echoed = _event_texts(stdin)
    said = f"{run.stderr}\n{run.stdout}".splitlines()
    own = [line for line in said if not any(text in line for text in echoed)]
    cause = sandbox_cause("\n".join(own), sandbox)
    if cause is None:
        return run
    problem = f"was refused by the sandbox ({cause}); {OPTED_IN}"
    return HookRun(run.spec, None, run.stdout, run.stderr, problem)


# Fields of an event that pleat itself fills (ids, paths, names): every other string in it may
# come from the model (a command, a path, a prompt, a tool's output).
PLEAT_FIELDS = frozenset(
    {
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "permission_mode",
        "pleat_permission_mode",
        "agent_id",
        "agent_type",
        "agent_transcript_path",
        "tool_name",
        "pleat_tool_name",
        "tool_use_id",
    }
)
# Characters a string of the event needs to count as echoed: shorter ones (`ls`, `a`) occur in
# any line by chance.
ECHO_CHARS = 4


def _event_texts(stdin: bytes) -> list[str]:
    """The strings of a hook's event that the model may have written (see PLEAT_FIELDS)."""
    try:
        event = json.loads(stdin.decode("utf-8", errors="replace")) if stdin else {}
    except ValueError:
        return []
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.extend(line for line in value.splitlines() if len(line.strip()) >= ECHO_CHARS)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    if isinstance(event, dict):
        walk({k: v for k, v in event.items() if k not in PLEAT_FIELDS})
    return found


async def _supervise(
    spec: HookSpec,
    process: asyncio.subprocess.Process,
    stdin: bytes,
    out_fd: int,
    err_fd: int,
) -> HookRun:
    """Feed stdin, read both outputs, enforce the time limit; kill the group when it overruns,
    lingers, or the caller is cancelled."""
    loop = asyncio.get_running_loop()
    readers: list[asyncio.Task[None]] = []
    captured = [_Captured(), _Captured()]  # what each pipe gave, kept as it arrives
    transports: list[asyncio.BaseTransport] = []
    files = [os.fdopen(out_fd, "rb", buffering=0), os.fdopen(err_fd, "rb", buffering=0)]
    feeder = asyncio.create_task(_feed(process, stdin))
    try:
        for pipe, into in zip(files, captured, strict=True):
            reader = asyncio.StreamReader()
            protocol = functools.partial(asyncio.StreamReaderProtocol, reader)
            connected, _ = await loop.connect_read_pipe(protocol, pipe)
            transports.append(connected)
            readers.append(asyncio.create_task(_read_capped(reader, into)))
        problem = ""
        try:
            await asyncio.wait_for(process.wait(), spec.timeout)
        except TimeoutError:
            problem = f"timed out after {spec.timeout:g} s (killed)"
            _kill_group(process)
            await asyncio.wait([asyncio.ensure_future(process.wait())], timeout=REAP_SECONDS)
        _, lingering = await asyncio.wait(readers, timeout=DRAIN_SECONDS)
        if lingering:  # a background process still holds the output: it goes too
            _kill_group(process)
            await asyncio.wait(lingering, timeout=KILLED_DRAIN_SECONDS)
        # What was read so far is kept, even from a pipe a detached process still holds (a
        # `setsid` child outside the group: found by review).
        (raw, out_total), (err_kept, err_total) = ((bytes(c.kept), c.total) for c in captured)
        stdout, stderr = _text(raw, out_total), _text(err_kept, err_total)
    except asyncio.CancelledError:
        _kill_group(process)
        await asyncio.wait([asyncio.ensure_future(process.wait())], timeout=REAP_SECONDS)
        raise
    finally:
        feeder.cancel()
        for task in readers:
            task.cancel()
        for transport in transports:
            transport.close()
        for pipe in files[len(transports) :]:
            pipe.close()
        await asyncio.wait([feeder, *readers])
    code = process.returncode
    if problem or code is None:
        exit_code, problem = None, problem or "did not finish"
    elif code < 0:
        exit_code, problem = None, f"was killed by signal {-code}"
    else:
        exit_code = code
    decoded = raw.decode("utf-8", errors="replace")
    cut = out_total > len(raw)
    return HookRun(spec, exit_code, stdout, stderr, problem, decoded, cut)


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    """Write the event to the hook's stdin and close it; a hook that does not read it (or exits
    first) is no error."""
    stdin = process.stdin
    if stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.close()


@dataclass
class _Captured:
    """One pipe's output as it arrives: the first MAX_HOOK_OUTPUT_BYTES, and the count of all."""

    kept: bytearray = field(default_factory=bytearray)
    total: int = 0


async def _read_capped(reader: asyncio.StreamReader, into: _Captured) -> None:
    """Read to the end into `into`; keep the first MAX_HOOK_OUTPUT_BYTES, count all."""
    while chunk := await reader.read(READ_CHUNK_BYTES):
        into.total += len(chunk)
        room = MAX_HOOK_OUTPUT_BYTES - len(into.kept)
        if room > 0:
            into.kept += chunk[:room]


def _text(kept: bytes, total: int) -> str:
    """Output as text the terminal and the model may see, with a note of what was not kept."""
    text = visible(kept.decode("utf-8", errors="replace"))
    if total > len(kept):
        text += f"\n[... {total - len(kept):,} more bytes of hook output were not kept]"
    return text


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the hook's whole process group: its shell and whatever it started."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
