"""The session runtime: the open session and its agent (open, switch: new, resume, fork; model,
warm-up), the run's sandbox, MCP servers, hooks and plugins; no UI here, so every front end can
hold one (the TUI does; headless and ACP are to follow)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from agent.assemble import build_agent, open_session
from agent.config import Config, ConfigError
from agent.conversation.fork import fork_session
from agent.hooks.claude_settings import gather_hooks
from agent.mcp.manager import McpServers
from agent.model.discovery import FoundModel
from agent.model.llm import resolve_model
from agent.model.offline import prepare_offline_env
from agent.permissions.added_dirs import checked_dirs
from agent.plugins.loaded import Plugins, load_plugins
from agent.plugins.parts import gate
from agent.session.asking import SessionApprovals
from agent.session.startup import Startup
from agent.status_line.spec import StatusLineSpec
from agent.turn.loop import Agent
from sessions.index_listing import listed_sessions
from sessions.messages import Message
from sessions.store import Session, SessionError
from tools.background_tools import background_of
from tools.lsp.manager import LanguageServers
from tools.lsp.settings import LspSettings
from tools.sandbox.policy import Sandbox


class SessionController:
    """Owns at most one open session (its lock), the agent working in it, and whether litellm
    is warm. Every switch (new, resume, fork) takes one path, `_adopt`: the new session opens
    before the old one closes, so a failure leaves the old one open, and the approvals the
    user gave "always" in the old session are forgotten."""

    def __init__(
        self,
        startup: Startup,
        workspace: Path,
        approvals: SessionApprovals,
        *,
        approve_all: bool = False,
        servers: Callable[[Sandbox], McpServers] | None = None,
        plugins: Plugins | None = None,
    ) -> None:
        """`approve_all`: the run's --yes where nobody can be asked (`pleat -p`): a project's
        hooks and the plugins' parts run unless a run wrote them; `servers`: the run's MCP
        servers made another way than the front ends' start (headless: all of them at once);
        `plugins`: the enabled plugins when the front end loaded them already."""
        self.startup = startup
        self.config = startup.config
        self.workspace = workspace
        self.approvals = approvals
        self.session: Session | None = None
        self.agent: Agent | None = None
        self.warm = False  # litellm imported and the context counted: the meter can show
        # The MCP servers: every agent of this run takes their tools (tui/mcp_servers.py
        # starts them once the first session is open, and stops them when pleat quits).
        # Where commands, hooks and stdio MCP servers run (tools/sandbox/): one for the run.
        # It holds the run's added directories too (--add-dir, add_dirs; /add-dir adds more):
        # those that failed their check are said at start (tui/lifecycle.py).
        config = self.config or Config()
        added, self.added_problems = checked_dirs(config.add_dirs, workspace)
        self.sandbox = config.sandbox_for(workspace, added)
        # The language servers (tools/lsp/): each started when the model first reads or edits a
        # file of its language, confined like commands, stopped with the session.
        self.language_servers = LanguageServers(
            workspace, config.lsp or LspSettings(), self.sandbox
        )
        self.has_language_servers = self.language_servers.offered()
        configured = self.config.mcp_servers if self.config else ()
        self.mcp = (
            servers(self.sandbox)
            if servers is not None
            else McpServers(workspace, configured, self.sandbox)
        )
        self.mcp_opened = False
        # The hooks: config.toml's, the user's Claude Code settings', a project's once approved
        # (tui/hook_approval.py asks at start); every agent of this run shares the one set.
        hooks = self.config.hooks if self.config else ()
        gathered = gather_hooks(hooks, workspace, approve_all=approve_all)
        self.hooks = gathered.hooks
        self.hooks_waiting = gathered.waiting
        # The status line command (tui/widgets/status_line.py reads it here, and only here):
        # config.toml's [status_line], else Claude Code's `statusLine` (agent/cli.py puts it
        # into the configuration: with_claude_status_line).
        self.status_line: StatusLineSpec | None = self.config.status_line if self.config else None
        # The enabled plugins (agent/plugins/): their skills, agents and commands join every
        # agent; their hooks and servers once approved (tui/plugins.py asks at start).
        self.plugins = plugins or load_plugins(*self.startup.plugin_settings)
        gated = gate(self.plugins, approve_all=approve_all)
        self.hooks.add(gated.hooks)
        self.hooks.notes.extend([*self.plugins.notes, *gated.lines])
        self.mcp.add(gated.servers)
        self.plugins_waiting = gated.waiting
        # The agent of a session this run left (a switch): its SessionEnd hooks still run
        # (tui/lifecycle.py takes it).
        self.left: Agent | None = None

    def open(self, found: FoundModel | None = None) -> tuple[list[Message] | None, list[str]]:
        """The first session: new, or resumed, with the configured model (or `found`, when
        none is configured). Returns the resumed history (None for a new session) and notes on
        repairs. Raises ConfigError (no usable model), SessionError or SessionBusy."""
        if found is not None and self.startup.config_error is None:
            self.config = self.configured_for(found)
        config = self.config
        if config is None or not config.model or self.startup.config_error is not None:
            raise ConfigError(self.startup.config_error or "")
        config.model_settings()  # no usable model: say so before creating a session
        session, history, notes = open_session(
            config,
            self.workspace,
            resume=self.startup.resume,
            continue_latest=self.startup.continue_latest,
        )
        self._adopt(session, history)
        return history, notes

    def new(self) -> None:
        """A fresh session in the same workspace."""
        self._adopt(Session.create(self.workspace, model=self._config.model or ""), None)

    def resume(self, wanted: str) -> tuple[list[Message], list[str]]:
        """Switch to another session of this workspace, by id or a unique prefix of one.
        Raises SessionError (unknown, ambiguous, current, other workspace) or SessionBusy."""
        session_id = self.find(wanted)
        session, history, notes = Session.resume(session_id)
        self._adopt(session, history)
        return history, notes

    def find(self, wanted: str) -> str:
        """The id of this workspace's session that `wanted` names."""
        ids = [s.id for s in listed_sessions(self.workspace)[0]]
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

    def configured_for(self, model: FoundModel) -> Config:
        """The configuration with `model` (and the server it is called at) in it."""
        return dataclasses.replace(
            self.config or Config(), model=model.name, api_base=model.api_base
        )

    async def check_model(self, model: FoundModel) -> None:
        """Raise LLMError when litellm cannot route `model` (a thread: it may import litellm)."""
        settings = self.configured_for(model).model_settings()
        await asyncio.to_thread(resolve_model, settings)

    def start_with_model(self, model: FoundModel) -> None:
        """The first session, opened when a model is named after a start without one (the
        rest of the configuration is kept). Raises ConfigError (a configuration that did not
        load stays the problem), SessionError or SessionBusy."""
        if self.startup.config_error is not None:
            raise ConfigError(self.startup.config_error)
        self.config = self.configured_for(model)
        self.config.model_settings()
        self._adopt(Session.create(self.workspace, model=model.name), None)

    def agent_for(self, model: FoundModel, history: list[Message]) -> Agent:
        """An agent of the open session calling `model`, over `history` (not made the open
        one: see adopt_model)."""
        assert self.session is not None
        return self._build(self.session, history, self.configured_for(model))

    def adopt_model(self, model: FoundModel, agent: Agent) -> None:
        """Make `agent` (from agent_for) the one working in the open session: the next
        requests go to `model`; the approvals given "always" stand (the same session)."""
        self.config = self.configured_for(model)
        if self.agent is not None and self.agent is not agent:
            self.agent.folds.drop_background_fold("the model changed")
        self.agent = agent

    async def warm_up(self) -> None:
        """Import litellm (about 4 s) in a thread, so the first request does not wait for it."""
        prepare_offline_env()
        first_import = "litellm" not in sys.modules
        await asyncio.to_thread(importlib.import_module, "litellm")
        if first_import:
            # litellm's import leaves a few hundred thousand long-lived objects: out of the
            # collector's full scans from now on, which would otherwise pause the UI for a few
            # hundred milliseconds every so often (bench/tui_latency.py). Once per process: a
            # later freeze would also pin whatever garbage is around then.
            gc.freeze()

    def close(self) -> None:
        """Close the session (its background commands killed, journal flushed, lock released);
        the agent stays readable."""
        self._stop_background(self.agent)
        self.language_servers.stop_all()
        if self.session is not None:
            self.session.close()
        self.session = None

    @staticmethod
    def _stop_background(agent: Agent | None) -> None:
        """Kill the background commands of `agent`'s session (their watchers then close their
        output files on the event loop)."""
        background = background_of(agent.registry) if agent is not None else None
        if background is not None:
            background.stop_all_now()

    @property
    def _config(self) -> Config:
        assert self.config is not None, "no configuration: the session never opened"
        return self.config

    def _build(
        self, session: Session, history: list[Message] | None, config: Config | None = None
    ) -> Agent:
        """The one way an agent is made here (every switch: new, resume, fork, model): with the
        app's permissions (Shift+Tab changes their mode; "always" adds to them) and plan review,
        the prompts queued meanwhile, and, in the same session, the spending cap's count and the
        goal."""
        agent = build_agent(
            config or self._config,
            self.workspace,
            self.approvals,
            session=session,
            history=history,
            permissions=self.approvals.permissions,
            review_plan=self.approvals.review_plan,
            ask_user=self.approvals.ask_user,
            mcp=self.mcp,
            hooks=self.hooks,
            sandbox=self.sandbox,
            plugins=self.plugins,
            language_servers=self.language_servers if self.has_language_servers else None,
            # A model switch keeps the session's background commands; another session has none.
            background=background_of(self.agent.registry)
            if self.agent is not None and session is self.session
            else None,
        )
        if self.agent is not None:  # prompts queued during a fork or a switch still go
            agent.queued = self.agent.queued
            if session is self.session:  # a model switch: the run's spending goes on counting,
                agent.cap.start = self.agent.cap.start  # and the goal set since it opened stays
                agent.goal = self.agent.goal
        return agent

    def _adopt(self, session: Session, history: list[Message] | None) -> None:
        """Make `session` the open one: the one path of every switch (see the class)."""
        try:
            agent = self._build(session, history)
        except BaseException:
            session.close()
            raise
        if self.agent is not None:  # its fold in the background folded another conversation
            self.agent.folds.drop_background_fold("another session opened")
        if self.session is not None and self.session is not session:
            self._stop_background(self.agent)  # they belong to the session left
            self.language_servers.stop_all()  # so do its language servers
            self.session.close()
            self.left = self.agent  # its SessionEnd hooks run next (tui/lifecycle.py)
        self.session, self.agent = session, agent
        self.approvals.forget_session()  # "always" and "never" were said for the one before
