"""The open session and its agent: open, new, resume, fork, switch model (no UI here)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from agent.assemble import build_agent, open_session
from agent.config import Config
from agent.fork import fork_session
from agent.llm import resolve_model
from agent.loop import Agent
from agent.permissions import Approver
from sessions.messages import Message
from sessions.store import Session, SessionError, list_sessions


class SessionHost:
    """Holds at most one open session (its lock) and the agent working in it. Every switch
    opens the new session before closing the old one, so a failure leaves the old one open."""

    def __init__(self, config: Config, workspace: Path, approve: Approver) -> None:
        self.config = config
        self.workspace = workspace
        self.approve = approve
        self.session: Session | None = None
        self.agent: Agent | None = None

    def open(
        self, *, resume: str | None = None, continue_latest: bool = False
    ) -> tuple[list[Message] | None, list[str]]:
        """The first session: new, or resumed. Returns the resumed history (None for a new
        session) and notes on repairs. Raises ConfigError, SessionError or SessionBusy."""
        self.config.model_settings()  # no usable model: say so before creating a session
        session, history, notes = open_session(
            self.config, self.workspace, resume=resume, continue_latest=continue_latest
        )
        self._adopt(session, history)
        return history, notes

    def new(self) -> None:
        """A fresh session in the same workspace."""
        self._adopt(Session.create(self.workspace, model=self.config.model or ""), None)

    def resume(self, wanted: str) -> tuple[list[Message], list[str]]:
        """Switch to another session of this workspace, by id or a unique prefix of one.
        Raises SessionError (unknown, ambiguous, current, other workspace) or SessionBusy."""
        session_id = self.find(wanted)
        session, history, notes = Session.resume(session_id)
        self._adopt(session, history)
        return history, notes

    def find(self, wanted: str) -> str:
        """The id of this workspace's session that `wanted` names."""
        ids = [s.id for s in list_sessions(self.workspace)]
        matches = [i for i in ids if i == wanted] or [i for i in ids if i.startswith(wanted)]
        if not matches:
            raise SessionError(f"no session {wanted!r} in this workspace (see /sessions)")
        if len(matches) > 1:
            raise SessionError(f"{wanted!r} names {len(matches)} sessions: give more of the id")
        if self.session is not None and matches[0] == self.session.id:
            raise SessionError(f"session {matches[0]} is the one open")
        return matches[0]

    async def fork(self) -> str:
        """Fold this session and continue in a child that carries its summary and chunks;
        returns the line saying what happened. Raises ForkRefused past the depth limit."""
        assert self.agent is not None and self.session is not None
        child, history, note = await fork_session(self.agent, self.session)
        self._adopt(child, history)
        return note

    async def check_model(self, model: str) -> None:
        """Raise LLMError when litellm cannot route `model` (a thread: it may import litellm)."""
        settings = dataclasses.replace(self.config, model=model).model_settings()
        await asyncio.to_thread(resolve_model, settings)

    def set_model(self, model: str) -> None:
        """Use `model` for the next calls, keeping the conversation (the compactor is rebuilt:
        the new model's window sets the budget)."""
        assert self.agent is not None and self.session is not None
        self.config = dataclasses.replace(self.config, model=model)
        self.agent = self._build(self.session, list(self.agent.history))

    def close(self) -> None:
        """Close the session (journal flushed, lock released); the agent stays readable."""
        if self.session is not None:
            self.session.close()
        self.session = None

    def _build(self, session: Session, history: list[Message] | None) -> Agent:
        return build_agent(
            self.config, self.workspace, self.approve, session=session, history=history
        )

    def _adopt(self, session: Session, history: list[Message] | None) -> None:
        """Make `session` the open one (closing the previous one once the new agent exists)."""
        try:
            agent = self._build(session, history)
        except BaseException:
            session.close()
            raise
        if self.session is not None and self.session is not session:
            self.session.close()
        self.session, self.agent = session, agent
