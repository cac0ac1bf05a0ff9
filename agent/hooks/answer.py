"""How one hook ended and what it said: its exit code, its output (bounded, terminal-safe), and
Claude Code's JSON answer read from it (a block, a permission decision, a changed input, context,
a stop, a message for the user). What each means at each event is agent/turn/agent_hooks.py's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from agent.hooks.config import HookSpec
from agent.terminal_text import visible
from sessions import model_json
from sessions.model_json import ModelJsonError

# Exit codes with a meaning: 0 goes on, 2 blocks (what it blocks depends on the event).
EXIT_GO_ON, EXIT_BLOCK = 0, 2
# Characters of a hook's words in a line for the user: a reason with a path or two, on two
# lines of a terminal; the model gets the whole (budgeted) text.
HOOK_NOTICE_CHARS = 400


def one_line(text: str, limit: int = HOOK_NOTICE_CHARS) -> str:
    """`text` on one line, cut to `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


# Bytes kept of each of a hook's stdout and stderr: what a hook says is a reason, a lint report
# or a little context; 64 KiB (a pipe buffer's worth) holds a long report whole. What the model
# reads of it is then cut to the tool-output budget (agent/turn/agent_hooks.py).
MAX_HOOK_OUTPUT_BYTES = 64 * 1024


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
