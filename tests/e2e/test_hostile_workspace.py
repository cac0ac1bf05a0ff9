"""A whole session in a hostile workspace: nothing hangs, leaks, reaches the terminal or is lost.

The workspace holds every trap of docs/SECURITY.md at once: a FIFO `.gitignore`, instruction
files that are symlinks out of the workspace (to a secret file and to `/proc/self/environ`),
a file named and filled with terminal escapes, a line that makes naive regexes backtrack for
ever, and a `.gitignore` rule with nested `**`. The scripted model walks into each one, asks
for pleat's own environment through `/proc/$PPID`, folds, searches the archive with a
catastrophic pattern and answers with escapes; then the session is continued.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.compaction_agent import is_compression
from tests.support.constants import TEST_MODEL
from tests.support.pleat_process import PLEAT, pleat_bytes, process_environment
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (pleat as a process, then in process): left out of the fast set.
pytestmark = pytest.mark.slow

# The provider key, given only through the provider's usual variable (no --api-key, no config).
KEY = "hostile-ws-key-3b8e71c0d9a4f256"
# A secret-named variable that is not the key: commands must not see it, files must not hold it.
OTHER_SECRET = "deploy-secret-5d0c2a7e91b3f468"
# What the out-of-workspace file the instruction symlink points at holds.
OUTSIDE_SECRET = "outside-secret-8c41e6b2a07d3f95"
# How the scripted model recognizes pleat's compression instruction.
INSTRUCTION_MARK = "[pleat: context compaction"
# Bytes that must never reach the terminal: ESC, BEL, and the 8-bit CSI.
TERMINAL_CONTROLS = (b"\x1b", b"\x07", "\u009b".encode())
# Escapes the model answers with: clipboard write (OSC 52), window title (OSC 0), line erase.
HOSTILE_ANSWER = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2Kdone FIRST-RUN-DONE"
# An outer bound per run, far above what the run needs: every tool inside has its own limit,
# and a hang shows as this timeout instead of a stuck suite.
RUN_TIMEOUT_SECONDS = 240
# Lines of filler per big file: about 2,000 tokens each, so two of them push a 6,000-token
# window past its fold threshold.
FILLER_LINES = 420


def hostile_workspace(root: Path, outside: Path) -> None:
    """Fill `root` with the traps; `outside` is a directory beside it holding a secret."""
    (outside / "secret.md").write_text(f"the outside secret is {OUTSIDE_SECRET}\n")
    os.symlink(outside / "secret.md", root / "AGENTS.md")
    os.symlink("/proc/self/environ", root / "CLAUDE.md")
    os.mkfifo(root / ".gitignore")
    nested = root / "deep"
    nested.mkdir()
    (nested / ".gitignore").write_text("**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/x\n")
    (nested / ("a" * 60 + ".txt")).write_text("deep file\n")
    (root / "evil\x1b]0;title\x07.txt").write_text("\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2Kclean\n")
    (root / "backtrack.txt").write_text("a" * 48 + "!\n")
    for i in range(3):
        (root / f"big{i}.txt").write_text(f"big file {i}\n" + "words to read here\n" * FILLER_LINES)


class HostileModel:
    """Steps through the traps one tool call at a time; folds when asked; then answers."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, dict[str, Any]]] = [
            ("glob", {"pattern": "**/**/**/**/**/**/**/**/**/**/**/**/**/*a*a*a*a*a*a*a*b"}),
            ("grep", {"pattern": "(a+)+$"}),
            ("grep", {"pattern": "(a|aa)+$", "path": "backtrack.txt"}),
            ("glob", {"pattern": "*.txt"}),
            ("read_file", {"path": "evil\x1b]0;title\x07.txt"}),
            ("read_file", {"path": "AGENTS.md"}),
            ("read_file", {"path": "CLAUDE.md"}),
            (
                "run_command",
                {
                    "command": "cat /proc/$PPID/environ | tr '\\0' '\\n'; "
                    "cat /proc/$PPID/cmdline | tr '\\0' ' '; env"
                },
            ),
            ("read_file", {"path": "big0.txt"}),
            ("read_file", {"path": "big1.txt"}),
            ("read_file", {"path": "big2.txt"}),
            ("read_archive", {"query": "(a|aa)+$"}),
            ("read_archive", {"query": "(x+x+)+y"}),
        ]
        self.folds = 0

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        last = str(body["messages"][-1].get("content"))
        if INSTRUCTION_MARK in last:
            self.folds += 1
            return Text(
                f"<topics>hostile workspace {self.folds}</topics>"
                "<continues_previous>false</continues_previous>"
                "<summary>## Task\nWalk the traps of the workspace.</summary>"
            )
        if "what did we do" in last:
            return Text("we walked the traps")
        if self.steps:
            name, args = self.steps.pop(0)
            return ToolCalls([(name, args)])
        return Text(HOSTILE_ANSWER)


