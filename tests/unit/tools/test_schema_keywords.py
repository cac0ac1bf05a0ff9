"""Tool schemas whose keywords have the wrong type (a careless or hostile MCP server's): a call is
refused with one clear line, never a TypeError; adapt() refuses such a tool with a note."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.registry import validate_arguments

# Schemas a server may send that pleat's argument checks read: each keyword of the wrong type,
# and (first) the keyword path a refusal names.
BAD_SCHEMAS: list[tuple[str, dict[str, Any]]] = [
    ("properties.text.maxLength", {"properties": {"text": {"type": "string", "maxLength": "10"}}}),
    ("properties.text.maxLength", {"properties": {"text": {"maxLength": -1}}}),
    ("properties.text.maxLength", {"properties": {"text": {"maxLength": True}}}),
    ("properties.text.minimum", {"properties": {"text": {"type": "integer", "minimum": "0"}}}),
    ("properties.text.maximum", {"properties": {"text": {"maximum": [1]}}}),
    ("properties.text.enum", {"properties": {"text": {"type": "string", "enum": 5}}}),
    ("properties.text.type", {"properties": {"text": {"type": 5}}}),
    ("properties.text.type", {"properties": {"text": {"type": []}}}),
    ("properties.text.type", {"properties": {"text": {"type": ["string", 7]}}}),
    ("properties.text.items", {"properties": {"text": {"type": "array", "items": "string"}}}),
    (
        "properties.text.items.maxLength",
        {"properties": {"text": {"type": "array", "items": {"maxLength": "2"}}}},
    ),
    ("properties.text", {"properties": {"text": "string"}}),
    ("properties", {"properties": ["text"]}),
    ("required", {"properties": {"text": {"type": "string"}}, "required": "text"}),
    ("required", {"properties": {"text": {"type": "string"}}, "required": [1]}),
    ("additionalProperties", {"properties": {}, "additionalProperties": "no"}),
]


class Loose(Tool):
    """A tool with whatever schema it is given (as an MCP tool is)."""

    name = "loose"
    description = "Takes anything."

    def __init__(self, schema: dict[str, Any]) -> None:
        self.parameters = {"type": "object", **schema}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("ran")


@pytest.mark.parametrize(("where", "schema"), BAD_SCHEMAS)
def test_a_wrong_typed_keyword_is_a_clear_tool_error(where: str, schema: dict[str, Any]) -> None:
    for arguments in ('{"text": "hi"}', '{"text": 3}', '{"text": ["a", "b"]}', "{}"):
        try:
            validate_arguments(Loose(schema), arguments)
        except ToolError as error:
            assert "\n" not in str(error)
            if "schema" in str(error):
                assert f"the input schema of loose is malformed: {where}" in str(error)


def test_the_call_the_review_found_is_refused_with_the_keyword_named() -> None:
    tool = Loose({"properties": {"text": {"type": "string", "maxLength": "10"}}})
    with pytest.raises(ToolError) as refused:
        validate_arguments(tool, '{"text": "hi"}')
    assert str(refused.value) == (
        "the input schema of loose is malformed: properties.text.maxLength must be a "
        'non-negative integer, got "10"; the tool cannot be called'
    )
    with pytest.raises(ToolError, match="required must be a list of names"):
        validate_arguments(Loose({"properties": {}, "required": "text"}), "{}")


def test_boolean_schemas_are_json_schemas() -> None:
    assert validate_arguments(Loose({"properties": {"any": True}}), '{"any": [1]}') == {"any": [1]}
    with pytest.raises(ToolError, match="argument 'no' of loose is not accepted"):
        validate_arguments(Loose({"properties": {"no": False}}), '{"no": 1}')


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
KEYWORDS = st.sampled_from(
    ["type", "enum", "maxLength", "minimum", "maximum", "items", "properties", "required"]
)
SCHEMA = st.recursive(
    st.dictionaries(KEYWORDS, JSON, max_size=4) | st.booleans(),
    lambda inner: st.dictionaries(KEYWORDS, inner | JSON, max_size=4),
    max_leaves=10,
)


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(
    properties=st.dictionaries(st.sampled_from(["a", "b"]), SCHEMA, max_size=2) | JSON,
    required=JSON,
    extra=JSON,
    arguments=st.dictionaries(st.sampled_from(["a", "b", "c"]), JSON, max_size=3),
)
def test_any_schema_and_any_arguments_give_arguments_or_a_tool_error(
    properties: Any, required: Any, extra: Any, arguments: dict[str, Any]
) -> None:
    tool = Loose({"properties": properties, "required": required, "additionalProperties": extra})
    try:
        validate_arguments(tool, arguments)
    except ToolError:
        pass
