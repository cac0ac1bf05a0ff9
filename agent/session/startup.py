"""What the command line asked a front end to open: the configuration and the first session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.config import Config


@dataclass(frozen=True)
class Startup:
    """The configuration (None, with config_error saying why, when there is none usable) and
    the session to open first: a new one, `resume` (an id), or the latest (`continue_latest`)."""

    config: Config | None
    config_error: str | None = None
    resume: str | None = None
    continue_latest: bool = False
    # Lines about the settings read at start (Claude Code's files: what was not used, and why),
    # said once the session is open (tui/hook_approval.py).
    notes: tuple[str, ...] = ()
    # Claude Code's enabledPlugins and extraKnownMarketplaces, from its settings files (the
    # session controller loads the plugins with them: agent/plugins/loaded.py).
    plugin_settings: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {})
