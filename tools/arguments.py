"""Check a model's raw tool-call arguments against the tool's JSON schema, in plain words."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sessions.lone_surrogates import has_lone_surrogate
from sessions.model_json import ModelJsonError, loads
from tools.base import Tool, ToolError
from tools.schema_keywords import schema_problem

# Characters of an offending value quoted back in an error: enough to recognise it.
MAX_QUOTED_CHARS = 60
# The largest integer any argument may hold, whatever its schema says: JSON's safe integer
# range (2**53), past which no offset, line count or timeout means anything.
MAX_SAFE_INTEGER = 2**53


def one_line(error: BaseException) -> str:
    """An exception's message on one line, cut like a quoted value."""
    return " ".join(str(error).split())[:MAX_QUOTED_CHARS]


def _json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _quoted(value: Any) -> str:
    """A short JSON rendering of a value for an error message."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_QUOTED_CHARS else text[:MAX_QUOTED_CHARS] + "…"


def _coerce(expected: str, value: Any) -> tuple[bool, Any]:
    """Whether `value` has JSON type `expected`, and the value to use (3.0 → 3 for integers)."""
    if expected == "integer":
        if isinstance(value, bool):
            return False, value
        if isinstance(value, int):
            return True, value
        if isinstance(value, float) and value.is_integer():
            return True, int(value)
        return False, value
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool), value
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "boolean": bool,
        "array": list,
        "object": dict,
        "null": type(None),
    }
    wanted = checks.get(expected)
    return (True if wanted is None else isinstance(value, wanted)), value


def check_value(where: str, schema: Mapping[str, Any] | bool, value: Any) -> Any:
    """Check one value against a property schema (one tools.schema_keywords found sound);
    return it (coerced) or raise ToolError."""
    if isinstance(schema, bool):  # a boolean schema: true takes anything, false nothing
        if not schema:
            raise ToolError(f"{where} is not accepted by the tool's schema")
        return value
    declared = schema.get("type")
    if declared is not None:
        options = declared if isinstance(declared, list) else [declared]
        for option in options:
            ok, coerced = _coerce(option, value)
            if ok:
                value = coerced
                break
        else:
            article = "an" if options[0][:1] in "aeiou" else "a"
            wanted = " or ".join(options)
            got = _json_type(value) + ("" if value is None else f" {_quoted(value)}")
            raise ToolError(f"{where} must be {article} {wanted}, got {got}")
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(_quoted(v) for v in schema["enum"])
        raise ToolError(f"{where} must be one of {allowed}, got {_quoted(value)}")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        raise ToolError(f"{where} must be between -2**53 and 2**53, got {_quoted(value)}")
    if isinstance(value, str):
        if has_lone_surrogate(value):
            raise ToolError(f"{where} holds an invalid character (a lone UTF-16 surrogate)")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            limit = schema["maxLength"]
            raise ToolError(f"{where} must be at most {limit:,} characters, got {len(value):,}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise ToolError(f"{where} must be at least {schema['minimum']}, got {value}")
        if "maximum" in schema and value > schema["maximum"]:
            raise ToolError(f"{where} must be at most {schema['maximum']}, got {value}")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        value = [
            check_value(f"item {i} of {where}", schema["items"], v) for i, v in enumerate(value)
        ]
    return value


def validate_arguments(tool: Tool, raw: str | Mapping[str, Any]) -> dict[str, Any]:
    """Parse and check a call's arguments; raise ToolError with one clear line on a problem,
    and never anything else (a schema this code cannot read is a ToolError too).

    `raw` is the JSON text the model sent (an empty string means no arguments) or an already
    parsed mapping. An argument given as null counts as absent.
    """
    problem = schema_problem(tool.parameters)
    if problem is not None:
        raise ToolError(
            f"the input schema of {tool.name} is malformed: {problem}; the tool cannot be called"
        )
    try:
        return _checked(tool, raw)
    except ToolError:
        raise
    except Exception as error:  # a schema shape the checks above did not foresee: said, not raised
        raise ToolError(
            f"the arguments of {tool.name} could not be checked against its schema "
            f"({type(error).__name__}: {one_line(error)}); the tool cannot be called"
        ) from None


def _checked(tool: Tool, raw: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        parsed: Any = dict(raw)
    elif not raw.strip():
        parsed = {}
    else:
        try:
            parsed = loads(raw)
        except ModelJsonError as exc:
            raise ToolError(
                f"arguments for {tool.name} are not valid JSON ({exc}); send a single JSON object"
            ) from None
    if not isinstance(parsed, dict):
        raise ToolError(
            f"arguments for {tool.name} must be a JSON object, got {_json_type(parsed)}"
        )
    properties: Mapping[str, Any] = tool.parameters.get("properties", {})
    required: list[str] = list(tool.parameters.get("required", []))
    extra_allowed = tool.parameters.get("additionalProperties", False) is not False
    checked: dict[str, Any] = {}
    for key, value in parsed.items():
        if key not in properties:
            if extra_allowed and not has_lone_surrogate(value):
                checked[key] = value
                continue
            expected = ", ".join(properties) or "none"
            raise ToolError(
                f"unknown argument {key!r} for {tool.name} (expected arguments: {expected})"
            )
        if value is None:  # null means "not given"; a required one is then reported missing
            continue
        checked[key] = check_value(f"argument {key!r} of {tool.name}", properties[key], value)
    missing = [key for key in required if key not in checked]
    if missing:
        names = ", ".join(repr(key) for key in missing)
        plural = "s" if len(missing) > 1 else ""
        raise ToolError(f"missing required argument{plural} {names} for {tool.name}")
    return checked
