"""The tool_search tool: finds MCP tools left out of the tool list by name or description; those
found join it at the next turn's start (agent/mcp/admission.py bring_in, tools.registry sync).

Names and descriptions are the servers' own text, so they are read as hostile: a query is a few
words (at most MAX_QUERY_WORDS, from at most MAX_QUERY_CHARS characters), matched as plain
lowercase substrings, never as a pattern; the tools searched are those the servers listed (each
description already cut to agent/mcp/tool.py's MAX_DESCRIPTION_CHARS); a description shown is one
line, cut, its control characters made visible. Found tools do not join during the turn that
searched: the tool list stays the same within a turn, so the provider's prompt cache holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.mcp.admission import Reason
from agent.mcp.tool import McpTool
from agent.terminal_text import visible
from tools.base import Tool, ToolContext, ToolError, ToolOutput

# The tool's name, as the model calls it (Claude Code's deferred MCP tools are found the same way).
TOOL_SEARCH = "tool_search"
# Characters of a query, and the words of it used: a search is a few words, not a document.
MAX_QUERY_CHARS = 200
MAX_QUERY_WORDS = 8
# Tools one search brings in at most (the best matches): each costs its schema in every later
# request, so a vague query must not bring a whole server in; more words narrow it.
MAX_FOUND = 5
# Characters of a found tool's description shown in the result: what it is for, on one line
# (its whole description comes with its schema once it joins).
SHOWN_DESCRIPTION_CHARS = 200
# A query's words: letters and digits (a tool's name `create_issue` is found by "create issue").
_WORD = re.compile(r"[^\W_]+")

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "maxLength": MAX_QUERY_CHARS,
            "description": "Words to find in the tools' names and descriptions, e.g. 'jira issue'.",
        }
    },
    "required": ["query"],
    "additionalProperties": False,
}


@dataclass
class Found:
    """What one search found: the tools that join next turn, those the model has already, those
    that stay out (and why), those that gave way to the joiners, and how many more matched."""

    joined: list[McpTool] = field(default_factory=list)
    offered: list[McpTool] = field(default_factory=list)
    refused: list[tuple[McpTool, Reason]] = field(default_factory=list)
    gave_way: list[McpTool] = field(default_factory=list)
    more: int = 0


class Finder(Protocol):
    """Where the search looks and what it changes (agent/mcp/manager.py McpServers)."""

    def missing(self) -> bool:
        """Whether tool_search is to be offered now (a running server has a tool left out)."""
        ...

    def find(self, words: Sequence[str]) -> Found:
        """Search the tools of the running servers for `words`; bring in the best left out."""
        ...


def words_of(query: str) -> list[str]:
    """The words of a query, lowercase, the first MAX_QUERY_WORDS."""
    return _WORD.findall(query[:MAX_QUERY_CHARS].lower())[:MAX_QUERY_WORDS]


def ranked(tools: Sequence[McpTool], words: Sequence[str]) -> list[McpTool]:
    """The tools holding at least one of `words`: most words first, then most in the name, then
    by name."""
    scored = []
    for tool in tools:
        name = f"{tool.server} {tool.remote} {tool.name}".lower()
        description = tool.description.lower()
        in_name = sum(word in name for word in words)
        anywhere = sum(word in name or word in description for word in words)
        if anywhere:
            scored.append((-anywhere, -in_name, tool.name, tool))
    return [tool for *_, tool in sorted(scored, key=lambda entry: entry[:3])]


def _line(tool: McpTool) -> str:
    gist = " ".join(tool.description.split())
    if len(gist) > SHOWN_DESCRIPTION_CHARS:
        gist = gist[: SHOWN_DESCRIPTION_CHARS - 1] + "…"
    return f"- {tool.name}: {visible(gist)}"


def report(query: str, found: Found) -> str:
    """What the model reads: what joins (and when), what it has, what stays out and why."""
    quoted = visible(" ".join(query.split())[:MAX_QUERY_CHARS])
    count = len(found.joined)
    if count:
        lines = [
            f"{count} MCP tool{'s' if count != 1 else ''} found for {quoted!r}. They join your "
            "tools at the start of the next turn (the user's next message), not during this one:",
            *(_line(tool) for tool in found.joined),
        ]
    elif not (found.offered or found.refused):
        return f"no MCP tool not offered yet matches {quoted!r}: try other words"
    else:
        lines = [f"no MCP tool joins for {quoted!r}"]
    if found.offered:
        lines.append(f"Already yours: {', '.join(tool.name for tool in found.offered)}.")
    for tool, why in found.refused:
        room = "100 MCP tools" if why == "count" else "the MCP tools' share of the window"
        lines.append(f"{tool.name} stays out: it does not fit in {room}, even with room made.")
    if found.gave_way:
        names = ", ".join(tool.name for tool in found.gave_way)
        leave = "To make room, these leave at that turn (never called; a search finds them)"
        lines.append(f"{leave}: {names}.")
    if found.more:
        lines.append(f"{found.more} more match: use more or other words to pick them.")
    return "\n".join(lines)


class ToolSearchTool(Tool):
    """Finds the MCP tools that were left out of the tool list, to join it at the next turn."""

    name = TOOL_SEARCH
    read_only = True  # it changes which tools the next turn offers, nothing on this machine
    description = (
        "Find MCP server tools that are not among your tools yet (their servers have more than "
        "fit): give words to look for in their names and descriptions. The best matches join "
        "your tools at the start of the next turn (the user's next message), not this one."
    )
    parameters = _PARAMETERS
    main_argument = "query"

    def __init__(self, finder: Finder) -> None:
        self.finder = finder

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        query = str(args["query"])
        words = words_of(query)
        if not words:
            raise ToolError("give a word or two to look for, e.g. query='jira issue'")
        return ToolOutput(report(query, self.finder.find(words)))


class SearchOffer:
    """A tools.registry.ToolSource offering tool_search once a server has tools left out, and
    from then on (it joins at a turn's start like the MCP tools, and never leaves: the tool list
    stays the same). Added after the servers' source, whose sync decides what is left out."""

    def __init__(self, finder: Finder) -> None:
        self.finder = finder
        self.tool = ToolSearchTool(finder)
        self._offered = False

    def available_tools(self) -> Sequence[Tool]:
        self._offered = self._offered or self.finder.missing()
        return [self.tool] if self._offered else []
