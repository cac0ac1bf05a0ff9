"""Fuzzing tool calls: any JSON arguments give a ToolOutput, never an exception or a crash."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sessions.archive import ChunkArchive
from sessions.messages import Message, ToolCall
from tools.base import ToolContext, ToolOutput
from tools.registry import ToolRegistry, default_registry

# Calls per property: a dispatch takes ~1-3 ms (a worker thread, small files), so 300 stay
# near a second each while every tool gets dozens of calls of every shape.
EXAMPLES = 300
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Slow (hypothesis fuzzing): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow
# What dispatch answers when a tool raised something other than ToolError: a bug.
CRASH_PREFIX = "internal error in "
# run_command is left out of valid-shaped calls: a random command line run by /bin/sh could
# do anything to this machine. Its argument checks are fuzzed with invalid shapes only.
NOT_RUN = "run_command"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[tuple[Path, ToolRegistry]]:
    """A workspace with files, dirs, a link and a binary file, next to an outside file, and a
    registry whose archive holds one chunk."""
    with tempfile.TemporaryDirectory() as top:
        root = Path(top)
        workspace = root / "ws"
        (workspace / "src" / "pkg").mkdir(parents=True)
        (workspace / "src" / "pkg" / "mod.py").write_text("def f():\n    return 'ünï'\n")
        (workspace / "README.md").write_text("# title\nline two\r\nline three")
        (workspace / "data.bin").write_bytes(b"\x00\x01\xff" * 100)
        (workspace / "link.py").symlink_to(workspace / "src" / "pkg" / "mod.py")
        (root / "outside.txt").write_text("OUTSIDE SECRET\n")
        archive = ChunkArchive(root / "chunks", "fuzz-session")
        call = ToolCall("c1", "read_file", '{"path": "README.md"}')
        archive.write_chunk(
            [
                Message(role="user", content="read the readme", id="m2"),
                Message(role="assistant", content=None, tool_calls=(call,), id="m3"),
                Message(
                    role="tool", content="# title", tool_call_id="c1", name="read_file", id="m4"
                ),
            ],
            topics="readme",
            tokens=30,
        )
        yield workspace, default_registry(archive=archive)


def dispatch(registry: ToolRegistry, name: str, args: Any, workspace: Path) -> ToolOutput:
    output = asyncio.run(registry.dispatch(name, args, ToolContext(workspace)))
    assert isinstance(output, ToolOutput)
    assert isinstance(output.text, str) and output.text, "an empty answer helps no model"
    assert not output.text.startswith(CRASH_PREFIX), output.text
    event("error output" if output.is_error else "output")
    return output


# Any JSON value, nested a little, with numbers past 64 bits, nan and infinities.
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def any_arguments(
    draw: st.DrawFn, names: list[str], properties: dict[str, list[str]]
) -> tuple[str, Any]:
    """A tool name and arguments of any shape: JSON text (valid or not), or a mapping whose
    keys are the tool's own, other names, or nothing."""
    name = draw(st.sampled_from(names))
    keys = (
        st.sampled_from(properties.get(name, [])) | st.text(max_size=8)
        if properties.get(name)
        else st.text(max_size=8)
    )
    mapping = draw(st.dictionaries(keys, JSON, max_size=4))
    if name == NOT_RUN and isinstance(mapping.get("command"), str):
        mapping["command"] = [mapping["command"]]  # never a runnable command line
    raw = draw(
        st.sampled_from(["mapping", "json", "text"])
        if name != NOT_RUN
        else st.sampled_from(["mapping", "json"])
    )
    if raw == "mapping":
        return name, mapping
    if raw == "json":
        return name, json.dumps(mapping)
    return name, draw(st.text(max_size=40))


def names_and_properties(registry: ToolRegistry) -> tuple[list[str], dict[str, list[str]]]:
    names = [*registry.names(), "no_such_tool", ""]
    properties = {
        n: list(registry.get(n).parameters.get("properties", {}))  # type: ignore[union-attr]
        for n in registry.names()
    }
    return names, properties


@FUZZ
@given(data=st.data())
def test_any_arguments_to_any_tool_give_an_output(
    sandbox: tuple[Path, ToolRegistry], data: st.DataObject
) -> None:
    workspace, registry = sandbox
    names, properties = names_and_properties(registry)
    name, args = data.draw(any_arguments(names, properties))
    dispatch(registry, name, args, workspace)


# Strings a model might send as paths, patterns, ids and text: real entries, escapes, links,
# globs, regexes, odd unicode.
PLAUSIBLE_STRINGS = st.sampled_from(
    [
        ".", "", " ", "README.md", "src", "src/pkg/mod.py", "link.py", "data.bin", "new/dir/f.txt",
        "../outside.txt", "/etc/passwd", "src/../README.md", "~", "a\x00b", "**/*.py", "*",
        "src/**/*.{py,md}", "[", "(", "def", "ünï", "\r\n", "m3", "m999", "3", "return",
        "é" * 300, "x" * 5000, "{a,b", "[!a]*", "**", "//", "\\", "line two\r\nline three",
    ]
)  # fmt: skip
STRINGS = PLAUSIBLE_STRINGS | st.text(max_size=20)


def value_for(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A value of the property's declared type (within its bounds or just outside them)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        low = schema.get("minimum", -5)
        return st.integers(low, schema.get("maximum", low + 3000)) | st.integers(-2, 3)
    if kind == "boolean":
        return st.booleans()
    return STRINGS


@st.composite
def shaped_arguments(draw: st.DrawFn, registry: ToolRegistry) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from([n for n in registry.names() if n != NOT_RUN]))
    tool = registry.get(name)
    assert tool is not None
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    args = {
        key: draw(value_for(schema))
        for key, schema in properties.items()
        if key in required or draw(st.booleans())
    }
    return name, args


def snapshot(top: Path, workspace: Path) -> dict[str, bytes]:
    """Every file outside the workspace under `top`, with its content."""
    return {
        str(p): p.read_bytes()
        for p in top.rglob("*")
        if p.is_file() and not p.is_relative_to(workspace)
    }


@FUZZ
@given(data=st.data())
def test_valid_shaped_arguments_run_inside_the_workspace_without_crashing(
    sandbox: tuple[Path, ToolRegistry], data: st.DataObject
) -> None:
    workspace, registry = sandbox
    name, args = data.draw(shaped_arguments(registry))
    event(name)
    before = snapshot(workspace.parent, workspace)
    output = dispatch(registry, name, args, workspace)
    assert "OUTSIDE SECRET" not in output.text
    assert snapshot(workspace.parent, workspace) == before, "a tool changed a file outside"
    if name in ("write_file", "edit_file") and not output.is_error:
        shutil.rmtree(workspace / "new", ignore_errors=True)  # keep the tree small
