"""Claude Code's settings as two layers of pleat's configuration (agent/config.py): the user's file
below config.toml, a project's approved files above it, as Claude Code layers user < project <
local. Each value is checked as config.toml's would be, but leniently: a value pleat cannot use
is one line in the settings' notes and is left out; the run starts all the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.claude_code.settings import ClaudeSettings

# Checks values as agent/config.py's _validated does: (values, source) -> checked values,
# raising its ConfigError (a ValueError's kin: the caller names the class) for a bad one.
Check = Callable[[dict[str, Any], str], dict[str, Any]]
# How the rule kinds are named in a settings file.
RULE_KINDS = ("allow", "ask", "deny")


def claude_layers(
    claude: ClaudeSettings, check: Check, error: type[Exception]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the user's layer, the project's layer) in config keys; the rules of every file go into
    the user's (rule lists add up, wherever they sit), each rule checked on its own."""
    user = _values(claude.user_values, claude.notes, check, error)
    project = _values(claude.project_values, claude.notes, check, error)
    for kind in RULE_KINDS:
        kept: list[str] = []
        for rule, label in claude.rules(kind):
            try:
                kept += check({kind: [rule]}, label)[kind]
            except error as problem:
                claude.notes.append(f"{problem} (permissions.{kind}); that rule is not used")
        if kept:
            user[kind] = tuple(kept)
    return user, project


def _values(
    values: dict[str, tuple[Any, str]], notes: list[str], check: Check, error: type[Exception]
) -> dict[str, Any]:
    """Each (value, label) checked on its own; a bad one said in `notes` and left out."""
    out: dict[str, Any] = {}
    for key, (value, label) in values.items():
        try:
            out.update(check({key: value}, label))
        except error as problem:
            notes.append(f"{problem}; not used")
    return out
