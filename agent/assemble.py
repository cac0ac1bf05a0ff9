"""Builds a ready agent from settings and a session: model door, tools, compaction, journal."""

from __future__ import annotations

import dataclasses
import functools
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from agent.commands.output_styles import find_style, style_section
from agent.config import Config
from agent.events import UsageReported
from agent.hooks.runner import HookRunner, HookSet
from agent.mcp.manager import McpServers
from agent.mcp.tool_search import SearchOffer
from agent.model.llm import LLM
from agent.model.provider_search import ProviderSearcher
from agent.model.search_choice import web_search_tool
from agent.permissions.modes import starting_mode
from agent.permissions.plan_mode import ExitPlanModeTool, PlanReviewer, review_headless
from agent.permissions.policy import Approver, Permissions
from agent.plugins.loaded import Plugins
from agent.process_secrets import secret_values
from agent.skills.catalog import prompt_section
from agent.skills.files import load_skills
from agent.skills.tool import SkillTool
from agent.subagents.definitions import load_definitions
from agent.subagents.team import Subagents
from agent.turn.auto_memory import auto_memory_on, workspace_memory
from agent.turn.checkpoints import make_recorder
from agent.turn.compactor import compactor_for
from agent.turn.loop import Agent
from agent.turn.system_prompt import system_prompt
from sessions.index_listing import session_to_continue
from sessions.messages import Message
from sessions.redact import KnownSecrets
from sessions.store import Session, SessionError
from tools.ask_user import AskUserTool, UserAsker, nobody_to_ask
from tools.background_commands import BackgroundCommands
from tools.lsp.port import LanguageServices
from tools.lsp.tool import LspTool
from tools.memory import MemoryTool
from tools.registry import default_registry
from tools.sandbox.policy import Sandbox
from tools.task import TaskTool


def crash_hook() -> Callable[[str], None] | None:
    """PLEAT_CRASH_AT=<step> makes pleat SIGKILL itself when a compaction reaches that step
    ("summarized", "archived", "swapped", "recorded"): how the crash-safety tests stop it at
    exactly that point, in a real process."""
    step = os.environ.get("PLEAT_CRASH_AT")
    if not step:
        return None

    def kill_at(name: str) -> None:
        if name == step:
            os.kill(os.getpid(), signal.SIGKILL)

    return kill_at


def open_session(
    config: Config, workspace: Path, *, resume: str | None = None, continue_latest: bool = False
) -> tuple[Session, list[Message] | None, list[str]]:
    """A new session, or an existing one resumed (by id, or this workspace's latest).
    Raises SessionError or SessionBusy with one clear line."""
    said: list[str] = []
    if continue_latest and resume is None:
        resume, notice = session_to_continue(workspace)
        said += [notice] if notice else []
        if resume is None:
            raise SessionError(f"no earlier session in {workspace} to continue")
    if resume is not None:
        session, history, notes = Session.resume(resume)
        return session, history, said + notes
    return Session.create(workspace, model=config.model or ""), None, []


