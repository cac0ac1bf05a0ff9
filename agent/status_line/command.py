"""Running the status line command: as the user (it is their own command, like their hooks: not
in the sandbox), in the workspace, with the hooks' environment (no secrets), Claude Code's JSON
on stdin, for at most STATUS_TIMEOUT_SECONDS; its first line, cleaned, is the line to show.

The run is agent/hooks/process.py's (process group killed on time-out or cancellation, output
read to the end but at most MAX_HOOK_OUTPUT_BYTES kept). A command that fails (exits non-zero,
times out, cannot start) blanks the line, as in Claude Code, and is said in one line the first
time only: a status line refreshed after every turn must not repeat its complaint every turn."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.hooks.config import HookSpec
from agent.hooks.process import run_hook
from agent.hooks.runner import hook_environment
from agent.status_line.clean import first_line
from agent.status_line.payload import STATUS_EVENT
from agent.status_line.spec import StatusLineSpec
from agent.terminal_text import visible

# Seconds a run may take before it is killed: a script that asks git for the branch and the
# status of a big repository takes about a second, one that asks a usage API with its own short
# time-out a few; past 5 s its line would be stale when it came, and a hung script is killed
# before the next refresh (each turn's end) would have to wait for it. Claude Code's own default
# for the wait is of the same order (it cancels a run still going when the next starts).
STATUS_TIMEOUT_SECONDS = 5.0
# Characters of the command and of its error output in the line that says it failed.
SAID_CHARS = 120


@dataclass(frozen=True)
class StatusOutcome:
    """One run: the line to show ("" for none) and, the first time a run fails, why."""

    line: str
    problem: str | None = None


class StatusLineCommand:
    """The configured command, run on demand; remembers whether it has said why it failed."""

    def __init__(
        self,
        spec: StatusLineSpec,
        workspace: Path,
        secrets: Iterable[str] = (),
        timeout: float = STATUS_TIMEOUT_SECONDS,
    ) -> None:
        self.spec = spec
        self.workspace = workspace
        self.secrets = tuple(secrets)  # the API key: no variable holding it reaches the command
        self.timeout = timeout
        self.said = False  # a failure has been said (later ones are not)

    async def run(self, payload: Mapping[str, Any]) -> StatusOutcome:
        """Run the command with `payload` on stdin (ASCII JSON: valid whatever the text holds);
        cancelling the caller kills it."""
        data = json.dumps(payload, default=str).encode("ascii")
        hook = HookSpec(STATUS_EVENT, self.spec.command, timeout=self.timeout, sandboxed=False)
        env = hook_environment(self.workspace, self.secrets)
        run = await run_hook(hook, data, self.workspace, env)
        why = run.problem
        if not why and run.exit_code != 0:
            detail = _first(run.stderr)
            why = f"exited with status {run.exit_code}" + (f": {detail}" if detail else "")
        if not why:
            return StatusOutcome(first_line(run.raw_stdout))
        if self.said:
            return StatusOutcome("")
        self.said = True
        return StatusOutcome(
            "",
            f"status line command {_cut(self.spec.command)!r} {why}; "
            "the line stays empty until it works (said once)",
        )


def _first(text: str) -> str:
    """The first non-empty line of `text`, cut to SAID_CHARS."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return _cut(line)


def _cut(text: str) -> str:
    text = visible(" ".join(text.split()))
    return text if len(text) <= SAID_CHARS else text[: SAID_CHARS - 1] + "…"
