"""pleat's ACP agent: the protocol's methods (initialize, session/new, session/load,
session/prompt, session/cancel, session/set_mode, session/list) over pleat's sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
)

from agent.acp.asking import EditorAsking
from agent.acp.client_servers import client_servers
from agent.acp.editor import ClientFiles
from agent.acp.lifecycle import begin_session, end_session
from agent.acp.replay import replayed
from agent.acp.session import EditorSession
from agent.permissions.modes import MODE_HELP, MODES
from agent.session.asking import SessionApprovals
from agent.terminal_text import visible

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.config import Config


# JSON-RPC's code for bad parameters, and ACP's for a resource (here: a session) not found.
INVALID_PARAMS = -32602
NOT_FOUND = -32002

# The configuration for a workspace: the command line's flags over its settings (raises
# ConfigError or ValueError, said to the editor as the session's error).
Configure = Callable[
    [Path], tuple["Config", list[str], tuple[Mapping[str, Any], Mapping[str, Any]]]
]


def pleat_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pleat-agent")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0.0.0"


def modes(current: str) -> SessionModeState:
    """pleat's permission modes as the session's modes (the editor's mode picker)."""
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=m, name=m, description=MODE_HELP[m]) for m in MODES],
    )


async def with_found_model(config: Config) -> tuple[Config, list[str]]:
    """No model configured: the first one found (a provider key, a local server:
    agent/model/discovery.py), and the line saying so and how to keep it; the configuration
    unchanged when there is none (session/new then says "no model configured")."""
    import dataclasses
    import os

    from agent.model.discovery import first_model

    found = await first_model(os.environ, config.local_model_servers, config.api_base)
    if found is None:
        return config, []
    line = (
        f"no model configured: using {found.name} ({found.source}), the first one found; "
        f"to keep it, set model in config.toml or pass --model to pleat acp"
    )
    return dataclasses.replace(config, model=found.name, api_base=found.api_base), [line]


def bad_params(line: str) -> RequestError:
    """JSON-RPC's invalid params, its message the one line an editor shows."""
    return RequestError(INVALID_PARAMS, f"pleat: {visible(line)}", {"details": visible(line)})


def not_found(line: str) -> RequestError:
    """ACP's resource not found (an unknown or closed session), its message one line."""
    return RequestError(NOT_FOUND, f"pleat: {visible(line)}", {"details": visible(line)})


def workspace_of(cwd: str) -> Path:
    path = Path(cwd).expanduser()
    if not path.is_absolute() or not path.is_dir():
        raise bad_params(f"cwd must be an existing absolute directory, not {cwd!r}")
    return path.resolve()