# The run's environment beside this process's: the key only in the provider's usual variable,
# and a secret-named variable that is not the key.
SECRETS = {"OPENAI_API_KEY": KEY, "DEPLOY_SECRET": OTHER_SECRET}


def hostile_args(workspace: Path, server: ScriptedServer, *extra: str) -> list[str]:
    return [
        "--model", TEST_MODEL,
        "--api-base", server.base_url,
        "--context-window", "6000",
        "--cwd", str(workspace),
        "--yes",
        *extra,
    ]  # fmt: skip


def run_pleat(
    workspace: Path, server: ScriptedServer, *extra: str
) -> subprocess.CompletedProcess[bytes]:
    """A real process: its commands read its /proc/<pid>/environ and cmdline."""
    return subprocess.run(
        [*PLEAT, *hostile_args(workspace, server, *extra)],
        env=process_environment(SECRETS),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )


def files_below(*roots: Path) -> list[Path]:
    return [
        Path(d) / name
        for root in roots
        for d, _, names in os.walk(root)
        for name in names
        if (Path(d) / name).is_file() and not (Path(d) / name).is_symlink()
    ]


def test_a_whole_session_in_a_hostile_workspace(
    tmp_path: Path, workspace: Path, pleat_home: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    hostile_workspace(workspace, outside)
    model = HostileModel()
    with ScriptedServer(api_key=KEY, models={TEST_MODEL}, fallback=model) as server:
        first = run_pleat(workspace, server, "-p", "walk the workspace")
        # The session continued in process: nothing in it reads /proc.
        second = pleat_bytes(
            *hostile_args(workspace, server, "--continue", "-p", "what did we do?"), env=SECRETS
        )
        bodies = [str(request.body) for request in server.requests]
        # The last request the model answered (a fold begun beside it may come after).
        answered = [r for r in server.requests if not is_compression(r.body)]
        last_request = answered[-1].messages

    for run in (first, second):
        output = run.stdout + run.stderr
        assert run.returncode == 0, output.decode(errors="replace")
        assert b"Traceback" not in output, output.decode(errors="replace")
        for control in TERMINAL_CONTROLS:
            assert control not in output, (control, output.decode(errors="replace"))
    assert b"FIRST-RUN-DONE" in first.stdout
    skipped = b"pleat: project instructions skipped: AGENTS.md leads outside the workspace"
    assert skipped in first.stderr
    assert model.steps == [] and model.folds >= 1  # every trap was walked, and the run folded

    # No secret in any request body, nor in any file pleat or its commands wrote.
    for secret in (KEY, OTHER_SECRET, OUTSIDE_SECRET):
        assert not any(secret in body for body in bodies), secret
        for path in files_below(pleat_home, workspace):
            assert secret.encode() not in path.read_bytes(), (secret, path)

    # Nothing lost on resume: the continued session sent the first run's answer back.
    assert any("FIRST-RUN-DONE" in str(m.get("content")) for m in last_request)
    assert "we walked the traps" in second.stdout.decode()
