"""A server message the MCP SDK could not parse only for its lone surrogates, read all the same.

`"\\ud800"` is valid JSON to Python's json but not to the SDK's parser (pydantic's), which hands
the session a ValidationError instead of the message: the call it answered then waits for its
time limit and fails, though the server answered at once. A tool's output is hostile bytes like
any other (a file with broken UTF-16, a truncated emoji), so pleat reads such a message with
json, puts U+FFFD in place of each lone surrogate, and passes the message on.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sessions.lone_surrogates import has_lone_surrogate, without_surrogates

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage


def unparsed_line(error: Exception) -> str | None:
    """The text a parser refused as invalid JSON, if `error` is pydantic's saying so."""
    errors = getattr(error, "errors", None)
    if not isinstance(error, ValueError) or not callable(errors):
        return None
    try:
        found = errors()
    except Exception:  # not pydantic's ValidationError after all
        return None
    for item in found if isinstance(found, list) else []:
        text = item.get("input") if isinstance(item, dict) else None
        if item.get("type") == "json_invalid" and isinstance(text, str):
            return text
    return None


def readable(error: Exception) -> SessionMessage | Exception:
    """The message the SDK refused with `error`, when lone surrogates were all that was wrong
    with it (they are replaced); `error` itself otherwise."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    line = unparsed_line(error)
    if line is None:
        return error
    try:
        data = json.loads(line)
        if not has_lone_surrogate(data):
            return error
        message = jsonrpc_message_adapter.validate_python(without_surrogates(data), by_name=False)
    except (ValueError, RecursionError):  # not JSON, not a message, or nested past recursion
        return error
    return SessionMessage(message)
