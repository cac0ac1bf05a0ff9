"""The hook runner with real processes: exit codes, the JSON on stdin, time limits that kill the
whole process group, bounded and terminal-safe output, and an environment without the keys."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from agent.hooks.answer import HOOK_NOTICE_CHARS, MAX_HOOK_OUTPUT_BYTES, HookRun
from agent.hooks.config import HookSpec, Matcher
from agent.hooks.process import run_hook
from agent.hooks.runner import HookRunner, hook_environment
from agent.terminal_text import visible

# Seconds allowed for a killed process to disappear (reaped by init): a generous bound on a
# loaded machine; the tests wait for an event, never assert how long it took.
GONE_WITHIN_SECONDS = 20.0


def spec(
    command: str, *, timeout: float = 30.0, event: str = "PreToolUse", matcher: str = ""
) -> HookSpec:
    return HookSpec(event, command, Matcher(matcher), timeout)


async def run(command: str, cwd: Path, *, stdin: bytes = b"{}", limit: float = 30.0) -> HookRun:
    return await run_hook(spec(command, timeout=limit), stdin, cwd, hook_environment(cwd))


def text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def same_directory(path: str, directory: Path) -> bool:
    return Path(path).samefile(directory)


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


async def gone(pid: int) -> bool:
    for _ in range(int(GONE_WITHIN_SECONDS / 0.05)):
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_exit_zero_goes_on_with_its_stdout(workspace: Path) -> None:
    done = await run("echo context; echo note >&2", workspace)
    assert done.exit_code == 0 and not done.blocked and not done.failed
    assert done.stdout == "context\n" and done.stderr == "note\n"


async def test_exit_two_blocks_with_its_stderr(workspace: Path) -> None:
    done = await run("echo 'rm is not allowed' >&2; exit 2", workspace)
    assert done.blocked and not done.failed
    assert done.stderr.strip() == "rm is not allowed"


async def test_other_exit_codes_are_failures_said_in_one_line(workspace: Path) -> None:
    done = await run("echo 'linter not found' >&2; echo more >&2; exit 3", workspace)
    assert done.failed and not done.blocked and done.exit_code == 3
    line = done.failure()
    assert "\n" not in line
    assert line.startswith("PreToolUse hook \"echo 'linter not found' >&2; echo more")
    assert line.endswith(" exited with 3: linter not found more")


async def test_a_failure_line_stays_short_however_much_the_hook_says(workspace: Path) -> None:
    done = await run("head -c 100000 /dev/zero | tr '\\0' x >&2; exit 1", workspace)
    assert done.failed and len(done.failure()) < HOOK_NOTICE_CHARS + 200


async def test_a_command_that_cannot_start_is_a_failure(workspace: Path) -> None:
    done = await run("true", workspace / "missing")
    assert done.failed and done.exit_code is None and done.problem.startswith("cannot start")


async def test_the_event_arrives_as_json_on_stdin_in_the_workspace(workspace: Path) -> None:
    runner = HookRunner(
        [
            spec(
                "cat > stdin.json; pwd > cwd.txt; "
                "echo $PLEAT_PROJECT_DIR $CLAUDE_PROJECT_DIR > dirs.txt"
            )
        ],
        workspace,
        session_id="s-1",
        transcript_path=workspace / "journal.jsonl",
    )
    fields = {"tool_name": "run_command", "tool_input": {"command": "ls é"}, "tool_use_id": "c1"}
    (done,) = await runner.run("PreToolUse", "ask", fields, ("run_command",))
    assert done.exit_code == 0
    assert json.loads(text(workspace / "stdin.json")) == {
        "session_id": "s-1",
        "transcript_path": str(workspace / "journal.jsonl"),
        "cwd": str(workspace),
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",  # Claude Code's name for it ...
        "pleat_permission_mode": "ask",  # ... and pleat's
        **fields,
    }
    assert same_directory(text(workspace / "cwd.txt").strip(), workspace)
    assert text(workspace / "dirs.txt").split() == [str(workspace)] * 2


async def test_only_matching_hooks_run_and_they_run_together(workspace: Path) -> None:
    # The first waits for a file the second makes: run one after the other, it would give up.
    waits = "for i in $(seq 200); do [ -f b ] && exit 0; sleep 0.05; done; exit 1"
    runner = HookRunner(
        [
            spec(waits, matcher="Bash"),
            spec("touch b", matcher="run_command"),
            spec("touch c", matcher="edit_file"),
        ],
        workspace,
        session_id="s",
        transcript_path=None,
    )
    runs = await runner.run("PreToolUse", "ask", {}, ("run_command", "Bash"))
    assert [r.spec.command for r in runs] == [waits, "touch b"]
    assert [r.exit_code for r in runs] == [0, 0]
    assert not (workspace / "c").exists()
    assert await runner.run("Stop", "ask", {}) == []  # no Stop hook: nothing runs


async def test_past_its_time_limit_the_whole_process_group_is_killed(workspace: Path) -> None:
    done = await run("sleep 60 & echo $! > child.pid; sleep 60", workspace, limit=0.5)
    assert done.exit_code is None and done.failed
    assert done.problem == "timed out after 0.5 s (killed)"
    assert "timed out after 0.5 s" in done.failure()
    assert await gone(int(text(workspace / "child.pid")))


async def test_a_background_process_holding_the_output_is_killed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agent.hooks.process.DRAIN_SECONDS", 0.2)  # no need to wait the full grace
    done = await run("sleep 60 & echo $! > child.pid; echo started", workspace)
    assert done.exit_code == 0 and done.stdout == "started\n"
    assert await gone(int(text(workspace / "child.pid")))


async def test_a_cancelled_hook_is_killed_with_its_group(workspace: Path) -> None:
    task = asyncio.create_task(run("sleep 60 & echo $! > child.pid; sleep 60", workspace))
    for _ in range(int(GONE_WITHIN_SECONDS / 0.05)):  # until the hook has started its child
        if text(workspace / "child.pid"):
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(int(text(workspace / "child.pid")))


async def test_a_flood_of_output_is_bounded_and_the_hook_still_ends(workspace: Path) -> None:
    done = await run(
        "head -c 5000000 /dev/zero | tr '\\0' a; head -c 3000000 /dev/zero >&2; exit 2", workspace
    )
    assert done.blocked
    kept, note = done.stdout.rsplit("\n", 1)
    assert kept == "a" * MAX_HOOK_OUTPUT_BYTES
    assert (
        note
        == f"[... {5_000_000 - MAX_HOOK_OUTPUT_BYTES:,} more bytes of hook output were not kept]"
    )
    assert len(done.stderr) < MAX_HOOK_OUTPUT_BYTES * 4 + 200  # NULs shown as \x00: 4 each
    assert done.stderr.startswith("\\x00\\x00")


async def test_a_hook_that_ignores_a_large_stdin_does_not_hang(workspace: Path) -> None:
    big = json.dumps({"prompt": "x" * 1_000_000}).encode()
    done = await run("echo ignored", workspace, stdin=big)
    assert done.exit_code == 0 and done.stdout == "ignored\n"


async def test_control_characters_are_made_visible(workspace: Path) -> None:
    done = await run("printf 'a\\033[2Jb\\n'; printf '\\033]52;c;aGk=\\007' >&2; exit 2", workspace)
    assert done.stdout == "a\\x1b[2Jb\n"
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr


async def test_a_hook_never_sees_a_key(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    provider_key = "sk-fake-provider-0123456789"
    config_key = "sk-from-config-toml-987654"  # config.toml's api_key: no variable names it
    monkeypatch.setenv("OPENAI_API_KEY", provider_key)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-abcdefghijklmnop")
    monkeypatch.setenv("DATABASE_URL", f"postgres://me:{provider_key}@db/app")
    monkeypatch.setenv("INNOCENT_LOOKING", f"x{config_key}x")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    runner = HookRunner(
        [spec("env > env.txt", event="SessionStart")],
        workspace,
        session_id="s",
        transcript_path=None,
        secrets=[config_key],
    )
    (done,) = await runner.run("SessionStart", "ask", {"source": "startup"})
    assert done.exit_code == 0
    seen = text(workspace / "env.txt")
    assert "PLAIN_SETTING=visible" in seen and f"PLEAT_PROJECT_DIR={workspace}" in seen
    for hidden in ("OPENAI_API_KEY", "MY_SERVICE_TOKEN", "DATABASE_URL"):
        assert f"{hidden}=" not in seen
    assert "INNOCENT_LOOKING=xx\n" in seen  # the key taken out where it stood
    assert provider_key not in seen and config_key not in seen and "tok-abcdefgh" not in seen
    assert os.environ["OPENAI_API_KEY"] == provider_key  # pleat's own environment is unchanged


async def test_a_dummy_key_takes_nothing_from_a_hooks_environment(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local server's key `x` (llama.cpp, Ollama) is no secret: HOME, PATH and the D-Bus
    address holding an x stay as they are."""
    monkeypatch.setenv("HOME", "/home/xavier")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
    monkeypatch.setenv("PATH", f"/home/xavier/bin:{os.environ['PATH']}")
    runner = HookRunner(
        [spec("env > env.txt", event="SessionStart")],
        workspace,
        session_id="s",
        transcript_path=None,
        secrets=["x"],
    )
    (done,) = await runner.run("SessionStart", "ask", {"source": "startup"})
    assert done.exit_code == 0
    seen = text(workspace / "env.txt")
    assert "HOME=/home/xavier\n" in seen and "PATH=/home/xavier/bin:" in seen
    assert "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\n" in seen


