"""pleat's entry point run inside the test process, as a process of its own would run it.

A headless run as a subprocess pays litellm's import (4-5 s) every time; in process it is paid
once per pytest worker. What a process gives a run for free is given here by hand, and taken
back afterwards, so one run leaves nothing behind for the next test:

- the environment (`os.environ`, what pleat and the commands it starts see), the working
  directory and `sys.argv` (pleat reads secrets from its command line);
- file descriptors 0, 1 and 2: stdout and stderr are files that pleat's own writes (through
  `sys.stdout` and `sys.stderr`) and the writes of the processes it starts (commands, hooks, MCP
  servers) land in, in the order they happen, as with a pipe; stdin is /dev/null or the text
  given;
- the exit code: what the entry point returns, argparse's `SystemExit`, or 1 with the traceback
  on stderr for an exception that escapes (what Python does at the top of a process);
- the signal handlers pleat installs (agent/stop_signals.py removes its own; they are restored
  anyway) and the loggers' handlers and levels;
- a fresh event loop: pleat's entry point makes its own with `asyncio.run`, so it is called from
  a test with no loop running (a sync test).

Not given: the start-up masking of secrets in /proc/<pid>/environ and cmdline
(`tui.main.main` calls `agent.process_secrets.hide_start_up_secrets`, then `agent.cli.main`).
It rewrites the memory blocks the kernel set up when a process started, which only a real
process has: it is tested on real processes (tests/e2e/test_secrets.py,
tests/e2e/test_secret_leaks.py), and the runs here call `agent.cli.main` with the UI's starter, as
`tui.main.main` does after the masking. Tests about signals, kills, a terminal, stdin read as a
stream, the console script's exit code or what a fresh interpreter imports start a real process
(tests/support/pleat_process.py: run_pleat_process).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

# Seconds a run may take before it is interrupted (as Ctrl+C would) and the test fails: far past
# any test's run, so a hang fails the test instead of stalling the suite.
RUN_TIMEOUT_SECONDS = 180
# The signals whose handlers a run may change (pleat's stop signals, Ctrl+C, the watchdog's).
SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# The exit code of a run that raised KeyboardInterrupt out of the entry point (128 + SIGINT).
INTERRUPTED = 130
# What a Python process's standard streams are when they are pipes under a UTF-8 locale (this
# machine's C.UTF-8): stdout escapes undecodable surrogates back to bytes, stderr backslashes them.
STDOUT_ERRORS = "surrogateescape"
STDERR_ERRORS = "backslashreplace"


class _TimedOut(Exception):
    """The watchdog interrupted a run that outlived RUN_TIMEOUT_SECONDS."""


def run_entry_point(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = RUN_TIMEOUT_SECONDS,
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """`pleat ARGV` in this process with exactly `env` as its environment, in `cwd` (default:
    this process's), `stdin` as its standard input (default: empty); its exit code, stdout and
    stderr as `subprocess.run(..., capture_output=True, text=text)` gives them (bytes as written
    when `text` is False)."""
    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop()
        raise AssertionError("pleat in process runs its own event loop: call it from a sync test")
    from agent.cli import main
    from tui.main import start_ui

    args = [str(arg) for arg in argv]
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryFile() as given,
    ):
        given.write((stdin or "").encode())
        given.seek(0)
        with (
            _process_state(env, cwd, ["pleat", *args]),
            _standard_streams(given, out, err),
            _watchdog(timeout) as fired,
        ):
            try:
                code = main(args, start_ui=start_ui)
            except SystemExit as stop:
                code = _exit_code(stop.code)
            except KeyboardInterrupt:
                if not fired.is_set():
                    raise  # the person running the tests pressed Ctrl+C
                code = INTERRUPTED
            except Exception:
                traceback.print_exc()
                code = 1
        stdout, stderr = _output(out, text), _output(err, text)
    if fired.is_set():
        raise subprocess.TimeoutExpired(["pleat", *args], timeout, stdout, stderr)
    return subprocess.CompletedProcess(["pleat", *args], code, stdout, stderr)


def _exit_code(code: object) -> int:
    """The exit status of `sys.exit(code)`: None is 0, an int itself, anything else printed on
    stderr and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _output(stream: IO[bytes], text: bool) -> str | bytes:
    """A captured stream's bytes, or its text as `subprocess.run(text=True)` decodes it: the
    locale's encoding (UTF-8) and universal newlines."""
    stream.seek(0)
    data = stream.read()
    return data.decode().replace("\r\n", "\n").replace("\r", "\n") if text else data


@contextlib.contextmanager
def _process_state(env: Mapping[str, str], cwd: Path | None, argv: list[str]) -> Iterator[None]:
    """The environment, working directory, argv, signal handlers and loggers of a run, and this
    process's own back afterwards."""
    environ, directory, arguments = dict(os.environ), os.getcwd(), sys.argv
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    loggers = _loggers()
    os.environ.clear()
    os.environ.update(env)
    sys.argv = argv
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(directory)
        sys.argv = arguments
        os.environ.clear()
        os.environ.update(environ)
        for number, handler in handlers.items():
            if handler is not None:
                signal.signal(number, handler)
        _restore_loggers(loggers)


LoggerState = tuple[int, list[logging.Handler], bool, bool]


def _loggers() -> dict[logging.Logger, LoggerState]:
    """Each logger's level, handlers and switches. Loggers made during a run (by a module it
    imported first) are left as that import made them, as they would be in the next process: a
    handler holding the run's `sys.stderr` writes to file descriptor 2, wherever it points."""
    every = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    return {
        one: (one.level, list(one.handlers), one.disabled, one.propagate)
        for one in every
        if isinstance(one, logging.Logger)
    }


def _restore_loggers(saved: dict[logging.Logger, LoggerState]) -> None:
    for one, (level, handlers, disabled, propagate) in saved.items():
        one.setLevel(level)
        one.handlers[:] = handlers
        one.disabled, one.propagate = disabled, propagate


@contextlib.contextmanager
def _standard_streams(stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes]) -> Iterator[None]:
    """File descriptors 0, 1 and 2 pointed at the given files (children inherit them), and
    `sys.stdin`, `sys.stdout` and `sys.stderr` written straight through to them, so the order
    of pleat's lines and its children's is the order they were written in."""
    streams = sys.stdin, sys.stdout, sys.stderr
    for stream in streams[1:]:
        with contextlib.suppress(Exception):
            stream.flush()
    saved = {fd: os.dup(fd) for fd in (0, 1, 2)}
    try:
        for fd, file in ((0, stdin), (1, stdout), (2, stderr)):
            os.dup2(file.fileno(), fd)
        sys.stdin = _text_stream(0, "r", "strict")
        sys.stdout = _text_stream(1, "w", STDOUT_ERRORS)
        sys.stderr = _text_stream(2, "w", STDERR_ERRORS)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = streams
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


def _text_stream(fd: int, mode: str, errors: str) -> Any:
    """A text stream on `fd` that does not close it and buffers nothing."""
    raw = io.FileIO(fd, mode, closefd=False)
    if mode == "r":
        return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors=errors)
    return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, write_through=True)


@contextlib.contextmanager
def _watchdog(timeout: float) -> Iterator[threading.Event]:
    """After `timeout` seconds, SIGINT to this thread (pleat stops as on Ctrl+C) and the event
    set, so the run fails as a timed-out subprocess would."""
    fired = threading.Event()
    main = threading.get_ident()

    def interrupt() -> None:
        fired.set()
        signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(timeout, interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()
