"""The compactor of one agent: its policy, its model, its archive, its tools' schemas counted."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agent.compaction.engine import Compactor
from agent.compaction.policy import CompactionPolicy
from agent.model.llm import LLM
from agent.model.tokens import TokenLedger
from sessions.archive import ChunkArchive
from tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent.turn.loop import Agent


def compactor_for(
    policy: CompactionPolicy,
    llm: LLM,
    archive: ChunkArchive,
    registry: ToolRegistry,
    secrets: Sequence[str],
    step_hook: Callable[[str], None] | None = None,
) -> Callable[[Agent], Compactor]:
    """What an Agent calls to make its compactor (it needs the agent's ids and images)."""

    def compactor(agent: Agent) -> Compactor:
        ledger = TokenLedger(registry.schemas())
        registry.on_change(lambda: ledger.set_tools(registry.schemas()))  # MCP tools joined
        engine = Compactor(
            policy,
            llm,
            archive,
            ledger,
            new_id=agent.new_id,
            secrets=secrets,
        )
        engine.step_hook = step_hook
        engine.images = agent.attachments
        return engine

    return compactor
