"""The model used when none is configured: the first one found at start-up, and the line that
says so (tui/models.py picks and switches models; this runs before any of that is needed)."""

from __future__ import annotations

import os

from agent.model.discovery import FoundModel, first_model
from agent.terminal_text import visible
from tui.host import Host

# Said after a start without a configured model, once the first model found is in use.
FOUND_NOTE = (
    "no model configured: using {name} ({source}), the first one found · /model picks another, "
    "and Ctrl+S there saves it as the default"
)


async def first_found(host: Host) -> FoundModel | None:
    """At start-up, when the configuration loaded but names no model: the first model found
    (agent.model.discovery.first_model); None otherwise."""
    config = host.startup.config
    if host.startup.config_error is not None or config is None or config.model:
        return None
    host.status.state = "looking for a model"  # servers get PROBE_SECONDS at most
    try:
        return await first_model(os.environ, config.local_model_servers, config.api_base)
    finally:
        host.status.state = "idle"


def found_note(model: FoundModel) -> str:
    return visible(FOUND_NOTE.format(name=model.name, source=model.source))
