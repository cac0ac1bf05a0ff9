"""Claude Code's names for pleat's tools, their arguments and their results: the one mapping that
hook payloads, hook answers and the json/stream-json output all use.

A hook or a script written for Claude Code reads `tool_name == "Bash"` and
`tool_input["command"]`, or `tool_name == "Read"` and `tool_input["file_path"]`; pleat's tools
are `run_command` with `command` and `read_file` with `path`. Each pleat tool with a Claude Code
counterpart is described once here: the counterpart's name, which argument is which of its
fields, which arguments are workspace paths (Claude Code gives absolute paths) and which are
seconds that Claude Code gives in milliseconds. MCP tools are already named as Claude Code names
them (`mcp__server__tool`, agent/mcp/names.py) and pass unchanged, as do pleat's own tools
without a counterpart (`read_archive`).

The mapping runs both ways: `claude_input` turns a call's arguments into Claude Code's input,
and `pleat_arguments` takes a hook's `updatedInput` (in Claude Code's fields, or pleat's own)
back onto the call. `claude_input` then `pleat_arguments` gives the arguments back.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.errors import ToolError
from tools.paths import resolve_in_workspace, workspace_root

if TYPE_CHECKING:  # tools.base imports every tool's helpers: not needed to read settings
    from tools.base import ToolOutput


@dataclass(frozen=True)
class Counterpart:
    """A pleat tool's Claude Code counterpart."""

    name: str
    # pleat argument -> Claude Code field, for every argument that has one; pleat's others
    # (a search's `offset`) stay in pleat's own fields.
    fields: Mapping[str, str]
    # Arguments that are workspace paths: absolute (and symlinks resolved) in Claude's input.
    paths: frozenset[str] = frozenset()
    # Arguments in seconds that Claude Code gives in milliseconds (Bash's `timeout`).
    milliseconds: frozenset[str] = frozenset()
    # Arguments Claude Code always sends where pleat has a default (LS names its directory).
    defaults: Mapping[str, Any] = field(default_factory=dict)


# Every pleat tool with a Claude Code counterpart, with the field names of Claude Code's tool
# input as its hooks reference documents them.
COUNTERPARTS: dict[str, Counterpart] = {
    "run_command": Counterpart(
        "Bash",
        {
            "command": "command",
            "timeout": "timeout",
            "background": "run_in_background",
            "no_sandbox": "dangerouslyDisableSandbox",
        },
        milliseconds=frozenset({"timeout"}),
    ),
    "command_output": Counterpart("BashOutput", {"id": "bash_id"}),
    "command_stop": Counterpart("KillShell", {"id": "shell_id"}),
    "read_file": Counterpart(
        "Read",
        {"path": "file_path", "offset": "offset", "limit": "limit"},
        paths=frozenset({"path"}),
    ),
    "write_file": Counterpart(
        "Write", {"path": "file_path", "content": "content"}, paths=frozenset({"path"})
    ),
    "edit_file": Counterpart(
        "Edit",
        {
            "path": "file_path",
            "old_string": "old_string",
            "new_string": "new_string",
            "replace_all": "replace_all",
        },
        paths=frozenset({"path"}),
    ),
    "glob": Counterpart("Glob", {"pattern": "pattern", "path": "path"}, paths=frozenset({"path"})),
    "grep": Counterpart(
        "Grep",
        {"pattern": "pattern", "path": "path", "glob": "glob", "case_insensitive": "-i"},
        paths=frozenset({"path"}),
    ),
    "list_dir": Counterpart(
        "LS", {"path": "path"}, paths=frozenset({"path"}), defaults={"path": "."}
    ),
    "web_fetch": Counterpart("WebFetch", {"url": "url", "prompt": "prompt"}),
    "web_search": Counterpart(
        "WebSearch",
        {f: f for f in ("query", "allowed_domains", "blocked_domains")},
    ),
    "task": Counterpart(
        "Task",
        {"description": "description", "prompt": "prompt", "subagent_type": "subagent_type"},
    ),
    "todo_write": Counterpart("TodoWrite", {"todos": "todos"}),
    "exit_plan_mode": Counterpart("ExitPlanMode", {"plan": "plan"}),
    # The tool's name only: AskUserQuestion takes a list of questions with labelled options,
    # pleat's one question with plain options, passed in pleat's own fields.
    "ask_user": Counterpart("AskUserQuestion", {}),
    "skill": Counterpart("Skill", {"name": "skill"}),
}
# Claude Code's name -> pleat's, for rules and matchers written with Claude Code's names.
PLEAT_NAMES = {counterpart.name: name for name, counterpart in COUNTERPARTS.items()}
# Claude Code's tools pleat has no counterpart of but one that does their job, for the tool
# lists of agent definitions (`tools: Read, MultiEdit`): MultiEdit is edits, one at a time.
STAND_INS = {"MultiEdit": "edit_file"}
# The same, by lower-case name: agent definitions are written by hand, `bash` or `Bash`.
_BY_LOWER = {claude.lower(): pleat for claude, pleat in {**PLEAT_NAMES, **STAND_INS}.items()}
# Milliseconds in a second.
MS_PER_SECOND = 1000
# A unified diff's hunk header: `@@ -old_start[,old_lines] +new_start[,new_lines] @@`.
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def claude_name(name: str) -> str:
    """Claude Code's name for pleat's tool `name` (an MCP tool's or one without a counterpart:
    `name` itself)."""
    counterpart = COUNTERPARTS.get(name)
    return counterpart.name if counterpart else name


