"""Which MCP tools the model is offered: in a stable order, at most MAX_MCP_TOOLS, and no more than
fit in the MCP tools' share of the window.

Every tool's schema rides along in every request, so the tools of big servers (a hundred tools
of 15 KB schemas each is 400k tokens) would fill the window before the conversation starts, and
every request would be refused. So the schemas of all MCP tools together may take at most
SCHEMA_SHARE of the model's usable window, counted as the agent counts (agent/model/tokens.py).
Tools are taken in a stable order (servers by name, each one's tools by name) while they fit; those
that do not are left out, and a note per server says which and why (in /mcp, as a notice, or on
stderr headless). A decision holds while the window does: a tool offered stays offered, one left
out stays out, so the tool list (and the provider's prompt cache) stays the same. When the
window changes (/model), the share is taken again: on a smaller one the last tools taken leave
until the rest fit (said in a note), on a larger one those that did not fit are tried again.

A tool left out is not lost: the tool_search tool (agent/mcp/tool_search.py) finds it by name or
description, and bring_in() offers it from the next turn on. It joins within the share and the
count, never beyond them: the share is what keeps a fold able to make room (above), and the count
is the provider's. Room is made by the tools the model has neither called nor found, the last
taken first (they leave, and a search finds them again); a found tool that would not fit even
then stays out, and the search says why. A smaller window sends those same tools away first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agent.mcp.tool import McpTool

# MCP tools offered at most, all servers together: OpenAI refuses a request with more than 128
# tools, and pleat's own take a dozen or so; 100 leaves them room.
MAX_MCP_TOOLS = 100
# Share of the usable window (window - reserved reply) the MCP tools' schemas may take together.
# After a fold the context holds the system prompt and pleat's own tools (about 3k tokens), the
# summary (at most a tenth of the usable window) and the kept tail (at most a quarter): with a
# quarter for MCP schemas that is about 60% of the window, under the 80% that triggers a fold, so
# folding still makes room and a tool result (a fifth of the window at most) still fits. A
# quarter of a 200k window is 48k tokens: dozens of ordinary tools.
SCHEMA_SHARE = 0.25
# Tool names a note lists before it only counts the rest: a note is one line.
SHOWN_NAMES = 12

Reason = Literal["count", "budget"]


@dataclass
class Brought:
    """What bring_in() did: the tools that now join, those that gave way to them, and those that
    stay out (with why)."""

    joined: list[McpTool] = field(default_factory=list)
    gave_way: list[McpTool] = field(default_factory=list)
    refused: list[tuple[McpTool, Reason]] = field(default_factory=list)


class Admission:
    """The decisions so far: the tools offered, those left out, each schema's tokens."""

    def __init__(self) -> None:
        self.offered: dict[str, McpTool] = {}
        self.left_out: dict[str, Reason] = {}
        self.found: set[str] = set()  # tools offered because a search found them
        self._costs: dict[str, int] = {}
        self._usable: Callable[[], int] | None = None  # the usable window, in tokens
        self._count: Callable[[str], int] | None = None  # tokens of a text
        self._cap_then: int | None = None  # the cap the decisions so far were made under

    def limit(self, usable: Callable[[], int], count: Callable[[str], int]) -> None:
        """Cap the schemas at SCHEMA_SHARE of `usable()` tokens, each counted by `count`
        (the agent's; without a limit only MAX_MCP_TOOLS holds)."""
        self._usable, self._count = usable, count

    def decided(self, tool: McpTool) -> bool:
        return tool.name in self.offered or tool.name in self.left_out

    def cost(self, tool: McpTool) -> int:
        """Tokens of one tool's schema as the request carries it (cached: a schema is fixed)."""
        if tool.name not in self._costs:
            text = json.dumps(tool.schema(), sort_keys=True)
            self._costs[tool.name] = self._count(text) if self._count is not None else 0
        return self._costs[tool.name]

    def cap(self) -> int | None:
        """The tokens the MCP schemas may take together, or None (no limit set)."""
        return None if self._usable is None else int(SCHEMA_SHARE * self._usable())

    def prepare(self, tools: Iterable[McpTool]) -> None:
        """Count what decide() will need (blocking: the window may import litellm, and big
        schemas take a while to count): a front end with a UI calls it in a thread."""
        self.cap()
        for tool in tools:
            if not self.decided(tool):
                self.cost(tool)

    def decide(self, tools: Sequence[McpTool]) -> list[tuple[McpTool, Reason]]:
        """Offer each tool not decided yet, in the order given, while it fits; the tools left
        out by this call, and why."""
        cap = self.cap()
        dropped: list[tuple[McpTool, Reason]] = []
        if cap is not None and cap != self._cap_then:  # the first limit, or another window
            if self._cap_then is not None and cap > self._cap_then:
                for name in [name for name, why in self.left_out.items() if why == "budget"]:
                    del self.left_out[name]  # tried again below, in order
            dropped += self._trim(cap)
            self._cap_then = cap
        used = sum(self.cost(tool) for tool in self.offered.values()) if cap is not None else 0
        for tool in tools:
            if self.decided(tool):
                continue
            reason: Reason | None = None
            if len(self.offered) >= MAX_MCP_TOOLS:
                reason = "count"
            elif cap is not None and used + self.cost(tool) > cap:
                reason = "budget"
            if reason is not None:
                self.left_out[tool.name] = reason
                dropped.append((tool, reason))
                continue
            used += self.cost(tool) if cap is not None else 0
            self.offered[tool.name] = tool
        return dropped

    def _spare(self) -> list[str]:
        """The offered tools that give way first: neither called nor found, the last taken
        first."""
        return [
            name
            for name in reversed(self.offered)
            if name not in self.found and not self.offered[name].called
        ]

    def _trim(self, cap: int) -> list[tuple[McpTool, Reason]]:
        """Leave out tools until the offered ones fit in `cap` tokens: the spare ones first, then
        the rest, the last taken first."""
        used = sum(self.cost(tool) for tool in self.offered.values())
        dropped: list[tuple[McpTool, Reason]] = []
        spare = self._spare()
        for name in [*spare, *(n for n in reversed(self.offered) if n not in spare)]:
            if used <= cap:
                break
            tool = self.offered.pop(name)
            used -= self.cost(tool)
            self.left_out[name] = "budget"
            dropped.append((tool, "budget"))
        return dropped[::-1]

    def bring_in(self, tools: Sequence[McpTool]) -> Brought:
        """Offer `tools` (left out so far; a search found them), each while the count and the
        share allow once the spare tools have given way (see the module). Called between
        requests: what it changes reaches the model at the next sync of the registry."""
        brought = Brought()
        cap = self.cap()
        for tool in tools:
            if tool.name in self.offered or tool.name not in self.left_out:
                continue
            spare = self._spare()
            used = sum(self.cost(t) for t in self.offered.values()) if cap is not None else 0
            freed = sum(self.cost(self.offered[name]) for name in spare) if cap is not None else 0
            need = self.cost(tool) if cap is not None else 0
            if len(self.offered) - len(spare) >= MAX_MCP_TOOLS:
                brought.refused.append((tool, "count"))
                continue
            if cap is not None and used - freed + need > cap:
                brought.refused.append((tool, "budget"))
                continue
            while spare and (
                len(self.offered) >= MAX_MCP_TOOLS or (cap is not None and used + need > cap)
            ):
                why: Reason = "count" if len(self.offered) >= MAX_MCP_TOOLS else "budget"
                gone = self.offered.pop(spare.pop(0))
                used -= self.cost(gone) if cap is not None else 0
                self.left_out[gone.name] = why
                brought.gave_way.append(gone)
            del self.left_out[tool.name]
            self.offered[tool.name] = tool
            self.found.add(tool.name)
            brought.joined.append(tool)
        return brought


def left_out_note(
    tools: Sequence[McpTool], reason: Reason, cap: int | None, searchable: bool = False
) -> str:
    """One line saying which tools of one server were left out, and why (and, when the model
    has tool_search, that it finds them)."""
    names = [tool.remote for tool in tools]
    shown = ", ".join(names[:SHOWN_NAMES])
    if len(names) > SHOWN_NAMES:
        shown += f" and {len(names) - SHOWN_NAMES} more"
    count = f"{len(names)} tool{'s' if len(names) != 1 else ''}"
    if reason == "count":
        why = f"at most {MAX_MCP_TOOLS} MCP tools are offered (a request takes 128 tools at most)"
    else:
        share = f"{SCHEMA_SHARE:.0%} of the model's usable window"
        why = (
            f"the MCP tools' schemas may take {share} ({cap or 0:,} tokens) together, and these "
            "would go past it"
        )
    found = "; tool_search finds them, to join at the next turn" if searchable else ""
    return f"{count} not offered ({shown}): {why}{found}"