def answered(stdout: str, code: int = 0) -> HookRun:
    return HookRun(spec("x"), code, stdout=stdout, raw_stdout=stdout)


def test_claude_codes_json_answers_block_and_add_context() -> None:
    deny = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no rm",
            }
        }
    )
    assert answered(deny).blocked and answered(deny).reason == "no rm"
    legacy = '{"decision": "block", "reason": "fix the lint first"}'
    assert answered(legacy).blocked and answered(legacy).reason == "fix the lint first"
    assert answered(legacy).context == ""
    context = '{"hookSpecificOutput": {"additionalContext": "branch: main"}}'
    assert not answered(context).blocked and answered(context).context == "branch: main"
    allow = '{"hookSpecificOutput": {"permissionDecision": "allow"}}'  # never skips the check
    assert not answered(allow).blocked and answered(allow).context == ""
    assert answered("{not json").context == "{not json"  # plain text, as printed
    assert answered("plain words\n").context == "plain words"
    assert not answered(legacy, code=1).blocked  # an answer counts only with exit 0
    escape = '{"decision": "block", "reason": "a\\u001b[2Jb"}'
    assert answered(escape).reason == "a\\x1b[2Jb"  # JSON escapes made visible too


def test_a_deeply_nested_answer_is_not_a_json_answer() -> None:
    """json's recursion on 100,000 levels would be a RecursionError that crashes the turn; a
    hook's stdout too deep (or otherwise beyond the JSON limits) is plain text instead."""
    deep = '{"decision": ' + "[" * 100_000 + "]" * 100_000 + "}"
    run = answered(deep)
    assert run.answer == {} and not run.blocked and run.reason == ""
    assert run.context == deep  # read as what it printed, as any text that is not an answer
    huge = '{"decision": "block", "reason": "x", "n": ' + "9" * 5000 + "}"
    assert answered(huge).answer == {} and not answered(huge).blocked


