"""The one mapping between pleat's tools and Claude Code's: names, input fields both ways, and
tool_response shapes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.claude_code.tools import (
    COUNTERPARTS,
    claude_input,
    claude_name,
    claude_response,
    pleat_arguments,
    structured_patch,
    tool_names,
)
from tools.base import ToolOutput
from tools.registry import default_registry
from tools.result_facts import ResultFacts


def test_every_counterpart_names_arguments_the_tool_really_has() -> None:
    registry = default_registry()
    for name, counterpart in COUNTERPARTS.items():
        tool = registry.get(name)
        if tool is None:  # these join when an agent is assembled
            assert name in ("exit_plan_mode", "task", "ask_user", "skill", "web_search")
            continue
        known = set(tool.parameters["properties"])
        assert set(counterpart.fields) <= known, name


def test_claude_code_names_and_fields(workspace: Path) -> None:
    (workspace / "src").mkdir()
    assert claude_name("run_command") == "Bash" and claude_name("read_archive") == "read_archive"
    assert claude_name("mcp__git__log") == "mcp__git__log"  # MCP names are Claude Code's already
    assert tool_names("list_dir") == ("list_dir", "LS")
    root = workspace.resolve()
    assert claude_input("run_command", {"command": "ls", "timeout": 5}, workspace) == {
        "command": "ls",
        "timeout": 5000,  # Claude Code's Bash takes milliseconds
    }
    assert claude_input("read_file", {"path": "src/a.py", "offset": 3}, workspace) == {
        "file_path": str(root / "src" / "a.py"),
        "offset": 3,
    }
    assert claude_input(
        "grep", {"pattern": "x", "case_insensitive": True, "offset": 20}, workspace
    ) == {
        "pattern": "x",
        "-i": True,
    }
    assert claude_input("list_dir", {}, workspace) == {"path": str(root)}  # LS names its dir


def test_a_link_is_given_as_the_file_it_leads_to(workspace: Path) -> None:
    """A guard hook that refuses `.env` also sees a harmless-looking link to it."""
    (workspace / ".env").write_text("KEY=1\n")
    os.symlink(".env", workspace / "notes.txt")
    given_input = claude_input("read_file", {"path": "notes.txt"}, workspace)
    assert given_input["file_path"] == str(workspace.resolve() / ".env")


def test_a_path_pleat_would_refuse_is_joined_as_written(workspace: Path) -> None:
    given_input = claude_input("write_file", {"path": "../out.txt", "content": ""}, workspace)
    assert given_input["file_path"] == os.path.join(workspace.resolve(), "../out.txt")


def test_updated_input_maps_back_and_keeps_pleat_only_arguments(workspace: Path) -> None:
    known = {"pattern", "path", "glob", "case_insensitive", "offset"}
    original = {"pattern": "x", "offset": 20}
    updated = {"pattern": "y", "path": str(workspace.resolve() / "src"), "-i": True, "x": 1}
    assert pleat_arguments("grep", updated, original, workspace, known) == {
        "pattern": "y",
        "path": "src",
        "case_insensitive": True,
        "offset": 20,  # Claude Code has no field for it: kept
    }  # "x" is no field of either: dropped
    bash = {"command": "ls", "timeout": 1500, "run_in_background": True, "description": "list"}
    assert pleat_arguments("run_command", bash, {"command": "pwd"}, workspace, {"command"}) == {
        "command": "ls",
        "timeout": 2,  # milliseconds back to whole seconds, rounded up
        "background": True,
    }  # Claude Code's description: dropped
    mcp = {"anything": [1]}
    assert pleat_arguments("mcp__s__t", mcp, {}, workspace, ()) == mcp  # its schema checks it


arguments = st.fixed_dictionaries(
    {"path": st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}", fullmatch=True)},
    optional={
        "offset": st.integers(1, 10**6),
        "limit": st.integers(1, 10**6),
    },
)


@settings(max_examples=60, deadline=None)
@given(args=arguments)
def test_claude_input_then_back_gives_the_arguments(
    tmp_path_factory: Any, args: dict[str, Any]
) -> None:
    workspace = tmp_path_factory.mktemp("ws")
    known = {"path", "offset", "limit"}
    sent = claude_input("read_file", args, workspace)
    assert pleat_arguments("read_file", sent, args, workspace, known) == args
    command = {"command": args["path"], "timeout": args.get("limit", 1)}
    sent = claude_input("run_command", command, workspace)
    assert pleat_arguments("run_command", sent, command, workspace, {"command"}) == command


def test_structured_patch_reads_a_unified_diff() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n@@ -9 +10 @@\n-z\n+y\n"
    assert structured_patch(diff) == [
        {
            "oldStart": 1,
            "oldLines": 2,
            "newStart": 1,
            "newLines": 3,
            "lines": [" a", "-b", "+c", "+d"],
        },
        {"oldStart": 9, "oldLines": 1, "newStart": 10, "newLines": 1, "lines": ["-z", "+y"]},
    ]


@pytest.mark.parametrize(
    ("name", "args", "output", "expected"),
    [
        (
            "run_command",
            {"command": "echo hi"},
            ToolOutput(
                "hi\nexit code: 0",
                facts=ResultFacts(exit_code=0, text_after_output="\nexit code: 0"),
            ),
            {"stdout": "hi", "stderr": "", "interrupted": False, "isImage": False, "exit_code": 0},
        ),
        (
            "edit_file",
            {"path": "a.py", "old_string": "b", "new_string": "c"},
            ToolOutput("edited a.py", meta={"diff": "@@ -2 +2 @@\n-b\n+c\n"}),
            {
                "oldString": "b",
                "newString": "c",
                "originalFile": None,
                "structuredPatch": [
                    {
                        "oldStart": 2,
                        "oldLines": 1,
                        "newStart": 2,
                        "newLines": 1,
                        "lines": ["-b", "+c"],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            },
        ),
        ("read_archive", {"query": "x"}, ToolOutput("found"), {}),
    ],
)
def test_tool_response_in_claude_codes_shape_with_pleats_beside(
    workspace: Path, name: str, args: dict[str, Any], output: ToolOutput, expected: dict[str, Any]
) -> None:
    response = claude_response(name, args, output, workspace)
    response.pop("filePath", None)
    assert response == {**expected, "output": output.text, "is_error": False}


def test_a_failed_call_gives_its_error(workspace: Path) -> None:
    failed = ToolOutput("no such file", is_error=True)
    response = claude_response("read_file", {"path": "x"}, failed, workspace)
    assert response == {"error": "no such file", "output": "no such file", "is_error": True}


def test_a_read_of_lines_the_model_has_is_claude_codes_file_unchanged(workspace: Path) -> None:
    note = ToolOutput("[pleat: a.py is unchanged ...]", facts=ResultFacts(unchanged_of="m4"))
    response = claude_response("read_file", {"path": "a.py"}, note, workspace)
    assert response["type"] == "file_unchanged"  # tools/rereads.py's note
    assert response["file"] == {"filePath": str(workspace.resolve() / "a.py")}
