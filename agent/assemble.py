"""Builds a ready agent from settings: the model door, the tools, the system prompt, approvals."""

from __future__ import annotations

from pathlib import Path

from agent.config import Config
from agent.llm import LLM
from agent.loop import Agent
from agent.permissions import Approver
from agent.prompt import system_prompt
from tools.registry import default_registry


def build_agent(config: Config, workspace: Path, approve: Approver) -> Agent:
    """One agent for one workspace; raises ConfigError when no model is configured."""
    registry = default_registry(command_timeout=config.command_timeout)
    return Agent(
        LLM(config.model_settings()),
        registry,
        workspace,
        approve,
        system_prompt(workspace, registry.names()),
        max_tool_iterations=config.max_tool_iterations,
    )