def build_agent(
    config: Config,
    workspace: Path,
    approve: Approver,
    *,
    session: Session,
    history: list[Message] | None = None,
    permissions: Permissions | None = None,
    review_plan: PlanReviewer = review_headless,
    ask_user: UserAsker = nobody_to_ask,
    mcp: McpServers | None = None,
    hooks: HookSet | None = None,
    sandbox: Sandbox | None = None,
    background: BackgroundCommands | None = None,
    plugins: Plugins | None = None,
    language_servers: LanguageServices | None = None,
) -> Agent:
    """One agent for one workspace and session (the caller opens and closes the session);
    raises ConfigError when no model is configured. `permissions` (the front end's, which it
    may change: Shift+Tab) default to the configuration's; `review_plan` shows a plan to the
    user (headless: nobody to show it to), and `ask_user` asks the model's questions (headless:
    nobody is there, said at once); the tools of `mcp`'s servers join as they start (the
    front end starts and stops them: they outlive a session switch); `hooks` are the run's
    (agent/hooks/claude_settings.py gathers them; default: config.toml's); `sandbox` is where
    commands run (the run's, which its MCP servers share; default: the configuration's);
    `background` the session's background commands (a model switch keeps them; default: none
    yet); `plugins` the run's enabled plugins, whose skills and agents join (agent/plugins/);
    `language_servers` the session's (tools/lsp/: the file tools' diagnostics, the lsp tool)."""
    llm = LLM(config.model_settings())
    if permissions is None:
        permissions = permissions_from(config)
    registry = default_registry(config.command_timeout, session.archive, background)
    if (searching := web_search_tool(config.web_search, llm.settings, session)) is not None:
        registry.register(searching)  # the provider's search, or SearXNG ([web_search])
    if language_servers is not None:  # their answers, where the session has language servers
        registry.register(LspTool())
    registry.register(ExitPlanModeTool(permissions, review_plan))  # in every mode: same tools
    registry.register(AskUserTool(ask_user))
    if auto_memory_on(config.auto_memory, os.environ):  # the workspace's memory: its own tool
        registry.register(MemoryTool(workspace_memory(workspace)))
    # Skills (agent/skills/): the tool only when there are any (or notes on broken ones).
    skills = load_skills(workspace, plugins.skill_sources() if plugins else ())
    if skills.skills or skills.notes:
        registry.register(SkillTool(skills.skills, permissions, skills.notes))
    if mcp is not None:
        registry.add_source(mcp)
        registry.add_source(SearchOffer(mcp))  # tool_search, once tools are left out
    # Every key pleat knows, from any source (config file, PLEAT_API_KEY, --api-key, provider
    # variables such as OPENAI_API_KEY, any secret-named variable) never reaches disk, even when
    # a prompt or a file read holds it.
    secrets = [config.api_key] if config.api_key else []
    secrets += secret_values(os.environ, sys.argv)
    known = KnownSecrets(secrets)
    session.journal.secrets = session.archive.secrets = session.outputs.secrets = known
    # Sub-agents (the task tool, last: the other tools are theirs), offered by their names.
    plugin_agents = plugins.agent_dirs() if plugins else ()
    definitions = load_definitions(workspace, registry.names(), plugin_dirs=plugin_agents)
    team = Subagents(config, workspace, session, definitions, secrets, known)
    registry.register(TaskTool(team.run, definitions.offered(), definitions.notes))

    # Where commands run (tools/sandbox/): a confined command runs without asking, and one an
    # allow rule names may reach the network.
    if sandbox is None:
        sandbox = config.sandbox_for(workspace)
    permissions.sandboxed = sandbox.active
    shell = registry.get("run_command")
    if shell is not None:
        sandbox.opens_network = functools.partial(
            permissions.names_command, shell, workspace=workspace
        )
    prompt = system_prompt(workspace, registry.names())
    if config.output_style:  # Claude Code's output styles: agent/commands/output_styles.py
        style = style_section(find_style(config.output_style, workspace, os.environ))
        prompt += f"\n\n{style}" if style else ""
    if listed := prompt_section(skills.skills.values()):  # the skills' names and descriptions
        prompt += f"\n\n{listed}"
    agent = Agent(
        llm,
        registry,
        workspace,
        approve,
        prompt,
        max_tool_iterations=config.max_tool_iterations,
        recorder=session,
        compactor=compactor_for(
            config.compaction, llm, session.archive, registry, secrets, crash_hook()
        ),
        history=history,
        outputs=session.outputs,
        usage=session.usage_so_far,
        max_budget_usd=config.max_budget_usd,
        images=session.images,
        checkpoints=make_recorder(
            workspace, session.id, session.checkpoints, session.record, known, sandbox.added
        ),
        last_id=session.highest_id,
        permissions=permissions,
        sandbox=sandbox,
        goal=session.goal,  # a resumed session's, from its journal
        hooks=HookRunner(
            hooks if hooks is not None else HookSet(config.hooks),
            workspace,
            session_id=session.id,
            transcript_path=session.journal.path,
            secrets=secrets,  # the key from config.toml too, which no variable names
            sandbox=sandbox,
        ),
    )
    team.parent = agent
    if searching is not None and isinstance(searching.searcher, ProviderSearcher):
        searching.searcher.on_usage = lambda usage, model: agent.record_usage(
            UsageReported(usage, model)  # the spending cap counts the search's call
        )
    # A user's skill's files are read by path where it lies (tools/base.py read_roots), and the
    # tools a skill let run stop running unasked as the next user turn starts.
    roots = tuple(s.directory for s in skills.skills.values() if s.scope != "project")
    reader = registry.get("read_file")
    unreadable = None
    if reader is not None and any(rule.tool == reader.name for rule in permissions.deny):
        unreadable = functools.partial(permissions.denies_reading, reader, workspace)
    agent.context = dataclasses.replace(
        agent.context, read_roots=roots, unreadable=unreadable, language_servers=language_servers
    )
    agent.turn_starts.append(permissions.skill_allow.clear)
    if mcp is not None and agent.compactor is not None:  # MCP schemas: a share of this window
        compactor = agent.compactor
        mcp.limit_schemas(lambda: compactor.budget.usable, compactor.count_text)
    return agent


def permissions_from(config: Config, *, full_auto: bool = False) -> Permissions:
    """The configuration's permission mode and rules (`full_auto`: --yes, whatever it says)."""
    mode = starting_mode(config.permission_mode, full_auto)
    return Permissions.from_settings(mode, config.allow, config.deny, config.ask)
