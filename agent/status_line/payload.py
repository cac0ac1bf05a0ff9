"""The JSON a status line command reads on stdin: Claude Code's documented fields, filled with
what pleat knows, and null where it does not know (never a made-up number).

pleat has no `cd` and one workspace, so `cwd`, `workspace.current_dir` and
`workspace.project_dir` are all the workspace. Durations count this run of pleat (a resumed
session's earlier runs kept their bill, not their timings); the lines added and removed are not
counted (null: `/diff` shows them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.mcp.server import client_version
from sessions.usage import Usage, UsageTally

# The event name Claude Code gives the status line's input, as hooks get theirs.
STATUS_EVENT = "Status"
# Claude Code's only output style when none is chosen.
DEFAULT_OUTPUT_STYLE = "default"
# Claude Code's `exceeds_200k_tokens`: the context past 200,000 tokens, the size above which
# Anthropic bills long-context rates for its 1M-token models.
LONG_CONTEXT_TOKENS = 200_000
# Percentages are whole numbers, as Claude Code gives them.
PERCENT = 100


@dataclass(frozen=True)
class StatusFacts:
    """What the front end knows of the open session when the line is refreshed."""

    session_id: str
    transcript_path: Path | None  # the session's journal
    workspace: Path
    model: str  # litellm's name, e.g. "anthropic/claude-sonnet-4-5"
    usage: UsageTally  # every call of the session (turns, folds, sub-agents)
    last_call: Usage | None  # the last model call's usage (None before the first)
    context_used: int | None  # tokens the next request carries (None: not counted yet)
    context_window: int | None  # the model's window (None: not known yet)
    duration_ms: int  # since this run opened the session
    output_style: str = DEFAULT_OUTPUT_STYLE


def status_payload(facts: StatusFacts) -> dict[str, Any]:
    """Claude Code's status line input for `facts`."""
    workspace = str(facts.workspace)
    return {
        "hook_event_name": STATUS_EVENT,
        "session_id": facts.session_id,
        "transcript_path": str(facts.transcript_path) if facts.transcript_path else None,
        "cwd": workspace,
        "model": {"id": facts.model, "display_name": display_name(facts.model)},
        "workspace": {"current_dir": workspace, "project_dir": workspace},
        "version": client_version(),
        "output_style": {"name": facts.output_style},
        "cost": {
            "total_cost_usd": facts.usage.cost,  # null: litellm knows no price for the model
            "total_duration_ms": facts.duration_ms,
            "total_api_duration_ms": facts.usage.api_ms,
            "total_lines_added": None,
            "total_lines_removed": None,
        },
        "context_window": _context_window(facts),
        "exceeds_200k_tokens": (facts.context_used or 0) > LONG_CONTEXT_TOKENS,
    }


def display_name(model: str) -> str:
    """The model's name without litellm's provider prefix: `gpt-4o` for `openai/gpt-4o`."""
    return model.rsplit("/", 1)[-1] or model


def _context_window(facts: StatusFacts) -> dict[str, Any]:
    """Claude Code's `context_window`: the session's token totals, the window, the share of it
    the next request uses, and the last call's usage in Anthropic's terms (input_tokens without
    the cached parts)."""
    used, window = facts.context_used, facts.context_window
    share = round(used / window * PERCENT) if used is not None and window else None
    last = facts.last_call
    current = None
    if last is not None:
        cached = last.cached_tokens + last.cache_creation_tokens
        current = {
            "input_tokens": max(0, last.prompt_tokens - cached),
            "output_tokens": last.completion_tokens,
            "cache_creation_input_tokens": last.cache_creation_tokens,
            "cache_read_input_tokens": last.cached_tokens,
        }
    return {
        "total_input_tokens": facts.usage.prompt_tokens,
        "total_output_tokens": facts.usage.completion_tokens,
        "context_window_size": window,
        "used_percentage": share,
        "remaining_percentage": None if share is None else max(0, PERCENT - share),
        "current_usage": current,
    }
