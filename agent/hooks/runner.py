"""The hook runner: the configured commands of one event, each given the event as JSON on stdin.

Every hook runs by `/bin/sh -c` in the workspace, in its own process group, with the commands'
environment (tools/shell.py: no variable named like a secret, none holding one) plus
PLEAT_PROJECT_DIR and CLAUDE_PROJECT_DIR set to the workspace, as Claude Code sets the latter.
Past its time limit the whole group is killed. Of its stdout and stderr at most
MAX_HOOK_OUTPUT_BYTES each are kept (the rest is read and counted, so a flooding hook never
blocks on a full pipe), decoded, and made terminal-safe (agent/terminal_text.py) before anyone
reads them. What the outcome means for the agent is agent/turn/agent_hooks.py's business.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.claude_code.tools import tool_names
from agent.hooks.config import HOOK_EVENTS, HookSpec
from agent.permissions.modes import CLAUDE_MODES, Mode
from agent.terminal_text import visible
from sessions import model_json
from sessions.model_json import ModelJsonError
from tools.shell import command_environment

# Bytes kept of each of a hook's stdout and stderr: what a hook says is a reason, a lint report
# or a little context; 64 KiB (a pipe buffer's worth) holds a long report whole. What the model
# reads of it is then cut to the tool-output budget (agent/turn/agent_hooks.py).
MAX_HOOK_OUTPUT_BYTES = 64 * 1024
# Bytes per pipe read.
READ_CHUNK_BYTES = 65_536
# Seconds to wait for a hook's pipes to close after its shell exited: a pipe is drained in
# milliseconds, so longer means a background process it started holds them (it is killed).
DRAIN_SECONDS = 2.0
# Seconds to wait for a killed hook's shell to be reaped.
REAP_SECONDS = 5.0
# Exit codes with a meaning: 0 goes on, 2 blocks (what it blocks depends on the event).
EXIT_GO_ON, EXIT_BLOCK = 0, 2
# Characters of a hook's words in a line for the user: a reason with a path or two, on two
# lines of a terminal; the model gets the whole (budgeted) text.
HOOK_NOTICE_CHARS = 400


def one_line(text: str, limit: int = HOOK_NOTICE_CHARS) -> str:
    """`text` on one line, cut to `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True)
class HookRun:
    """How one hook ended: its exit code (None: it did not finish), its output (bounded and
    terminal-safe), and why it did not finish, if it did not.

    A hook says "block" by exiting 2 with a reason on stderr, or, as Claude Code also reads,
    by exiting 0 with a JSON answer on stdout: `{"decision": "block", "reason": ...}`, or
    `{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": ...}}`.
    The rest of Claude Code's answer is read too: `permissionDecision` "allow" or "ask",
    `updatedInput`, `additionalContext`, `continue: false` with `stopReason`, `suppressOutput`
    and `systemMessage` (what each does at each event: agent/turn/agent_hooks.py)."""

    spec: HookSpec
    exit_code: int | None
    stdout: str = ""  # terminal-safe, with a note of what was not kept: for people and models
    stderr: str = ""
    problem: str = ""  # "timed out after 60 s", "cannot start: ...", "killed by signal 9"
    # stdout as it was decoded, before it was made terminal-safe: what the JSON answer is read
    # from (a raw DEL or C1 byte in a reason is valid JSON; its escaped form is not), and
    # whether it was cut at MAX_HOOK_OUTPUT_BYTES.
    raw_stdout: str = ""
    stdout_cut: bool = False

    @property
    def _answer_text(self) -> str:
        return self.raw_stdout.strip() if self.exit_code == EXIT_GO_ON else ""

    @functools.cached_property
    def answer(self) -> dict[str, Any]:
        """Claude Code's JSON answer (exit 0, stdout one JSON object), or {}: stdout past the
        limits of sessions/model_json.py (too deep, a giant number) is text, not an answer."""
        text = self._answer_text
        if not text.startswith("{") or self.stdout_cut:
            return {}
        try:
            value = model_json.loads(text)  # depth and size checked first: never a crash
        except ModelJsonError:
            return {}
        return value if isinstance(value, dict) else {}

    @property
    def answer_cut(self) -> bool:
        """A JSON answer too long to be kept whole (so not read): a guard's deny must not pass
        for a go-on, so PreToolUse takes it for a block."""
        return self.stdout_cut and self._answer_text.startswith("{")

    def _specific(self, key: str) -> Any:
        specific = self.answer.get("hookSpecificOutput")
        return specific.get(key) if isinstance(specific, dict) else None

    def _text(self, found: Any) -> str:
        return visible(found.strip()) if isinstance(found, str) else ""

    @property
    def decision(self) -> str | None:
        """PreToolUse's permission decision: "allow", "ask" or "deny" (None: it leaves the call
        to the permission check, as "defer" does); Claude Code's older `decision` "approve" is
        "allow"."""
        found = self._specific("permissionDecision")
        if found in ("allow", "ask", "deny"):
            return str(found)
        return "allow" if self.answer.get("decision") == "approve" else None

    @property
    def blocked(self) -> bool:
        if self.exit_code == EXIT_BLOCK or self._fails_closed:
            return True
        return self.decision == "deny" or self.answer.get("decision") == "block"

    @property
    def _fails_closed(self) -> bool:
        """A guard that could not answer blocks: a PreToolUse answer cut at the limit, or a
        failure of a hook written with Claude Code's `onFailure: "block"`."""
        if self.spec.event == "PreToolUse" and self.answer_cut:
            return True
        return self.spec.block_on_failure and self.failed

    @property
    def reason(self) -> str:
        """Why a blocking hook blocks (or why it decided as it did): its stderr, or its JSON
        answer's reason."""
        if self.exit_code == EXIT_BLOCK:
            return self.stderr.strip()
        if self._fails_closed and self.failed:
            return f"{self.failure()} (its onFailure is block)"
        if self._fails_closed:
            return (
                f"the hook's JSON answer was over {MAX_HOOK_OUTPUT_BYTES // 1024} KiB, so it "
                "could not be read; the call is blocked"
            )
        return self._text(self._specific("permissionDecisionReason") or self.answer.get("reason"))

    @property
    def context(self) -> str:
        """What a hook that went on printed for the model: its stdout, or its JSON answer's
        additionalContext."""
        if self.exit_code != EXIT_GO_ON or self.blocked:
            return ""
        if not self.answer:
            return self.stdout.strip()
        return self.added_context

    @property
    def added_context(self) -> str:
        """The JSON answer's additionalContext alone (a tool event reads no plain stdout)."""
        return self._text(self._specific("additionalContext"))

    @property
    def updated_input(self) -> dict[str, Any] | None:
        """PreToolUse's `updatedInput`: the tool input to run the call with instead."""
        found = self._specific("updatedInput")
        return found if isinstance(found, dict) and self.decision != "deny" else None

    @property
    def stops(self) -> bool:
        """`continue: false`: the hook stops the turn (or the session's work) altogether."""
        return self.answer.get("continue") is False

    @property
    def stop_reason(self) -> str:
        return self._text(self.answer.get("stopReason"))

    @property
    def suppressed(self) -> bool:
        """`suppressOutput`: what the hook said is not shown to the user."""
        return self.answer.get("suppressOutput") is True

    @property
    def system_message(self) -> str:
        """`systemMessage`: a line for the user (never for the model)."""
        return self._text(self.answer.get("systemMessage"))

    @property
    def failed(self) -> bool:
        """Neither 0 nor 2: reported, and otherwise ignored."""
        return self.exit_code not in (EXIT_GO_ON, EXIT_BLOCK)

    def failure(self) -> str:
        """One line on a failed hook: what happened and the start of what it said."""
        what = self.problem or f"exited with {self.exit_code}"
        said = one_line(self.stderr)
        return f"{self.spec.name} {what}" + (f": {said}" if said else "")


