"""The ledger: files, commands, exit codes, errors and requests that code takes from messages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.compaction.ledger import (
    COMMAND_CHARS,
    ERROR_CHARS,
    MAX_COMMANDS,
    MAX_FILES,
    Ledger,
    update_ledger,
)
from agent.compaction.ledger_render import render_ledger
from agent.replay.recorded import adapt_results, read_sessions
from sessions.messages import Message, ToolCall
from tools.base import ToolOutput
from tools.result_facts import ResultFacts


def ran(code: int) -> ResultFacts:
    """The facts run_command gives a command that exited with code."""
    return ResultFacts(exit_code=code, text_after_output=f"\nexit code: {code}")


def read(path: str) -> ResultFacts:
    """The facts read_file gives a file it read."""
    return ResultFacts(files_read=(path,))


class Script:
    """Builds a conversation with stable ids m1, m2, ... and paired tool calls and results."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def add(self, message: Message) -> Message:
        message.id = f"m{len(self.messages) + 1}"
        self.messages.append(message)
        return message

    def user(self, text: str, **meta: object) -> None:
        self.add(Message("user", text, meta=dict(meta)))

    def tool(
        self,
        name: str,
        args: object,
        result: str,
        *,
        facts: ResultFacts | None = None,
        is_error: bool = False,
    ) -> None:
        """A call and its result; with facts, the result's meta is what the agent loop records
        today; without, what it recorded before tools reported facts (old journals)."""
        number = len(self.messages) + 1
        arguments = args if isinstance(args, str) else json.dumps(args)
        call = ToolCall(f"call_{number}", name, arguments)
        self.add(Message("assistant", None, (call,)))
        if facts is None:
            meta = {"is_error": True} if is_error else {}
        else:
            meta = ToolOutput(result, is_error, facts=facts).message_meta()
        self.add(Message("tool", result, tool_call_id=call.id, name=name, meta=meta))


def pleat_session(*, legacy: bool = False) -> Script:
    """A session of pleat's tools, their results with the facts the tools give (or, legacy,
    without them, as journals from before facts hold them)."""

    def facts(value: ResultFacts) -> ResultFacts | None:
        return None if legacy else value

    s = Script()
    s.user("Fix the failing test in calc.py")
    source = "1\tdef add(a, b):\n2\t    return a - b"
    s.tool("read_file", {"path": "calc.py"}, source, facts=facts(read("calc.py")))
    test = "1\tdef test_add(): ..."
    s.tool(
        "read_file", {"path": "./tests/test_calc.py"}, test, facts=facts(read("tests/test_calc.py"))
    )
    s.tool("list_dir", {"path": "."}, "calc.py\ntests/", facts=facts(ResultFacts()))
    s.tool("glob", {"pattern": "**/*.py"}, "calc.py", facts=facts(ResultFacts()))
    s.tool("grep", {"pattern": "add", "path": "."}, "calc.py:1:def add", facts=facts(ResultFacts()))
    failing = "F\n1 failed in 0.1s\nexit code: 1"
    s.tool("run_command", {"command": "pytest -q"}, failing, facts=facts(ran(1)), is_error=True)
    edit = {"path": "calc.py", "old_string": "-", "new_string": "+"}
    s.tool("edit_file", edit, "edited", facts=facts(ResultFacts(files_edited=("calc.py",))))
    written = ResultFacts(files_written=("NOTES.md",))
    s.tool("write_file", {"path": "NOTES.md", "content": "x"}, "wrote 1 line", facts=facts(written))
    passing = "1 passed in 0.1s\nexit code: 0"
    s.tool("run_command", {"command": "pytest -q"}, passing, facts=facts(ran(0)))
    missing = "error: no such file: missing.py"
    s.tool("read_file", {"path": "missing.py"}, missing, facts=facts(ResultFacts()), is_error=True)
    return s


@pytest.mark.parametrize("legacy", [False, True], ids=["facts", "legacy"])
def test_pleat_tools(legacy: bool) -> None:
    ledger = update_ledger(None, pleat_session(legacy=legacy).messages)
    assert ledger.files_read == ["calc.py", "tests/test_calc.py"]  # the failed read is not one
    assert ledger.files_edited == ["calc.py"]
    assert ledger.files_written == ["NOTES.md"]
    # The same command again: one entry, at its newest place, with its newest exit code.
    assert ledger.commands == [("pytest -q", 0)]
    assert ledger.last_error is not None
    assert ledger.last_error.startswith("read_file failed in m21: error: no such file")
    assert ledger.requests == [("m1", "Fix the failing test in calc.py")]