class PleatAgent:
    """The agent side of one connection: the editor sessions it opened, by id."""

    def __init__(self, configure: Configure, *, approve_everything: bool) -> None:
        self.configure = configure
        self.approve_everything = approve_everything
        self.client: Client | None = None
        self.sessions: dict[str, EditorSession] = {}
        self.client_fs = (False, False)  # the editor reads / writes files for pleat
        self.on_new_session: Callable[[EditorSession], None] | None = None

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **_: Any,
    ) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.client_fs = (
            bool(getattr(fs, "read_text_file", False)),
            bool(getattr(fs, "write_text_file", False)),
        )
        return InitializeResponse(
            # The one version pleat speaks: the same as asked, or else its own (ACP's rule).
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="pleat", title="pleat", version=pleat_version()),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        """pleat offers no authentication method (the model's keys are its configuration's);
        a client that authenticates anyway (an adapter made for another agent) is let through."""
        return None

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> NewSessionResponse:
        editor = await self._open(workspace_of(cwd), None, mcp_servers)
        if self.on_new_session is not None:
            self.on_new_session(editor)
        return NewSessionResponse(session_id=editor.id, modes=modes(self._mode(editor)))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        from sessions.index_listing import listed_sessions

        workspace = workspace_of(cwd)
        found, _said = await asyncio.to_thread(listed_sessions, workspace)
        if session_id not in {s.id for s in found}:
            raise not_found(f"no session {session_id!r} in {workspace} (pleat sessions lists them)")
        if (open_one := self.sessions.pop(session_id, None)) is not None:
            await self._close(open_one)  # loaded again: its journal is read afresh
        editor = await self._open(workspace, session_id, mcp_servers)
        agent, session = editor.controller.agent, editor.controller.session
        assert agent is not None and session is not None
        for update in replayed(agent, session):
            await editor.send(update)
        return LoadSessionResponse(modes=modes(self._mode(editor)))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        """pleat's sessions of `cwd` (every workspace's without it), newest first; sub-agents'
        sessions are not listed (they open with their parent's)."""
        from datetime import UTC, datetime

        from sessions.index_listing import listed_sessions

        workspace = workspace_of(cwd) if cwd else None
        found, _said = await asyncio.to_thread(listed_sessions, workspace)
        listed = [
            SessionInfo(
                session_id=s.id,
                cwd=s.workspace,
                title=visible(s.title) or None,
                updated_at=datetime.fromtimestamp(s.last_active, UTC).isoformat(),
            )
            for s in found
            if s.kind != "subagent"
        ]
        return ListSessionsResponse(sessions=listed)

    async def set_session_mode(
        self, session_id: str, mode_id: str, **_: Any
    ) -> SetSessionModeResponse:
        editor = self._session(session_id)
        mode = next((m for m in MODES if m == mode_id), None)
        if mode is None:
            raise bad_params(f"no mode {mode_id!r}: the modes are {', '.join(MODES)}")
        editor.controller.approvals.permissions.set_mode(mode)
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        editor = self._session(session_id)
        from agent.acp.commands import runner

        reason = await editor.prompt(prompt, runner(editor))
        return PromptResponse(stop_reason=reason)

    async def cancel(self, session_id: str, **_: Any) -> None:
        editor = self.sessions.get(session_id)
        if editor is not None:  # a notification: an unknown session is nothing to stop
            editor.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def _session(self, session_id: str) -> EditorSession:
        editor = self.sessions.get(session_id)
        if editor is None:
            raise not_found(f"session {session_id!r} is not open here: session/new or session/load")
        return editor

    @staticmethod
    def _mode(editor: EditorSession) -> str:
        return editor.controller.approvals.permissions.mode

    async def _open(
        self, workspace: Path, resume: str | None, servers: list[Any] | None
    ) -> EditorSession:
        """A controller for `workspace` (a new session, or `resume`), the editor's servers
        added to the user's, started in the background."""
        from agent.assemble import permissions_from
        from agent.config import ConfigError
        from agent.session.runtime import SessionController
        from agent.session.startup import Startup
        from sessions.lock import SessionBusy
        from sessions.store import SessionError

        assert self.client is not None
        try:
            config, notes, plugin_settings = await asyncio.to_thread(self.configure, workspace)
        except (ConfigError, ValueError) as error:
            raise bad_params(f"the configuration: {error}") from None
        found: list[str] = []
        if not config.model:  # as the terminal does: the first model found, said with the fix
            config, found = await with_found_model(config)
        startup = Startup(config, None, resume, False, tuple(notes), plugin_settings)
        permissions = permissions_from(config, full_auto=self.approve_everything)
        opened: list[str] = []  # the session's id, once open (what a question names)
        open_calls: dict[str, str] = {}
        asking = EditorAsking(self.client, lambda: opened[0], open_calls)
        approvals = SessionApprovals(asking, permissions)
        try:
            controller = await asyncio.to_thread(SessionController, startup, workspace, approvals)
            _, repairs = await asyncio.to_thread(controller.open)
        except ConfigError as error:
            why = str(error) or "no model configured (set model in config.toml, or --model)"
            raise bad_params(why) from None
        except (SessionError, SessionBusy) as error:
            raise bad_params(f"cannot open the session: {error}") from None
        editor = EditorSession(self.client, controller, open_calls)
        opened.append(editor.id)
        if all(self.client_fs):  # reads and writes through the editor's buffers
            editor.files = ClientFiles(self.client, lambda: opened[0])
            editor.lend_files()
        self.sessions[editor.id] = editor
        editor.notes(found)
        added, skipped = client_servers(servers)
        editor.notes(skipped, "error")
        await begin_session(editor, added, list(repairs), resumed=resume is not None)
        return editor

    async def _close(self, editor: EditorSession) -> None:
        """Stop its prompt (and wait for the turn to unwind: every call answered, the journal
        written), then end it."""
        turn = editor.turn
        editor.cancel()
        if turn is not None:
            await asyncio.wait([turn])
        await end_session(editor)

    async def close_all(self) -> None:
        """The connection ended: every session closed (SessionEnd hooks, servers stopped)."""
        for editor in list(self.sessions.values()):
            await self._close(editor)
        self.sessions.clear()
