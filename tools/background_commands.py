"""Background commands: the registry of the commands an agent left running, owned by its session.

run_command with `background: true` (or a foreground command sent there with Ctrl+B) hands its
process here: its output goes on being written to its spool file in the session's outputs
directory (sessions/output_spool.py), which command_output reads from where it last stopped and
/shells names. Every command runs in a process group of its own (start_new_session), which is
killed as a group: by command_stop, by its own timeout, when the session is left, when pleat
quits (the TUI's unmount, a headless run's end, a sub-agent's end), and, as a last net, at the
interpreter's exit (atexit), so none outlives pleat short of a SIGKILL of pleat itself.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sessions.output_spool import OutputSpool
from tools.base import ToolOutput
from tools.errors import ToolError

# Background commands one agent may have running at once: a dev server, a file watcher, a long
# test run and a few builds fit, each a process group, a pipe and a reader task; more is most
# likely a loop starting servers, which this stops with a clear error instead of forking on.
MAX_RUNNING = 8
# Ended commands kept for /shells and a last command_output, the oldest dropped first: a long
# session starting hundreds keeps a bounded list (their output files stay on disk).
MAX_ENDED = 32
# Seconds to drain the pipe after the shell exits (as tools/shell.py's DRAIN_SECONDS: a pipe
# holds at most 64 KiB, so longer means a child of the command still holds it; it is killed).
DRAIN_SECONDS = 2.0
# Seconds to wait for a killed group's shell to be reaped and its output closed.
REAP_SECONDS = 5.0
# The id's prefix: ids are bg-1, bg-2 ... in the order the agent started them.
ID_PREFIX = "bg-"

# Process groups of every running background command of this process: killed at exit whatever
# the path that got there (an exception out of the app, sys.exit), should the owner not have.
_RUNNING_GROUPS: set[int] = set()


class RunningProcess(Protocol):
    """What is used of a started command's process (asyncio's; tools/shell.py starts it)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by `pid` (no SIGTERM grace: a command that ignores SIGTERM
    would outlive the stop, and pleat's exit must not wait on it)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


@atexit.register
def _kill_every_running_group() -> None:
    for group in list(_RUNNING_GROUPS):
        kill_group(group)
    _RUNNING_GROUPS.clear()


@dataclass
class BackgroundCommand:
    """One command in the background: its process, its output file, and how far it was read."""

    id: str
    command: str
    process: RunningProcess
    spool: OutputSpool
    read_offset: int = 0  # bytes of the output file already given to the model
    started: float = field(default_factory=time.monotonic)
    ended: bool = False
    # How it ended when not by itself: "stopped", "timed out after N s", "the session ended".
    ending: str = ""
    lingering: bool = False  # a child held the output open after the shell exited: killed
    watcher: asyncio.Task[None] | None = None
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    @property
    def path(self) -> Path:
        return self.spool.path

    @property
    def exit_code(self) -> int | None:
        return self.process.returncode if self.ended else None

    def state(self) -> str:
        """One line: running for how long, or how it ended."""
        if not self.ended:
            return f"running for {int(time.monotonic() - self.started)} s"
        if self.ending:
            return f"{self.ending} (exit code {self.process.returncode})"
        return f"exit code {self.process.returncode}"

    def read_new(self, max_bytes: int) -> tuple[str, int, bool]:
        """The output written since the last read, at most `max_bytes` of it (a character cut
        at the end waits for the next read), the bytes still unread, and whether the command
        had ended before this read (so nothing it wrote can follow). Raises OSError."""
        ended = self.ended
        with open(self.path, "rb") as file:
            file.seek(self.read_offset)
            chunk = file.read(max_bytes)
            size = os.fstat(file.fileno()).st_size
        self.read_offset += len(chunk)
        left = size - self.read_offset
        return self._decoder.decode(chunk, final=ended and left == 0), left, ended


class BackgroundCommands:
    """The background commands of one agent (a sub-agent has its own), by id."""

    def __init__(self) -> None:
        self._commands: dict[str, BackgroundCommand] = {}
        self._count = 0
        # Ctrl+B's doors: one event per foreground command running now (tools/shell.py).
        self._foreground: set[asyncio.Event] = set()

    def all(self) -> list[BackgroundCommand]:
        """Every command kept, in the order they started."""
        return list(self._commands.values())

    def running(self) -> list[BackgroundCommand]:
        return [command for command in self._commands.values() if not command.ended]

    def get(self, command_id: str) -> BackgroundCommand:
        """The command `command_id`; a ToolError naming the known ones otherwise."""
        command = self._commands.get(command_id.strip())
        if command is None:
            known = ", ".join(self._commands) or "none"
            raise ToolError(f"no background command {command_id!r}; the known ones: {known}")
        return command

    def check_room(self) -> None:
        """Raise a ToolError when MAX_RUNNING commands already run."""
        if len(self.running()) >= MAX_RUNNING:
            raise ToolError(
                f"{MAX_RUNNING} background commands are running already, the most at once: "
                "stop one with command_stop first"
            )

    def adopt(
        self,
        command: str,
        process: RunningProcess,
        spool: OutputSpool,
        reading: tuple[asyncio.BaseTransport, asyncio.Task[None]],
        *,
        read_offset: int = 0,
        timeout: float | None = None,
    ) -> BackgroundCommand:
        """Take a started command (its pipe's transport and the task copying it to `spool`)
        into the background; it is watched until it ends, then its spool is closed."""
        self._count += 1
        job = BackgroundCommand(f"{ID_PREFIX}{self._count}", command, process, spool, read_offset)
        _RUNNING_GROUPS.add(process.pid)
        job.watcher = asyncio.create_task(_watch(job, reading, timeout))
        self._commands[job.id] = job
        ended = [c for c in self._commands.values() if c.ended]
        for old in ended[: max(0, len(ended) - MAX_ENDED)]:
            del self._commands[old.id]
            old.path.unlink(missing_ok=True)  # no longer listed: its output goes too
        return job

    async def stop(self, job: BackgroundCommand, ending: str = "stopped") -> None:
        """Kill the command's process group and wait (bounded) for it to be reaped."""
        if job.ended:
            return
        job.ending = ending
        kill_group(job.process.pid)
        if job.watcher is not None:
            await asyncio.wait([job.watcher], timeout=REAP_SECONDS)

    def stop_all_now(self, ending: str = "the session ended") -> None:
        """Kill every running command's group at once, without waiting (any thread)."""
        for job in self.running():
            job.ending = ending
            kill_group(job.process.pid)

    async def close(self, ending: str = "the session ended") -> None:
        """Kill every running command and wait (bounded) until each is reaped and its output
        file closed: the session, the run or pleat ends."""
        self.stop_all_now(ending)
        watchers = [job.watcher for job in self._commands.values() if job.watcher is not None]
        if watchers:
            await asyncio.wait(watchers, timeout=REAP_SECONDS)

    # -- Ctrl+B: the running foreground command goes to the background -----------------------

    def foreground_started(self, door: asyncio.Event) -> None:
        self._foreground.add(door)

    def foreground_ended(self, door: asyncio.Event) -> None:
        self._foreground.discard(door)

    def send_foreground_to_background(self) -> bool:
        """Ask the running foreground command(s) to move to the background; False when none
        runs, a ToolError when MAX_RUNNING already run there."""
        if not self._foreground:
            return False
        self.check_room()
        for door in self._foreground:
            door.set()
        return True


async def _watch(
    job: BackgroundCommand,
    reading: tuple[asyncio.BaseTransport, asyncio.Task[None]],
    limit_seconds: float | None,
) -> None:
    """Wait for the command to end (killing it past `limit_seconds`), drain its output, then
    close the output file. Cancelled (the event loop ends): the group is killed first."""
    transport, pump = reading
    process = job.process
    try:
        try:
            await asyncio.wait_for(process.wait(), limit_seconds)
        except TimeoutError:
            job.ending = f"timed out after {limit_seconds:g} s"
            kill_group(process.pid)
            await process.wait()
        done, _ = await asyncio.wait([pump], timeout=DRAIN_SECONDS)
        if not done:
            job.lingering = True
            kill_group(process.pid)
    except asyncio.CancelledError:
        kill_group(process.pid)
        raise
    finally:
        _RUNNING_GROUPS.discard(process.pid)
        transport.close()
        pump.cancel()
        with contextlib.suppress(OSError, asyncio.CancelledError):
            await asyncio.wait([pump])
            await job.spool.close()
            await asyncio.to_thread(job.spool.redact_in_place)
        job.ended = True


def started(job: BackgroundCommand) -> ToolOutput:
    """run_command's result for a command started in the background."""
    text = (
        f"started in the background as {job.id}; read its output with "
        f"command_output(id={job.id!r}), stop it with command_stop(id={job.id!r})"
    )
    return ToolOutput(text, meta={"background_id": job.id, "output_file": str(job.path)})


def sent_away(job: BackgroundCommand, output_so_far: str) -> ToolOutput:
    """run_command's result for a command the user sent to the background (Ctrl+B): its output
    so far, then its id."""
    body = output_so_far.rstrip("\n") or "(no output yet)"
    note = (
        f"[the user sent this command to the background as {job.id}; it is still running: read "
        f"its further output with command_output(id={job.id!r}), stop it with command_stop]"
    )
    return ToolOutput(
        f"{body}\n{note}", meta={"background_id": job.id, "output_file": str(job.path)}
    )
