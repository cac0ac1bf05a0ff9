"""Running git safely: no terminal, no configured command, no secrets, a time limit, a stop."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.shell import command_environment

# Settings forced on every git call. pleat's git runs outside the sandbox, on a .git/config a
# sandboxed command may have written (or a downloaded directory shipped), so nothing that config
# names may run: `core.fsmonitor` names a command git runs while listing files (glob and grep,
# which need no approval); `protocol.allow=never` refuses every transport, so a repository made
# a partial clone cannot have a missing object fetched through `core.sshCommand`, an
# `uploadpack` or a remote helper (pleat's git only ever reads and writes the local repository).
GIT_SAFETY_CONFIG = ("-c", "core.fsmonitor=false", "-c", "protocol.allow=never")
# Seconds between two looks at the stop flag and the deadline while git runs: a cancelled
# search ends this soon.
GIT_POLL_SECONDS = 0.1
# Seconds to read the configuration (filters_off): a few files; longer means git is stuck.
GIT_CONFIG_TIMEOUT_SECONDS = 10.0

# What a finished git call gives back (stdout and stderr as bytes).
GitResult = subprocess.CompletedProcess[bytes]


def run_git(
    args: Sequence[str],
    cwd: Path,
    *,
    timeout: float,
    stop: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
) -> GitResult | None:
    """Run git without a terminal and without taking optional locks, in the environment commands
    get (no secrets) plus `env`; None when it cannot run, runs past `timeout` seconds, or `stop`
    is set meanwhile (git is then killed)."""
    environment = {
        **command_environment(),
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_NO_LAZY_FETCH": "1",  # git 2.44 and later: never fetch a missing object on demand
        **(env or {}),
    }
    try:
        process = subprocess.Popen(
            ["git", *GIT_SAFETY_CONFIG, *args],
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    deadline = time.monotonic() + timeout
    # With input, one communicate() call: a retry after a timeout would not send the rest of
    # it (CPython's communicate registers stdin for writing only when given input, and refuses
    # input once started), so git would wait for it forever. Calls with input are never stopped
    # early (the checkpoints'; a search gives no input).
    poll = GIT_POLL_SECONDS if input is None else timeout
    with process:
        while True:
            try:
                out, err = process.communicate(input=input, timeout=poll)
                break
            except subprocess.TimeoutExpired:
                stopped = stop is not None and stop.is_set()
                if input is not None or stopped or time.monotonic() > deadline:
                    process.kill()
                    process.communicate()
                    return None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def filters_off(cwd: Path, env: Mapping[str, str] | None = None) -> tuple[str, ...] | None:
    """Settings that empty every filter driver the configuration git reads in `cwd` defines:
    a checkout runs a driver's smudge command, `git status` its clean command (`.gitattributes`
    names it), and a confined command may have written both for pleat's own git to run
    unconfined. None when that cannot be done: the configuration could not be read, or a
    driver's name holds `=` (`-c` would cut the name there). Reading it runs nothing."""
    found = run_git(
        ("config", "-z", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"),
        cwd,
        timeout=GIT_CONFIG_TIMEOUT_SECONDS,
        env=env,
    )
    if found is None or found.returncode not in (0, 1):  # 1: no filter defined
        return None
    entries = found.stdout.decode("utf-8", "surrogateescape").split("\0")
    keys = {entry.split("\n", 1)[0] for entry in entries if entry}
    names = {key.removeprefix("filter.").rsplit(".", 1)[0] for key in keys}
    if any("=" in name for name in names):
        return None
    return tuple(
        word
        for name in sorted(names)
        for kind in ("clean", "smudge", "process")
        for word in ("-c", f"filter.{name}.{kind}=")
    )