def test_exit_codes_timeouts_and_failures() -> None:
    s = Script()
    s.tool("run_command", {"command": "make"}, "building\nerror: boom\nexit code: 2", facts=ran(2))
    timeout = "(no output)\ntimed out after 120.0 s; killed"
    timed_out = ResultFacts(timed_out=True, text_after_output="\ntimed out after 120.0 s; killed")
    s.tool("run_command", {"command": "sleep 500"}, timeout, facts=timed_out, is_error=True)
    s.tool(
        "run_command",
        {"command": "echo 'exit code: 7'"},
        "exit code: 7\nexit code: 0",
        facts=ran(0),
    )
    s.tool("run_command", {"command": "no result yet"}, "")
    s.messages.pop()  # its result is not among the folded messages
    ledger = update_ledger(None, s.messages)
    assert ledger.commands == [
        ("make", 2),
        ("sleep 500", None),
        ("echo 'exit code: 7'", 0),
        ("no result yet", None),
    ]
    assert ledger.last_error == "run_command `sleep 500` (timed out) in m4: (no output)"
    first = update_ledger(None, s.messages[:2]).last_error
    assert first == "run_command `make` (exit code 2) in m2: building | error: boom"


def test_the_facts_decide_not_the_text() -> None:
    s = Script()
    # A result whose text was replaced (a shrunk stub) keeps its facts: the code is still known.
    stub = "[pleat: this run_command output was shrunk; read it with read_archive]"
    s.tool("run_command", {"command": "pytest"}, stub, facts=ran(1), is_error=True)
    # Text that looks like a status but is not in the facts says nothing.
    s.tool("run_command", {"command": "cat log"}, "exit code: 9", facts=ran(0))
    ledger = update_ledger(None, s.messages)
    assert ledger.commands == [("pytest", 1), ("cat log", 0)]
    assert ledger.last_error == f"run_command `pytest` (exit code 1) in m2: {stub}"


def test_legacy_results_are_read_from_their_status_line() -> None:
    s = Script()
    s.tool("run_command", {"command": "make"}, "building\nerror: boom\nexit code: 2", is_error=True)
    s.tool("run_command", {"command": "sleep 500"}, "(no output)\ntimed out after 120.0 s; killed")
    s.tool("run_command", {"command": "echo 'exit code: 7'"}, "exit code: 7\nexit code: 0")
    s.tool("run_command", {"command": "true"}, "exit code: 0")
    ledger = update_ledger(None, s.messages)
    assert ledger.commands == [
        ("make", 2),
        ("sleep 500", None),
        ("echo 'exit code: 7'", 0),
        ("true", 0),
    ]
    assert ledger.last_error == "run_command `sleep 500` (timed out) in m4: (no output)"
    first = update_ledger(None, s.messages[:2]).last_error
    assert first == "run_command `make` (exit code 2) in m2: building | error: boom"


def test_bash_tool_of_recorded_sessions() -> None:
    s = Script()
    s.tool("bash", {"command": "ls"}, "<returncode>0</returncode>\n<output>\na.py\n</output>")
    s.tool(
        "bash",
        {"command": "python a.py"},
        "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n"
        "  File \"a.py\", line 1\nNameError: name 'x' is not defined\n</output>",
    )
    ledger = update_ledger(None, adapt_results(s.messages))
    assert ledger.commands == [("ls", 0), ("python a.py", 1)]
    assert ledger.last_error is not None
    assert ledger.last_error.startswith("bash `python a.py` (exit code 1) in m4: ")
    assert ledger.last_error.endswith("NameError: name 'x' is not defined")
    assert "<output>" not in ledger.last_error


def test_editor_tool_commands_are_file_operations() -> None:
    s = Script()
    s.tool("str_replace_editor", {"command": "view", "path": "/repo/a.py"}, "...")
    s.tool("str_replace_editor", {"command": "create", "path": "/repo/b.py"}, "ok")
    s.tool("str_replace_editor", {"command": "str_replace", "path": "/repo/a.py"}, "ok")
    ledger = update_ledger(None, adapt_results(s.messages))
    assert (ledger.files_read, ledger.files_written) == (["/repo/a.py"], ["/repo/b.py"])
    assert (ledger.files_edited, ledger.commands) == (["/repo/a.py"], [])


def test_bad_arguments_are_skipped() -> None:
    s = Script()
    s.tool("read_file", "{not json", "text")
    s.tool("read_file", "[1, 2]", "text")
    s.tool("read_file", {"path": 42}, "text")
    s.tool("run_command", {"command": ["ls"]}, "exit code: 0")
    s.add(Message("tool", "orphan result", tool_call_id="call_nowhere", name="grep"))
    s.add(Message("assistant", None))
    ledger = update_ledger(None, s.messages)
    assert ledger == Ledger()


