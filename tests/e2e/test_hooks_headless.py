"""Hooks in `pleat -p`, as a script runs it (the entry point in process): real hook commands from
config.toml, the scripted server reading what the model would read."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.headless.exit_codes import EXIT_FAILED
from agent.hooks.tool_hooks import BLOCKED_HEADER
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow: each test runs pleat headless (litellm's import, once per worker).
pytestmark = pytest.mark.slow

# A PreToolUse hook as a user writes one: the call's JSON from stdin, exit 2 with a reason on
# stderr for `rm`, exit 0 for anything else.
NO_RM = """\
import json, shlex, sys
call = json.load(sys.stdin)
words = shlex.split(call["tool_input"].get("command", ""))
if words[:1] == ["rm"]:
    print("rm is not allowed in this project: move files to trash/ instead", file=sys.stderr)
    sys.exit(2)
"""
# Appends its stdin (one JSON object) to a file, one line each.
LOG = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read().strip() + '\\n')"


def python(script: Path, *args: Path) -> str:
    return " ".join(shlex.quote(str(part)) for part in (sys.executable, script, *args))


def write_config(pleat_home: Path, text: str) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(text)


def logger(directory: Path) -> Path:
    script = directory / "log_event.py"
    script.write_text(LOG)
    return script


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_pre_tool_use_hook_blocks_rm_and_the_model_reads_its_stderr(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "no_rm.py"
    script.write_text(NO_RM)
    write_config(
        pleat_home,
        f'[[hooks.PreToolUse]]\nmatcher = "Bash"\ncommand = {json.dumps(python(script))}\n',
    )
    (workspace / "precious.txt").write_text("keep")
    server.push(
        ToolCalls([("run_command", {"command": "rm precious.txt"})]),
        ToolCalls([("run_command", {"command": "echo made > other.txt"})]),
        Text("cleaned up what I could"),
    )
    done = run_pleat(workspace, server, "-p", "clean up")  # --yes: full-auto, and still blocked
    assert done.returncode == 0, done.stderr
    assert (workspace / "precious.txt").read_text() == "keep"
    assert (workspace / "other.txt").read_text() == "made\n"  # the other command ran
    reason = "rm is not allowed in this project: move files to trash/ instead"
    blocked = [m for m in server.requests[1].messages if m["role"] == "tool"]
    assert [m["content"] for m in blocked] == [BLOCKED_HEADER + reason]
    ran = [m for m in server.requests[2].messages if m["role"] == "tool"][-1]
    assert ran["content"].endswith("exit code: 0")
    assert f"blocked run_command: {reason}" in done.stderr
    assert done.stdout.strip() == "cleaned up what I could"


def test_a_post_compact_hook_receives_the_chunk_path(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    log = logger(tmp_path)
    focus = tmp_path / "focus.py"
    focus.write_text("print('keep the parser notes')")
    write_config(
        pleat_home,
        f"""
[[hooks.SessionStart]]
command = {json.dumps(python(log, tmp_path / "start.jsonl"))}
sandbox = false  # it logs outside the workspace

[[hooks.PreCompact]]
matcher = "manual"
command = {json.dumps(python(focus))}

[[hooks.PostCompact]]
command = {json.dumps(python(log, tmp_path / "post.jsonl"))}
sandbox = false
""",
    )
    server.push(
        ToolCalls([("list_dir", {})]),
        Text("the workspace is empty"),
        Text("<topics>parser</topics><summary>the summary</summary>"),
    )
    first = run_pleat(workspace, server, "-p", "what is here?")
    assert first.returncode == 0, first.stderr
    folded = run_pleat(
        workspace,
        server,
        "-p",
        "/compact the parser",
        "--continue",
        "--compaction",
        "tail_messages=1",
    )
    assert folded.returncode == 0, folded.stderr
    assert "folded" in folded.stdout and "chunk 1" in folded.stdout
    (session,) = (pleat_home / "sessions").iterdir()
    (post,) = events(tmp_path / "post.jsonl")
    chunk = session / "chunks" / "chunk-0001.md"
    assert post["chunk_path"] == str(chunk) and chunk.is_file()  # the chunk just written
    assert "what is here?" in chunk.read_text()
    assert post["summary"] == "the summary" and post["chunk"] == 1
    assert post["hook_event_name"] == "PostCompact" and post["trigger"] == "manual"
    assert post["session_id"] == session.name and post["cwd"] == str(workspace)
    instruction = server.requests[-1].messages[-1]["content"]
    assert "the parser\nkeep the parser notes" in instruction  # PreCompact's stdout: the focus
    assert [e["source"] for e in events(tmp_path / "start.jsonl")] == ["startup", "resume"]


def test_a_user_prompt_submit_hook_that_exits_2_keeps_the_prompt_from_the_model(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(
        pleat_home,
        "[[hooks.UserPromptSubmit]]\ncommand = \"echo 'no prompts on Fridays' >&2; exit 2\"\n",
    )
    server.push(Text("never sent"))
    done = run_pleat(workspace, server, "-p", "hello")
    assert done.returncode == EXIT_FAILED
    assert server.requests == []
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("pleat: error: prompt not sent: UserPromptSubmit hook")
    assert line.endswith("blocked it: no prompts on Fridays")


def test_a_stop_hook_runs_when_the_turn_ends(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    log = logger(tmp_path)
    write_config(
        pleat_home,
        f"[[hooks.Stop]]\ncommand = {json.dumps(python(log, tmp_path / 'stop.jsonl'))}\n"
        "sandbox = false\n",  # it logs outside the workspace
    )
    server.push(ToolCalls([("list_dir", {})]), Text("all done"))
    done = run_pleat(workspace, server, "-p", "look")
    assert done.returncode == 0, done.stderr
    (stop,) = events(tmp_path / "stop.jsonl")  # once: at the end, not after the tool step
    assert stop["hook_event_name"] == "Stop" and stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "all done"
    assert stop["permission_mode"] == "bypassPermissions"  # Claude Code's name
    assert stop["pleat_permission_mode"] == "full-auto"


# The docs' formatter (docs/EXTENDING.md): a PostToolUse hook that rewrites the file just written.
SQUEEZE = """\
import json, pathlib, sys
call = json.load(sys.stdin)
path = pathlib.Path(call["tool_input"]["file_path"])  # absolute, as Claude Code gives it
path.write_text(path.read_text().replace("  ", " "))
"""


def test_undo_takes_back_what_a_post_tool_use_formatter_changed(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    """What a PostToolUse hook changes is part of the call it followed: the checkpoint's
    "after" is taken once the hooks finished, so /undo finds pleat's own bytes there, not an
    edit of the user's to keep."""
    script = tmp_path / "squeeze.py"
    script.write_text(SQUEEZE)
    write_config(
        pleat_home,
        f'[[hooks.PostToolUse]]\nmatcher = "Edit|Write"\ncommand = {json.dumps(python(script))}\n',
    )
    (workspace / "app.py").write_text("x = 1\n")
    server.push(ToolCalls([("write_file", {"path": "app.py", "content": "x  =  2\n"})]), Text("ok"))
    done = run_pleat(workspace, server, "-p", "change it")
    assert done.returncode == 0, done.stderr
    assert (workspace / "app.py").read_text() == "x = 2\n"  # the hook formatted it
    undone = run_pleat(workspace, server, "-p", "/undo", "--continue")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert undone.stdout.startswith("undid turn 1: change it"), undone.stdout
    assert (workspace / "app.py").read_text() == "x = 1\n"
