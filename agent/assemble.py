"""Builds a ready agent from settings: the model door, the tools, compaction, approvals."""

from __future__ import annotations

from pathlib import Path

from agent.compaction.engine import Compactor
from agent.config import Config
from agent.llm import LLM
from agent.loop import Agent
from agent.permissions import Approver
from agent.prompt import system_prompt
from agent.tokens import TokenLedger
from sessions.archive import ChunkArchive
from sessions.paths import new_session_id, private_dir, session_dir
from tools.registry import default_registry


def build_agent(
    config: Config, workspace: Path, approve: Approver, *, session_id: str | None = None
) -> Agent:
    """One agent for one workspace; raises ConfigError when no model is configured."""
    registry = default_registry(command_timeout=config.command_timeout)
    llm = LLM(config.model_settings())
    session = session_id or new_session_id()
    secrets = [config.api_key] if config.api_key else []

    def compactor(agent: Agent) -> Compactor:
        directory = private_dir(session_dir(session)) / "chunks"
        return Compactor(
            config.compaction,
            llm,
            ChunkArchive(directory, session),
            TokenLedger(registry.schemas()),
            new_id=agent.new_id,
            secrets=secrets,
        )

    return Agent(
        llm,
        registry,
        workspace,
        approve,
        system_prompt(workspace, registry.names()),
        max_tool_iterations=config.max_tool_iterations,
        compactor=compactor,
    )
