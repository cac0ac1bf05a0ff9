"""The names MCP tools get for the model: `mcp__<server>__<tool>`, in the providers' charset."""

from __future__ import annotations

import hashlib
import re

# Every MCP tool's name starts with this (Claude Code's convention, which permission rules and
# hooks written for it match on); a rule naming `mcp__<server>` alone covers the whole server.
PREFIX = "mcp__"
# Separates the server from the tool in a name.
SEPARATOR = "__"
# Characters of a tool name: OpenAI and Anthropic both accept ^[a-zA-Z0-9_-]{1,64}$.
MAX_TOOL_NAME_CHARS = 64
# Hex digits of the hash that makes a cut or clashing name unique: 8 (32 bits) cannot collide by
# chance among the at most few hundred tools of a session.
HASH_CHARS = 8
# What a provider refuses in a name; each such character becomes "_".
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def plain(text: str) -> str:
    """`text` in the providers' charset: every other character made "_"."""
    return _NOT_ALLOWED.sub("_", text)


def server_name(server: str) -> str:
    """What a permission rule names a whole server by: `mcp__<server>`."""
    return PREFIX + plain(server)


def tool_name(server: str, tool: str, taken: frozenset[str] | set[str] = frozenset()) -> str:
    """`mcp__<server>__<tool>`, in the providers' charset and length; a name too long, or one
    already `taken` (two names that only differ where the charset made them alike), ends in a
    hash of the server and the tool instead, so it stays the same from run to run."""
    name = f"{server_name(server)}{SEPARATOR}{plain(tool)}"
    if len(name) <= MAX_TOOL_NAME_CHARS and name not in taken:
        return name
    digest = hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:HASH_CHARS]
    return f"{name[: MAX_TOOL_NAME_CHARS - HASH_CHARS - 1]}_{digest}"


def is_mcp_name(name: str) -> bool:
    """Whether a tool (or rule) name is an MCP one: such tools may join after start-up."""
    return name.startswith(PREFIX)
