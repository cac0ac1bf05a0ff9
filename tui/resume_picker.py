"""The resume picker (`/resume`, and `pleat --resume` with no id) and /rename, whose name is the
title the picker shows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from sessions.journal import now
from sessions.session_name import SessionNameError, checked_name, name_record
from tui.host import Host

if TYPE_CHECKING:
    from sessions.store import SessionInfo

# What `pleat --resume` without an id hands the TUI as the session to resume: pick one first.
PICK = ""


def listed_sessions(workspace: Path) -> tuple[list[SessionInfo], str | None]:
    """This workspace's sessions from the archive index (said once when it was rebuilt); from
    their journals when the index cannot be used."""
    from sessions.archive_index import IndexUnavailable
    from sessions.index_listing import indexed_sessions
    from sessions.store import list_sessions

    try:
        return indexed_sessions(workspace)
    except IndexUnavailable as error:
        return list_sessions(workspace), f"{error}; the journals were read instead"


async def pick_session(host: Host) -> str | None:
    """The session of this workspace the user picks (None: none listed, or Escape)."""
    from tui.screens.sessions import SessionsScreen

    found, notice = await asyncio.to_thread(listed_sessions, host.workspace)
    if notice:
        host.notify(notice)
    if not found:
        return None
    current = host.session.id if host.session is not None else None
    chosen: str | None = await host.ask_screen(SessionsScreen(found, current))
    return chosen


async def rename(host: Host, text: str) -> None:
    """Name the session (journaled: the name survives a resume and titles it in the picker)."""
    assert host.session is not None
    try:
        name = checked_name(text)
    except SessionNameError as error:
        await host.conversation.add_notice(f"cannot rename: {error}", "error")
        return
    host.session.record(name_record(name, now()))
    await host.conversation.add_notice(
        f"this session is now called “{name}” (its title in /resume)"
    )