def test_a_json_answer_is_read_from_the_raw_output_not_its_terminal_safe_form() -> None:
    """A guard that quotes the command in its reason may hold a DEL or a C1 byte, which JSON
    allows raw; escaping it for the terminal first would turn the deny into a go-on."""
    deny = json.dumps(
        {
            "hookSpecificOutput": {
                "permissionDecision": "deny",
                "permissionDecisionReason": "rm \x7f",
            }
        },
        ensure_ascii=False,
    )
    run = HookRun(spec("x"), 0, stdout=visible(deny), raw_stdout=deny)
    assert run.blocked and run.reason == "rm \\x7f"  # shown escaped


def test_a_guard_whose_answer_was_cut_or_that_fails_with_on_failure_block_blocks() -> None:
    cut = HookRun(HookSpec("PreToolUse", "x"), 0, raw_stdout='{"a": "' + "x" * 10, stdout_cut=True)
    assert cut.blocked and "could not be read" in cut.reason
    after = HookRun(HookSpec("PostToolUse", "x"), 0, raw_stdout='{"a": "', stdout_cut=True)
    assert not after.blocked  # only a guard fails closed
    guard = HookSpec("PreToolUse", "x", block_on_failure=True)
    timed_out = HookRun(guard, None, problem="timed out after 5 s (killed)")
    assert timed_out.blocked and "onFailure is block" in timed_out.reason
    assert not HookRun(HookSpec("PreToolUse", "x"), None, problem="timed out").blocked


async def test_what_a_hook_said_is_kept_when_a_detached_child_holds_its_output(
    workspace: Path,
) -> None:
    """A `setsid` child outside the hook's group keeps the pipe open: the hook's own words
    before it are not lost (found by review)."""
    from tests.support.mcp_support import kill_holding

    marker = f"30.{os.getpid()}"  # sleep's argument, found in its command line to clean up
    command = f"setsid sleep {marker} & echo said"
    try:
        env = hook_environment(workspace)
        done = await run_hook(spec(command, timeout=20), b"{}", workspace, env)
    finally:
        kill_holding(marker)
    assert done.exit_code == 0 and done.stdout == "said\n"
