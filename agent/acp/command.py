"""`pleat acp`: serve the Agent Client Protocol on stdin and stdout until the editor closes the
pipe; logs go to stderr (the editor's log view), never to stdout."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from agent.acp.server import PleatAgent

# The variable that sets how much `pleat acp` logs on stderr (the editor's log view): WARNING by
# default, DEBUG to see each session's life.
LOG_VARIABLE = "PLEAT_ACP_LOG"
LEVELS = frozenset({"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"})


def serve(flags: Mapping[str, Any], *, approve_everything: bool) -> int:
    """Run the agent to the end of its input; 0 when the editor closed the connection."""
    from agent.acp.stdio import protocol_stdout
    from agent.model.offline import prepare_offline_env

    rpc = protocol_stdout()
    named = os.environ.get(LOG_VARIABLE, "WARNING").upper()
    logging.basicConfig(
        level=named if named in LEVELS else "WARNING",
        format="pleat acp: %(levelname)s %(name)s: %(message)s",
    )
    prepare_offline_env()

    def configure(workspace: Path) -> tuple[Any, list[str], Any]:
        from agent.session.configure import configure as read

        config, claude = read(workspace, flags, approve_all=approve_everything)
        return config, list(claude.notes), claude.plugin_settings

    agent = PleatAgent(configure, approve_everything=approve_everything)
    asyncio.run(_run(agent, rpc))
    return 0


async def _run(agent: PleatAgent, rpc: int) -> None:
    from acp.core import AgentSideConnection
    from acp.interfaces import Agent

    from agent.acp.commands import announce_after_new_session
    from agent.acp.stdio import streams

    reader, writer = await streams(rpc)
    # pleat offers the protocol's stable methods; the SDK's unstable ones (fork, resume, config
    # options) are answered "method not found" by its router.
    connection = AgentSideConnection(
        cast(Agent, agent),
        writer,
        reader,
        listening=False,
        observers=[announce_after_new_session(agent.sessions)],
    )
    try:
        await connection.listen()
    finally:
        await agent.close_all()
        await connection.close()