def hook_environment(workspace: Path, secrets: Iterable[str] = ()) -> dict[str, str]:
    """The commands' environment, less any variable whose value holds one of `secrets` (the
    API key from config.toml, which no variable names), plus the project directory."""
    known = [secret for secret in secrets if secret]
    env = {
        name: value
        for name, value in command_environment().items()
        if not any(secret in value for secret in known)
    }
    env["PLEAT_PROJECT_DIR"] = env["CLAUDE_PROJECT_DIR"] = str(workspace)
    return env


class HookSet:
    """The hooks of one run, from every source (config.toml, Claude Code's settings files:
    agent/hooks/claude_settings.py), each command once per event and matcher (a hook in two files
    runs once, as in Claude Code). A project's hooks join when the user approves them, so the
    agents of the run share one set."""

    def __init__(self, specs: Iterable[HookSpec] = (), notes: Iterable[str] = ()) -> None:
        self.specs: tuple[HookSpec, ...] = ()
        # Lines for the user about the hooks' sources: what was left out, and why.
        self.notes: list[str] = list(notes)
        self.add(specs)

    def add(self, specs: Iterable[HookSpec]) -> None:
        """Add hooks not already in the set."""
        seen = {(s.event, s.matcher.pattern, s.command) for s in self.specs}
        added: list[HookSpec] = []
        for spec in specs:
            key = (spec.event, spec.matcher.pattern, spec.command)
            if key not in seen:
                seen.add(key)
                added.append(spec)
        self.specs = (*self.specs, *added)

    def idle_events(self) -> list[str]:
        """Claude Code's events that hooks of the set name but pleat does not run (yet)."""
        return sorted({spec.event for spec in self.specs if spec.event not in HOOK_EVENTS})

    def idle_note(self) -> str | None:
        """One line naming the events whose hooks are kept but never run, or None."""
        idle = self.idle_events()
        if not idle:
            return None
        return (
            f"hooks for {', '.join(idle)} are read but not run: pleat does not have "
            f"{'these events' if len(idle) > 1 else 'this event'} yet"
        )


