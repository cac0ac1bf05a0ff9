"""The tools of a session with language servers: the workspace tools and the lsp tool."""

from __future__ import annotations

from tools.lsp.tool import LspTool
from tools.registry import ToolRegistry, default_registry


def lsp_registry() -> ToolRegistry:
    """The workspace tools and the lsp tool, as a session with language servers has them."""
    registry = default_registry()
    registry.register(LspTool())
    return registry