def load_recorded(path: Path, count: int) -> list[list[Message]]:
    """The first recorded sessions, as replay loads them (their results adapted)."""
    sessions = []
    for session in read_sessions(path):
        sessions.append(session.messages)
        if len(sessions) == count:
            break
    return sessions


def test_recorded_sessions(recorded_sessions_file: Path) -> None:
    for messages in load_recorded(recorded_sessions_file, 3):
        ledger = update_ledger(None, messages)
        calls = [c for m in messages for c in m.tool_calls]
        assert len(ledger.commands) >= len({c.arguments for c in calls}) // 2
        codes = [code for _, code in ledger.commands]
        assert codes.count(0) >= len(codes) - 1  # these sessions' commands succeed
        assert all(len(text) <= COMMAND_CHARS and "\n" not in text for text, _ in ledger.commands)
        # The task statement is the one real user message; the system prompt is not a request.
        assert [mid for mid, _ in ledger.requests] == ["m1"]
        assert ledger.requests[0][1].startswith("<pr_description>")
        text = render_ledger(ledger, request_budget_chars=2_000)
        assert "Commands (exit code):" in text
        assert "Your requests, verbatim:" in text


# The status mini-swe-agent's bash results open with, and its note on a command killed at its
# time limit (read here independently of replay's adapter).
STATUS = re.compile(r"\s*<returncode>(-?\d+)</returncode>")
TIMEOUT_NOTE = re.compile(r"The last command <command>.*?</command> timed out", re.DOTALL)


def test_recorded_exit_codes_match_their_results_at_every_fold(
    recorded_sessions_file: Path,
) -> None:
    """Every recorded session folded one command at a time, as compactions fold: the command
    just folded has the exit code its result shows, a timeout is the last error, and an error
    is quoted without the tags around the output."""
    timeouts = 0
    for session in read_sessions(recorded_sessions_file):
        messages = session.messages
        ledger, folded = None, 0
        for end, message in enumerate(messages, 1):
            if message.role != "tool":
                continue
            text = message.content or ""
            status = STATUS.match(text)
            ledger, folded = update_ledger(ledger, messages[folded:end]), end
            assert ledger.commands[-1][1] == (int(status.group(1)) if status else None)
            error = ledger.last_error or ""
            assert "<returncode>" not in error and not error.endswith(("</output>", "_tail>"))
            if TIMEOUT_NOTE.match(text):
                timeouts += 1
                assert error.startswith("bash `") and f"(timed out) in {message.id}" in error
    assert timeouts == 5  # the recorded sessions' commands killed at mini-swe-agent's limit


def test_update_is_cumulative_and_leaves_previous_alone() -> None:
    messages = pleat_session().messages
    whole = update_ledger(None, messages)
    first = update_ledger(None, messages[:10])
    snapshot = first.to_dict()
    both = update_ledger(first, messages[10:])
    assert both == whole
    assert first.to_dict() == snapshot
    # Folding the same messages twice changes nothing.
    assert update_ledger(whole, messages) == whole


def test_injected_user_messages_are_not_requests() -> None:
    s = Script()
    s.user("real request")
    s.user("[pleat: summary]", kind="summary", injected=True)
    s.user("compress now", kind="instruction", injected=True)
    s.user("[pleat: transcript]", injected=True)
    s.user("reminder", kind="reminder")
    s.user("second real request")
    ledger = update_ledger(None, s.messages)
    assert ledger.requests == [("m1", "real request"), ("m6", "second real request")]


def test_bounds_keep_the_newest_and_count_the_rest() -> None:
    s = Script()
    for i in range(100):
        s.tool("run_command", {"command": f"echo {i}"}, "exit code: 0", facts=ran(0))
        s.tool("read_file", {"path": f"f{i}.py"}, "x", facts=read(f"f{i}.py"))
    ledger = update_ledger(None, s.messages)
    assert len(ledger.commands) == MAX_COMMANDS
    assert ledger.commands[-1] == ("echo 99", 0)
    assert ledger.commands_dropped == 100 - MAX_COMMANDS
    assert ledger.files_read == [f"f{i}.py" for i in range(100 - MAX_FILES, 100)]
    assert ledger.files_read_dropped == 100 - MAX_FILES
    text = render_ledger(ledger, request_budget_chars=100)
    assert f"(and {100 - MAX_FILES} earlier, not listed)" in text
    assert f"({100 - MAX_COMMANDS} earlier commands not listed)" in text