class HookRunner:
    """The hooks of one session: runs those of an event that match, concurrently (as Claude
    Code does), each with the event's JSON on stdin."""

    def __init__(
        self,
        hooks: HookSet | Sequence[HookSpec],
        workspace: Path,
        *,
        session_id: str,
        transcript_path: Path | None,
        secrets: Iterable[str] = (),
    ) -> None:
        self.hooks = hooks if isinstance(hooks, HookSet) else HookSet(hooks)
        self.workspace = workspace
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.secrets = tuple(secrets)
        # For a sub-agent's hooks: which one (agent_id, agent_type, agent_transcript_path, as
        # Claude Code names them), added to every payload; empty for the main agent's.
        self.subagent: dict[str, str] = {}

    def for_subagent(self, agent_id: str, agent_type: str, transcript: Path) -> HookRunner:
        """The same hooks for a sub-agent (agent/subagents/team.py): its payloads keep the session's
        id and transcript and name the sub-agent's (its sub-session) besides."""
        runner = HookRunner(
            self.hooks,
            self.workspace,
            session_id=self.session_id,
            transcript_path=self.transcript_path,
            secrets=self.secrets,
        )
        runner.subagent = {
            "agent_id": agent_id,
            "agent_type": agent_type,
            "agent_transcript_path": str(transcript),
        }
        return runner

    @property
    def specs(self) -> tuple[HookSpec, ...]:
        return self.hooks.specs

    def has(self, event: str) -> bool:
        return any(spec.event == event for spec in self.specs)

    def matching(self, event: str, subjects: Sequence[str] = ()) -> list[HookSpec]:
        return [s for s in self.specs if s.event == event and s.matcher.matches(subjects)]

    def payload(self, event: str, mode: Mode, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object a hook reads: Claude Code's common fields, then the event's."""
        return {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript_path) if self.transcript_path else None,
            "cwd": str(self.workspace),
            "hook_event_name": event,
            "permission_mode": CLAUDE_MODES[mode],  # Claude Code's name ...
            "pleat_permission_mode": mode,  # ... and pleat's
            **self.subagent,
            **fields,
        }

    async def run(
        self,
        event: str,
        mode: Mode,
        fields: Mapping[str, Any],
        subjects: Sequence[str] = (),
        specs: Sequence[HookSpec] | None = None,
    ) -> list[HookRun]:
        """Run every hook of `event` whose matcher selects one of `subjects` (or `specs`, when
        the caller chose them); their outcomes in the configuration's order (none: nothing
        matched)."""
        specs = self.matching(event, subjects) if specs is None else specs
        if not specs:
            return []
        # ASCII JSON (any character escaped): valid whatever the text holds; `str` for a value
        # JSON has no form for, so an odd tool argument never stops the hooks.
        data = json.dumps(self.payload(event, mode, fields), default=str).encode("ascii")
        env = hook_environment(self.workspace, self.secrets)
        runs = [run_hook(spec, data, self.workspace, env) for spec in specs]
        return list(await asyncio.gather(*runs))


def tool_subjects(name: str) -> tuple[str, ...]:
    """The names a matcher may select a tool by: pleat's, and Claude Code's where it has one."""
    return tool_names(name)


async def run_hook(spec: HookSpec, stdin: bytes, cwd: Path, env: Mapping[str, str]) -> HookRun:
    """Run one hook to its end, its time limit, or the caller's cancellation (which kills it
    and is raised again)."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    # Our own pipes for its output, not PIPE: asyncio's Process.wait() also waits for those to
    # close, which a background process the hook started could keep open for ever.
    try:
        process = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            spec.command,
            cwd=cwd,
            env=dict(env),
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
    return await _supervise(spec, process, stdin, out_read, err_read)


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
    readers: list[asyncio.Task[tuple[bytes, int]]] = []
    transports: list[asyncio.BaseTransport] = []
    files = [os.fdopen(out_fd, "rb", buffering=0), os.fdopen(err_fd, "rb", buffering=0)]
    feeder = asyncio.create_task(_feed(process, stdin))
    try:
        for pipe in files:
            reader = asyncio.StreamReader()
            protocol = functools.partial(asyncio.StreamReaderProtocol, reader)
            connected, _ = await loop.connect_read_pipe(protocol, pipe)
            transports.append(connected)
            readers.append(asyncio.create_task(_read_capped(reader)))
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
            await asyncio.wait(lingering, timeout=REAP_SECONDS)
        (raw, out_total), (err_kept, err_total) = (
            r.result() if r.done() else (b"", 0) for r in readers
        )
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


async def _read_capped(reader: asyncio.StreamReader) -> tuple[bytes, int]:
    """Read to the end; keep the first MAX_HOOK_OUTPUT_BYTES, count all."""
    kept = bytearray()
    total = 0
    while chunk := await reader.read(READ_CHUNK_BYTES):
        total += len(chunk)
        room = MAX_HOOK_OUTPUT_BYTES - len(kept)
        if room > 0:
            kept += chunk[:room]
    return bytes(kept), total


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
