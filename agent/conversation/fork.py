"""/fork: a new session that carries this one's summary and chunk index, linked to its parent."""

from __future__ import annotations

from agent.events import CompactionDone, CompactionFailed, HookNotice
from agent.turn.loop import Agent
from sessions.goal import goal_record
from sessions.journal import now
from sessions.messages import Message
from sessions.store import MAX_FORK_DEPTH, Session, SessionError


class ForkRefused(SessionError):
    """The fork-depth limit: forks of forks of forks lose too much to be useful."""


async def fork_session(agent: Agent, parent: Session) -> tuple[Session, list[Message], str]:
    """Fold the parent now (so the child starts from a fresh summary), then open a child
    session whose history is the parent's rebuilt one, whose archive holds copies of the
    parent's chunks (the reader tool reads only its own session's archive), and whose goal is
    the parent's. Returns the child, its history, and a line saying what happened. The parent
    is left as it was after the fold."""
    depth = parent.fork_depth + 1
    if depth > MAX_FORK_DEPTH:
        raise ForkRefused(
            f"this session is already a fork of a fork of a fork (depth {parent.fork_depth}); "
            "start a new session instead"
        )
    note = "forked without a fold"
    hooks_said: list[str] = []  # PreCompact, PostCompact: a line each, after the note
    async for event in agent.compact(reason="fork", focus="handing the work over to a fork"):
        if isinstance(event, HookNotice):
            hooks_said.append(event.message)
        elif isinstance(event, CompactionDone):
            note = f"forked after folding {event.folded_messages} messages into chunk {event.chunk}"
        elif isinstance(event, CompactionFailed):
            note = f"forked without a fold ({event.message})"
    child = Session.create(
        agent.context.workspace,
        model=str(parent.header.get("model", "")),
        parent=parent.id,
        depth=depth,
    )
    # The parent's secrets (the API key) stay off the child's disk too: its history is journaled
    # below, before any agent of its own sets them.
    child.journal.secrets, child.archive.secrets = parent.journal.secrets, parent.archive.secrets
    child.outputs.secrets = parent.outputs.secrets
    newest = child.archive.copy_from(parent.archive)
    child.outputs.copy_from(parent.outputs)  # the history cites kept outputs by number
    parent.images.copy_all_into(child.images.directory)  # and attached images by name
    history = [Message.from_record(m.to_record()) for m in agent.history]
    # Recorded as a compaction: replay yields this history, and the copied chunks are the
    # recorded archive state (so resuming the child keeps them).
    child.journal.compaction(
        chunk=newest.number if newest else 0,
        merged=False,
        chunk_state=newest.state() if newest else {},
        history=history,
    )
    if agent.goal is not None:  # the goal goes on in the fork (its agent starts with it)
        child.record(goal_record(agent.goal, now()))
        child.goal = agent.goal
    await child.sync()
    note = f"{note}; new session {child.id} (parent {parent.id}, depth {depth})"
    return child, history, "\n".join([note, *hooks_said])