def test_a_file_touched_again_survives_the_bound() -> None:
    s = Script()
    for i in range(MAX_FILES):
        s.tool("read_file", {"path": f"f{i}.py"}, "x", facts=read(f"f{i}.py"))
    ledger = update_ledger(None, s.messages)
    s2 = Script()
    s2.tool("read_file", {"path": "f0.py"}, "x", facts=read("f0.py"))
    s2.tool("read_file", {"path": "new.py"}, "x", facts=read("new.py"))
    ledger = update_ledger(ledger, s2.messages)
    assert ledger.files_read[0] == "f0.py"  # first-appearance order, kept because fresh
    assert "f1.py" not in ledger.files_read
    assert ledger.files_read[-1] == "new.py"
    assert (len(ledger.files_read), ledger.files_read_dropped) == (MAX_FILES, 1)


def test_long_commands_and_errors_are_cut_to_one_line() -> None:
    s = Script()
    s.tool(
        "run_command",
        {"command": "echo " + "word " * 100 + "\n  && ls"},
        "exit code: 0",
        facts=ran(0),
    )
    heredoc = "cat <<'EOF' > x.py\nimport os\nprint(1)\nEOF"
    s.tool("bash", {"command": heredoc}, "<returncode>0</returncode>")
    s.tool("run_command", {"command": "t"}, "line\n" * 1000 + "exit code: 3", facts=ran(3))
    ledger = update_ledger(None, s.messages)
    long, script, _ = ledger.commands
    assert len(long[0]) <= COMMAND_CHARS and "\n" not in long[0]
    assert long[0].endswith("…")
    assert script[0] == "cat <<'EOF' > x.py … (+3 lines)"
    assert ledger.last_error is not None
    assert len(ledger.last_error) <= ERROR_CHARS + 60


def test_secrets_never_reach_the_ledger() -> None:
    key = "sk-proj-abcdefghijklmnop1234567890"
    custom = "my-local-gateway-key-42"
    s = Script()
    s.user(f"use the key {key} and {custom} please")
    s.tool("run_command", {"command": f"export OPENAI_API_KEY={key}"}, "exit code: 0", facts=ran(0))
    s.tool("run_command", {"command": f"curl -H 'X-Key: {custom}' host"}, "", facts=ran(0))
    s.tool("read_file", {"path": ".env"}, "x", facts=read(".env"))
    s.tool("run_command", {"command": "cat .env"}, f"API_KEY={key}\nexit code: 1", facts=ran(1))
    ledger = update_ledger(None, s.messages, known_secrets=[custom])
    dumped = json.dumps(ledger.to_dict())
    assert key not in dumped and custom not in dumped
    assert "OPENAI_API_KEY=[REDACTED]" in dumped
    assert ledger.requests[0][1] == "use the key [REDACTED] and [REDACTED] please"
    rendered = render_ledger(ledger, request_budget_chars=1_000)
    assert key not in rendered and custom not in rendered


def test_render_sections_and_request_budget() -> None:
    assert render_ledger(Ledger(), request_budget_chars=1_000) == ""
    s = Script()
    for i in range(5):
        s.user(f"request {i}: " + "x" * 80 + f"\nsecond line {i}")
    ledger = update_ledger(None, s.messages)
    text = render_ledger(ledger, request_budget_chars=250)
    assert text.startswith("Your requests, verbatim:\n(3 earlier requests are in the archive)\n")
    assert "m4:\n> request 3: " in text and "> second line 4" in text
    assert "request 2:" not in text
    assert "Files read" not in text and "Commands" not in text and "Last error" not in text
    # A budget smaller than the newest request still shows its start.
    tiny = render_ledger(ledger, request_budget_chars=40)
    assert "(4 earlier requests are in the archive)" in tiny
    assert tiny.endswith(
        "m5:\n> request 4: " + "x" * 80 + "\n> second l… [cut; the full text is archived]"
    )


def test_render_lists_everything_known() -> None:
    ledger = update_ledger(None, pleat_session().messages)
    text = render_ledger(ledger, request_budget_chars=1_000)
    assert text.splitlines()[:5] == [
        "Files read: calc.py, tests/test_calc.py",
        "Files written: NOTES.md",
        "Files edited: calc.py",
        "Commands (exit code):",
        "- `pytest -q` (0)",
    ]
    assert "Last error: read_file failed in m21" in text
    assert text.endswith("Your requests, verbatim:\nm1:\n> Fix the failing test in calc.py")
    odd = Ledger(commands=[("echo `date`", None)])
    assert "- `` echo `date` `` (?)" in render_ledger(odd, request_budget_chars=0)


def test_dict_round_trip_and_tolerance() -> None:
    ledger = update_ledger(None, pleat_session().messages)
    ledger.commands_dropped = 3
    data = json.loads(json.dumps(ledger.to_dict()))
    assert Ledger.from_dict(data) == ledger
    assert Ledger.from_dict(None) == Ledger()
    assert Ledger.from_dict({"commands": [["ls", "x"], [1, 2], "bad"], "files_read": [1, "a"]}) == (
        Ledger(commands=[("ls", None)], files_read=["a"])
    )
