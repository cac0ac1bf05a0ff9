"""`pleat sessions`: a sub-agent's session is listed under its parent, or says whose it is."""

from __future__ import annotations

from pathlib import Path

from sessions.store import SUBAGENT, Session, SessionInfo, format_sessions, latest_session


def info(id: str, parent: str | None = None) -> SessionInfo:
    """A listed session; one with a parent is a sub-agent's."""
    row = SessionInfo(id, "/ws", "2026-01-01T10:00", 0.0, 2, 0, f"request of {id}", parent)
    row.kind = SUBAGENT if parent is not None else None
    return row


def test_sub_agents_are_listed_under_their_parent() -> None:
    listed = [info("c1", "p"), info("other"), info("p"), info("c2", "p")]
    rows = format_sessions(listed).splitlines()[1:]
    assert [row.split()[0] for row in rows] == ["other", "p", "↳", "↳"]
    assert rows[2].startswith("  ↳ c1") and rows[2].endswith("[sub-agent] request of c1")
    assert rows[3].startswith("  ↳ c2")


def test_a_sub_agent_whose_parent_is_not_listed_names_it() -> None:
    (row,) = format_sessions([info("c1", "gone")]).splitlines()[1:]
    assert row.startswith("  ↳ c1") and row.endswith("[sub-agent of gone] request of c1")


def test_continue_never_picks_a_sub_agents_session(workspace: Path) -> None:
    parent = Session.create(workspace, model="m")
    parent.close()
    child = Session.create(workspace, model="m", parent=parent.id, kind="subagent")
    child.close()
    assert latest_session(workspace) == parent.id