def pleat_name(name: str) -> str:
    """pleat's tool for Claude Code's tool `name` (in any case); `name` itself when there is
    none (pleat's own names, MCP tools)."""
    return _BY_LOWER.get(name.lower(), name)


def tool_names(name: str) -> tuple[str, ...]:
    """The names a hook matcher or a rule may select a tool by: pleat's, and Claude Code's."""
    alias = claude_name(name)
    return (name, alias) if alias != name else (name,)


def _absolute(workspace: Path, raw: Any) -> Any:
    """A workspace path as Claude Code gives it: absolute, symlinks resolved (so a guard that
    looks for `.env` also sees a link to it); a path pleat would refuse, joined as written."""
    if not isinstance(raw, str):
        return raw
    try:
        return str(resolve_in_workspace(workspace, raw))
    except ToolError:
        return os.path.join(workspace_root(workspace), raw)


def _relative(workspace: Path, raw: Any) -> Any:
    """A path from a hook back as pleat's tools take it: relative to the workspace when inside."""
    if not isinstance(raw, str) or not os.path.isabs(raw):
        return raw
    root = workspace_root(workspace)
    path = Path(raw)
    if path == root:
        return "."
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else raw


def claude_input(name: str, args: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """The call's arguments as Claude Code's tool input (unchanged for a tool without one)."""
    counterpart = COUNTERPARTS.get(name)
    if counterpart is None:
        return dict(args)
    given = {**counterpart.defaults, **args}
    out: dict[str, Any] = {}
    for argument, claude_field in counterpart.fields.items():
        if argument not in given:
            continue
        value = given[argument]
        if argument in counterpart.paths:
            value = _absolute(workspace, value)
        elif argument in counterpart.milliseconds and _is_number(value):
            value = value * MS_PER_SECOND
        out[claude_field] = value
    return out


def pleat_arguments(
    name: str,
    updated: Mapping[str, Any],
    original: Mapping[str, Any],
    workspace: Path,
    known: Collection[str],
) -> dict[str, Any]:
    """A hook's `updatedInput` as the call's new arguments: each of Claude Code's fields mapped
    back, a field named as pleat names it (one of the tool's `known` arguments) taken as it is,
    anything else dropped (Claude Code's own extras, such as Bash's `description`);
    pleat's arguments that Claude Code has no field for keep their value from `original`."""
    counterpart = COUNTERPARTS.get(name)
    if counterpart is None:  # an MCP tool's input is its own: taken whole, checked by its schema
        return dict(updated)
    back = {claude_field: argument for argument, claude_field in counterpart.fields.items()}
    args = {k: v for k, v in original.items() if k not in counterpart.fields}
    for key, value in updated.items():
        argument = back.get(key, key if key in known else None)
        if argument is None:
            continue
        if argument in counterpart.paths:
            value = _relative(workspace, value)
        elif argument in counterpart.milliseconds and key in back and _is_number(value):
            value = max(1, math.ceil(value / MS_PER_SECOND))
        args[argument] = value
    for argument, default in counterpart.defaults.items():
        if args.get(argument) == default and argument not in original:
            del args[argument]  # the default Claude Code spelled out stays pleat's default
    return args


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def structured_patch(diff: str) -> list[dict[str, Any]]:
    """A unified diff's hunks as Claude Code's `structuredPatch`: each hunk's starts, lengths
    and its lines (with their ` `, `-` or `+`)."""
    hunks: list[dict[str, Any]] = []
    for line in diff.splitlines():
        header = _HUNK.match(line)
        if header is not None:
            old_start, old_lines, new_start, new_lines = header.groups()
            hunks.append(
                {
                    "oldStart": int(old_start),
                    "oldLines": int(old_lines) if old_lines is not None else 1,
                    "newStart": int(new_start),
                    "newLines": int(new_lines) if new_lines is not None else 1,
                    "lines": [],
                }
            )
        elif hunks and line[:1] in (" ", "-", "+") and not line.startswith(("---", "+++")):
            hunks[-1]["lines"].append(line)
    return hunks


def claude_response(
    name: str, args: Mapping[str, Any], output: ToolOutput, workspace: Path
) -> dict[str, Any]:
    """A tool's result as Claude Code's `tool_response` for its counterpart, with pleat's own
    `output` (the text the model reads) and `is_error` beside."""
    own = {"output": output.text, "is_error": output.is_error}
    counterpart = COUNTERPARTS.get(name)
    meta = output.meta
    if output.is_error and name != "run_command":
        return {"error": output.text, **own}
    claude = counterpart.name if counterpart else name
    path = _absolute(workspace, args.get("path", ".")) if counterpart and counterpart.paths else ""
    if claude == "Bash":
        facts = output.facts
        stdout = facts.output_of(output.text)
        shape: dict[str, Any] = {
            "stdout": stdout,
            "stderr": "",
            "interrupted": facts.timed_out,
            "isImage": False,
            "exit_code": facts.exit_code,
        }
        if "background_id" in meta:  # started in, or sent to, the background
            shape["backgroundTaskId"] = meta["background_id"]
    elif claude == "Read" and output.facts.unchanged_of:  # a note (tools/rereads.py)
        shape = {"type": "file_unchanged", "file": {"filePath": path}}  # as Claude Code's
    elif claude == "Read":
        first, last = meta.get("first_line", 1), meta.get("last_line", 0)
        kind = "image" if output.images else "text"
        file = {
            "filePath": path,
            "content": output.text,
            "numLines": max(0, last - first + 1),
            "startLine": first,
            "totalLines": meta.get("total_lines", 0),
        }
        shape = {"type": kind, "file": file}
    elif claude == "Write":
        shape = {
            "type": "create" if meta.get("created") else "update",
            "filePath": path,
            "content": args.get("content", ""),
            "structuredPatch": structured_patch(meta.get("diff", "")),
            "originalFile": None,
        }
    elif claude == "Edit":
        shape = {
            "filePath": path,
            "oldString": args.get("old_string", ""),
            "newString": args.get("new_string", ""),
            "originalFile": None,
            "structuredPatch": structured_patch(meta.get("diff", "")),
            "userModified": False,
            "replaceAll": bool(args.get("replace_all", False)),
        }
    elif claude == "WebFetch":
        shape = {
            "url": meta.get("url", args.get("url", "")),
            "code": meta.get("status"),
            "bytes": meta.get("bytes", 0),
            "result": output.text,
        }
    elif claude == "WebSearch":
        shape = {"query": args.get("query", ""), "results": meta.get("results", [])}
    else:
        shape = {}
    return {**shape, **own}


def pleat_rule(text: str) -> str:
    """A Claude Code permission rule (`Bash(npm test:*)`, `Read(./.env)`) in pleat's names: the
    tool renamed, Claude Code's older `:*` prefix form as pleat's ` *` (pleat's own rules and
    ones it cannot read come back as they are, for the rule parser to judge)."""
    match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*(?:\((.*)\))?\s*", text, re.DOTALL)
    if match is None:
        return text
    name, pattern = match.groups()
    tool = PLEAT_NAMES.get(name, name)
    if pattern is None:
        return tool
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + " *"
    return f"{tool}({pattern})"


# Claude Code's file rules apply to every tool of their kind: an `Edit` rule to each tool that
# writes files, a `Read` rule to each that reads them (grep follows read_file's deny rules:
# agent/permissions/policy.py denies_reading).
KIN_TOOLS = {"edit_file": ("edit_file", "write_file"), "read_file": ("read_file", "list_dir")}


def pleat_rules(text: str, home: Path) -> list[str]:
    """A Claude Code permission rule as pleat's rules (one or more): pleat_rule, then for a
    file rule its kin (KIN_TOOLS) and its path in pleat's form: `//abs` is `/abs`, `~/p` is
    under `home`, `/p` and `./p` are the workspace's `p`, and a pattern without a `/` matches
    that name in any directory too (as gitignore patterns, which Claude Code's follow)."""
    rule = pleat_rule(text)
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.\-]*)\((.*)\)", rule, re.DOTALL)
    tools = KIN_TOOLS.get(match.group(1) if match else rule)
    if tools is None:
        return [rule]
    if match is None:
        return list(tools)
    pattern = match.group(2).strip()
    anchored = pattern.startswith(("/", "./", "~/"))
    if pattern.startswith("//"):
        pattern = pattern[1:]
    elif pattern.startswith("~/"):
        pattern = f"{home}/{pattern[2:]}"
    elif pattern.startswith(("/", "./")):
        pattern = pattern.removeprefix(".").removeprefix("/") or "."
    patterns = [pattern]
    if not anchored and "/" not in pattern and pattern not in (".", "*"):
        patterns.append(f"*/{pattern}")
    return [f"{tool}({each})" for tool in tools for each in patterns]
