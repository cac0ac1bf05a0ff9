"""The configuration a front end opens a workspace with: Claude Code's settings files (their
`env` set first, as Claude Code sets it), config.toml, the variables and the flags, in one
order; what was not used said in the settings' notes."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.claude_code.settings import ClaudeSettings
    from agent.config import Config


def configure(
    workspace: Path, flags: Mapping[str, Any], *, approve_all: bool
) -> tuple[Config, ClaudeSettings]:
    """The configuration for `workspace` with the command line's `flags` (load_config's
    overrides), and Claude Code's settings read for it. Sets the settings' `env` in this
    process (pleat and everything it starts see it). Raises ConfigError or ValueError."""
    from agent.claude_code.settings import read_claude_settings
    from agent.config import load_config

    claude = read_claude_settings(workspace, os.environ, approve_all=approve_all)
    os.environ.update(claude.env)
    config = with_claude_status_line(load_config(dict(flags), claude=claude), claude)
    if config.output_style:
        from agent.commands.output_styles import find_style

        if problem := find_style(config.output_style, workspace, os.environ).problem:
            claude.notes.append(problem)
    return config, claude


def with_claude_status_line(config: Config, claude: ClaudeSettings) -> Config:
    """The status line command: config.toml's [status_line], else Claude Code's `statusLine`
    (the user's file, or a project's once approved: agent/claude_code/settings.py)."""
    if config.status_line is not None or claude.status_line is None:
        return config
    from agent.status_line.spec import parse_status_line

    value, label = claude.status_line
    spec, problems = parse_status_line(value, label)
    claude.notes.extend(problems)
    return config if spec is None else dataclasses.replace(config, status_line=spec)
