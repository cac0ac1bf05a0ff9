"""The hook runner: the hooks of a run (one set, from every source), and running those of one event
that match, concurrently, each given the event as JSON on stdin (agent/hooks/process.py).

Every hook gets the commands' environment (tools/shell.py: no variable named like a secret, none
holding one; the configured key cut out wherever it stands) plus PLEAT_PROJECT_DIR and
CLAUDE_PROJECT_DIR set to the workspace, as Claude Code sets the latter. How a hook ended is
agent/hooks/answer.py's; what the outcome means for the agent is agent/turn/agent_hooks.py's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.claude_code.tools import tool_names
from agent.hooks.answer import HookRun
from agent.hooks.config import HOOK_EVENTS, HookSpec
from agent.hooks.process import run_hook
from agent.permissions.modes import CLAUDE_MODES, Mode
from sessions.secret_names import MIN_KNOWN_SECRET_CHARS
from tools.sandbox.policy import Sandbox
from tools.shell import command_environment


def hook_environment(workspace: Path, secrets: Iterable[str] = ()) -> dict[str, str]:
    """The commands' environment with each of `secrets` (the API key from config.toml or
    --api-key, which no variable names) cut out where it stands, plus the project directory.
    Only a value long enough to be a secret counts as one (MIN_KNOWN_SECRET_CHARS): a local
    server's dummy key `x` must not take away every variable holding an x (HOME, PATH ...)."""
    known = sorted({s for s in secrets if len(s) >= MIN_KNOWN_SECRET_CHARS}, key=len, reverse=True)
    env = command_environment()
    for name, value in env.items():
        for secret in known:
            value = value.replace(secret, "")
        env[name] = value
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
        sandbox: Sandbox | None = None,
    ) -> None:
        self.hooks = hooks if isinstance(hooks, HookSet) else HookSet(hooks)
        self.sandbox = sandbox  # where the hooks run, as the model's commands do
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
            sandbox=self.sandbox,
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
        runs = [run_hook(spec, data, self.workspace, env, self.sandbox) for spec in specs]
        return list(await asyncio.gather(*runs))


def tool_subjects(name: str) -> tuple[str, ...]:
    """The names a matcher may select a tool by: pleat's, and Claude Code's where it has one."""
    return tool_names(name)
