"""`pleat -p "/export [FILE]" --continue` and `pleat -p /diff --continue`: the conversation as a
markdown file, and the session's changes as a diff; neither calls the model."""

from __future__ import annotations

import asyncio
from typing import TextIO

from agent.conversation.export import ExportRefused, export_conversation
from agent.conversation.session_diff import this_sessions_diff
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_OK
from agent.turn.loop import Agent
from sessions.store import Session


async def run_export(agent: Agent, session: Session, arg: str, out: TextIO, err: TextIO) -> int:
    """Write the conversation to FILE (default: a dated name in the workspace); say where."""
    try:
        exported = await asyncio.to_thread(
            export_conversation,
            session.id,
            agent.context.workspace,
            list(agent.history),
            session.archive,
            arg,
        )
    except ExportRefused as error:
        print(f"pleat: error: {error}", file=err)
        return EXIT_CONFIG
    out.write(exported.line() + "\n")
    return EXIT_OK


async def run_diff(agent: Agent, session: Session, _: str, out: TextIO, err: TextIO) -> int:
    """Print what this session changed in the workspace, as a unified diff."""
    found = await this_sessions_diff(agent, session)
    out.write(found.text() + "\n")
    return EXIT_OK


# Their rows of agent/headless/run.py's HEADLESS_COMMANDS.
TAKE_AWAY_COMMANDS = {"/export": run_export, "/diff": run_diff}
