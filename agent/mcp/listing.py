"""A server's tool listing screened one tool at a time, so one malformed entry never costs the rest.

The SDK checks a `tools/list` result as a whole: one entry without a name, or with an input schema
that is a string, fails the listing, and with it the whole server. pleat's relay (server.py) hands
each listing through screen() first: every entry is checked on its own, as the SDK would check a
listing of just that entry, and the bad ones are dropped with a note each.
"""

from __future__ import annotations

from typing import Any

# The protocol version an entry is checked for before the handshake has settled one (the SDK's
# own default for that case).
DEFAULT_VERSION = "2025-11-25"
# Characters of a problem's wording kept in its note: pydantic's messages are long; the field
# and the first words say what is wrong.
MAX_PROBLEM_CHARS = 120


def _problem(entry: Any, version: str) -> str | None:
    """Why the SDK would refuse a listing holding `entry`, in a few words, or None."""
    from mcp_types import ListToolsResult
    from mcp_types.methods import validate_server_result
    from pydantic import ValidationError

    listing = {"tools": [entry]}
    try:
        try:
            validate_server_result("tools/list", version, listing)
        except ValidationError:
            raise
        except (KeyError, ValueError):  # a version the SDK has no surface for: none to check
            pass
        ListToolsResult.model_validate(listing, by_name=False)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][2:]) or "the entry"
        return f"{where}: {first['msg']}"[:MAX_PROBLEM_CHARS]
    return None


def screen(tools: list[Any], version: str | None) -> tuple[list[Any], list[str]]:
    """The entries of a listing the SDK will take, and a note for each one dropped."""
    kept: list[Any] = []
    notes: list[str] = []
    for entry in tools:
        problem = _problem(entry, version or DEFAULT_VERSION)
        if problem is None:
            kept.append(entry)
            continue
        name = entry.get("name") if isinstance(entry, dict) else None
        what = f"tool {name!r}" if isinstance(name, str) else "a tool with no name"
        notes.append(f"{what} is not offered: the server describes it wrongly ({problem})")
    return kept, notes
