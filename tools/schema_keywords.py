"""The keywords of a tool's input schema that pleat's argument checks read, checked for their type.

pleat's own tools write their schemas; an MCP server's come over the wire, and a careless or
hostile one sends `"maxLength": "10"` or `"required": "text"`. tools/arguments.py checks a call
only against a schema this module found sound, and agent/mcp/tool.py refuses to offer a tool whose
schema is not: the model is never given a tool that cannot be called. Only the keywords pleat
reads are checked (JSON Schema has many more, which pleat passes to the model untouched).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# Characters of a bad keyword's value quoted back in a problem: enough to recognise it.
MAX_QUOTED_CHARS = 40


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_QUOTED_CHARS else text[:MAX_QUOTED_CHARS] + "…"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _property_problem(path: str, schema: Any) -> str | None:
    """What is wrong with one property's schema (the keywords tools.arguments.check_value reads),
    items included, or None. A boolean is a JSON schema too (true: anything, false: nothing)."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, Mapping):
        return f"{path} must be a schema (an object), got {_shown(schema)}"
    declared = schema.get("type")
    if declared is not None:
        options = declared if isinstance(declared, list) else [declared]
        if not options or not all(isinstance(option, str) for option in options):
            return f"{path}.type must be a type name or a list of them, got {_shown(declared)}"
    if "enum" in schema and not isinstance(schema["enum"], list):
        return f"{path}.enum must be a list of values, got {_shown(schema['enum'])}"
    length = schema.get("maxLength")
    plain_int = isinstance(length, int) and not isinstance(length, bool)
    if length is not None and (not plain_int or length < 0):
        return f"{path}.maxLength must be a non-negative integer, got {_shown(length)}"
    for bound in ("minimum", "maximum"):
        if bound in schema and not _number(schema[bound]):
            return f"{path}.{bound} must be a number, got {_shown(schema[bound])}"
    items = schema.get("items")
    if items is not None and not isinstance(items, Mapping | bool | list):
        return f"{path}.items must be a schema (an object), got {_shown(items)}"
    if isinstance(items, Mapping):
        return _property_problem(f"{path}.items", items)
    return None


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """What is wrong with a tool's input schema, as far as pleat's checks read it (one line
    naming the keyword's path, e.g. `properties.text.maxLength must be ...`), or None."""
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        return f"properties must be an object of schemas, got {_shown(properties)}"
    for name, value in properties.items():
        if (problem := _property_problem(f"properties.{name}", value)) is not None:
            return problem
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
        return f"required must be a list of names, got {_shown(required)}"
    extra = schema.get("additionalProperties", True)
    if not isinstance(extra, bool | Mapping):
        return f"additionalProperties must be true, false or a schema, got {_shown(extra)}"
    return None
