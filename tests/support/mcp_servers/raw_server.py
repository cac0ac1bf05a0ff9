"""A hand-written stdio MCP server (JSON-RPC lines, no SDK) whose tool list is what a careless or
hostile server sends, chosen by $RAW_MODE:

- `badschema`: tools whose input schemas give keywords pleat reads the wrong type (`maxLength:
  "10"`, `minimum: "0"`, `enum: 5`, `required: "text"`), beside a good tool `ok`;
- `malformed`: listing entries that do not follow MCP's schema at all (no name, an input schema
  that is a string), beside a good tool `ok`;
- `fat`: $RAW_TOOLS tools (default 100) `f000`.. each with a schema of about $RAW_SCHEMA_CHARS
  characters (default 15,000), as a big server has;
- `surrogate`: the tool `ok`, whose answers hold a lone UTF-16 surrogate (`\\ud800` in the JSON:
  valid to Python's json, refused by the MCP SDK's parser).

Every call answers "called NAME with ARGUMENTS" (JSON).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

MODE = os.environ.get("RAW_MODE", "")
# The one tool every mode but `fat` has, with a correct schema.
GOOD = {
    "name": "ok",
    "description": "A well-formed tool.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}


def text_tool(name: str, keyword: dict[str, Any], top: dict[str, Any] | None = None) -> Any:
    prop = {"type": "string", **keyword}
    schema = {"type": "object", "properties": {"text": prop}, **(top or {})}
    return {"name": name, "description": name, "inputSchema": schema}


def tools() -> list[Any]:
    if MODE == "badschema":
        return [
            GOOD,
            text_tool("maxlen", {"maxLength": "10"}),
            {
                "name": "low",
                "description": "low",
                "inputSchema": {
                    "type": "object",
                    "properties": {"n": {"type": "integer", "minimum": "0"}},
                },
            },
            text_tool("choice", {"enum": 5}),
            text_tool("needs", {}, {"required": "text"}),
        ]
    if MODE == "malformed":
        return [
            GOOD,
            {"description": "a tool with no name", "inputSchema": {"type": "object"}},
            {"name": "stringy", "description": "x", "inputSchema": "an object, honest"},
        ]
    if MODE == "fat":
        count = int(os.environ.get("RAW_TOOLS", "100"))
        size = int(os.environ.get("RAW_SCHEMA_CHARS", "15000"))
        props = {
            f"p{j:03d}": {"type": "string", "description": "d" * 100} for j in range(size // 140)
        }
        schema = {"type": "object", "properties": props}
        return [
            {"name": f"f{i:03d}", "description": "x", "inputSchema": schema} for i in range(count)
        ]
    return [GOOD]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    ident, method = message.get("id"), message.get("method")
    if ident is None:
        return None  # a notification
    params = message.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": tools()}
    elif method == "tools/call":
        said = f"called {params.get('name')} with {json.dumps(params.get('arguments'))}"
        if MODE == "surrogate":
            said += " and a lone \ud800 surrogate"
        result = {"content": [{"type": "text", "text": said}], "isError": False}
    else:
        result = {}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


for line in sys.stdin:
    try:
        reply = answer(json.loads(line))
    except (ValueError, AttributeError):
        continue
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
