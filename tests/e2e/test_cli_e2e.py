"""`pleat -p` as a user runs it: real HTTP to the scripted server, real files; and every bad input
ends with a non-zero exit and exactly one line on stderr. Most runs call the entry point in
process (tests/support/in_process.py); a success and both kinds of failure (a bad configuration
before any call, exit 2; a server that cannot be reached, exit 1) run as real processes too, so
the console script's exit code and a stderr with nothing more on it at the interpreter's exit
are seen."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import pleat, pleat_process
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (pleat's runs import litellm, some in a process of their own): left out of the fast set,
# `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def one_error_line(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("pleat: error: ")
    return lines[0]


def test_headless_reads_files_through_tools(server: ScriptedServer, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("def main():\n    return 'launch code 7731'\n")
    server.push(
        ToolCalls([("glob", {"pattern": "**/*.py"})]),
        ToolCalls([("read_file", {"path": "src/app.py"})]),
        Text("main() returns 'launch code 7731'."),
    )
    done = pleat_process(
        "-p",
        "what does main return?",
        "--model",
        TEST_MODEL,
        "--api-base",
        server.base_url,
        "--api-key",
        TEST_API_KEY,
        "--cwd",
        str(workspace),
        cwd=workspace.parent,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "main() returns 'launch code 7731'."
    assert "glob" in done.stderr and "read_file" in done.stderr
    assert "launch code 7731" in server.requests[2].messages[-1]["content"]


def test_key_from_the_providers_usual_variable(server: ScriptedServer, workspace: Path) -> None:
    server.push(Text("hello"))
    done = pleat(
        "-p",
        "hi",
        "--model",
        TEST_MODEL,
        "--api-base",
        server.base_url,
        cwd=workspace,
        env={"OPENAI_API_KEY": TEST_API_KEY},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"


def test_headless_without_yes_refuses_writes(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("write_file", {"path": "x.txt", "content": "x"})]), Text("could not"))
    args = ["--model", TEST_MODEL, "--api-base", server.base_url, "--api-key", TEST_API_KEY]
    done = pleat("-p", "write x", *args, cwd=workspace)
    assert done.returncode == 0
    assert not (workspace / "x.txt").exists()
    assert "--yes" in server.requests[1].messages[-1]["content"]
    server.push(ToolCalls([("write_file", {"path": "x.txt", "content": "x"})]), Text("wrote"))
    done = pleat("-p", "write x", *args, "--yes", cwd=workspace)
    assert done.returncode == 0 and (workspace / "x.txt").read_text() == "x"


def test_no_model_configured(workspace: Path) -> None:
    """Nothing configured and nothing found (no provider key; the one server to ask is closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    done = pleat("-p", "hi", cwd=workspace, env={"PLEAT_LOCAL_MODEL_SERVERS": closed})
    assert done.returncode == 2
    line = one_error_line(done)
    assert "no model configured" in line and "none found either" in line


def test_unknown_model(workspace: Path) -> None:
    done = pleat_process("-p", "hi", "--model", "not-a-real-model-xyz", cwd=workspace)
    assert done.returncode == 2
    assert "unknown model 'not-a-real-model-xyz'" in one_error_line(done)


def test_model_the_server_does_not_have(server: ScriptedServer, workspace: Path) -> None:
    done = pleat(
        "-p",
        "hi",
        "--model",
        "gpt-nope",
        "--api-base",
        server.base_url,
        "--api-key",
        TEST_API_KEY,
        cwd=workspace,
    )
    assert done.returncode == 2
    assert "gpt-nope" in one_error_line(done)


def test_bad_key(server: ScriptedServer, workspace: Path) -> None:
    done = pleat(
        "-p",
        "hi",
        "--model",
        TEST_MODEL,
        "--api-base",
        server.base_url,
        "--api-key",
        "sk-bad-999",
        cwd=workspace,
    )
    assert done.returncode == 2
    line = one_error_line(done)
    assert "authentication failed" in line and "sk-bad-999" not in line


def test_unreachable_server(workspace: Path) -> None:
    done = pleat_process(
        "-p",
        "hi",
        "--model",
        TEST_MODEL,
        "--api-base",
        "http://127.0.0.1:9/v1",
        "--api-key",
        "k",
        cwd=workspace,
        env={"PLEAT_MAX_RETRIES": "1"},
    )
    assert done.returncode == 1
    assert "cannot reach http://127.0.0.1:9/v1" in one_error_line(done)


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["--cwd", "/no/such/dir"], {}, "not a directory"),
        ([], {"PLEAT_MAX_RETRIES": "many"}, "PLEAT_MAX_RETRIES"),
        ([], {"PLEAT_COLOUR": "blue"}, "PLEAT_COLOUR"),
        (["--api-base", "localhost:1"], {}, "api_base"),
        (["--compaction", "threshold=2"], {}, "compaction.threshold"),
        (["--compaction", "threshold"], {}, "KEY=VALUE"),
        (["--context-window", "100"], {}, "context_window"),
        ([], {"PLEAT_COMPACTION_TAIL": "3"}, "PLEAT_COMPACTION_TAIL"),
    ],
)
def test_bad_configuration_is_one_line(
    workspace: Path, args: list[str], env: dict, needle: str
) -> None:
    done = pleat("-p", "hi", "--model", TEST_MODEL, *args, cwd=workspace, env=env)
    assert done.returncode == 2
    assert needle in one_error_line(done)


def test_bad_config_file_is_one_line(workspace: Path, pleat_home: Path) -> None:
    pleat_home.mkdir(parents=True)
    (pleat_home / "config.toml").write_text('model = "m"\nthreshold = 2\n')
    done = pleat("-p", "hi", cwd=workspace, env={"PLEAT_HOME": str(pleat_home)})
    assert done.returncode == 2
    assert "'threshold'" in one_error_line(done)


def test_headless_folds_under_a_small_window(server: ScriptedServer, workspace: Path) -> None:
    """--context-window reaches the engine; each fold is one line on stderr."""
    for i in range(12):
        (workspace / f"f{i}.txt").write_text(f"file {i} " + "words to read " * 300)
    reads = iter(range(12))

    def model(body: dict) -> Text | ToolCalls:
        if "[pleat: context compaction" in str(body["messages"][-1]["content"]):
            return Text("<topics>files</topics><summary>read some files</summary>")
        i = next(reads, None)
        return (
            Text("done reading") if i is None else ToolCalls([("read_file", {"path": f"f{i}.txt"})])
        )

    server.fallback = model
    done = pleat(
        "-p",
        "read the twelve files",
        "--model",
        TEST_MODEL,
        "--api-base",
        server.base_url,
        "--api-key",
        TEST_API_KEY,
        "--context-window",
        "8000",
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done reading"
    folds = [line for line in done.stderr.splitlines() if line.startswith("⟳ folded")]
    assert folds and all("tokens" in line and "from cache" in line for line in folds)


BIG_OUTPUTS = {
    # tool, arguments, the words of the note that says how to get the rest
    "read a 51 KB file": ("read_file", {"path": "big.py"}, "next: read_file"),
    "grep a big tree": ("grep", {"pattern": "TODO"}, "next: grep"),
    "print 1 MB": ("run_command", {"command": "seq -f 'line %g' 1 110000"}, "output 1"),
}


@pytest.mark.parametrize("case", list(BIG_OUTPUTS))
def test_a_big_output_under_a_16k_window_finishes(
    server: ScriptedServer, workspace: Path, case: str
) -> None:
    """The issue's new user: a server enforcing 16k, no --context-window (pleat assumes 32k
    and learns 16k from the refusal), one big output; exit 0, and the model got a cut note."""
    (workspace / "big.py").write_text("".join(f"value_{n} = {n} * 2  # x\n" for n in range(2_100)))
    tree = workspace / "src"
    tree.mkdir()
    for f in range(200):
        (tree / f"m{f:03d}.py").write_text("".join(f"# TODO {f}.{n}\n" for n in range(50)))
    tool, args, note = BIG_OUTPUTS[case]
    server.context_window = 16_000

    def model(body: dict) -> Text | ToolCalls:
        last = body["messages"][-1]
        if "[pleat: context compaction" in str(last["content"]):
            return Text("<topics>big output</topics><summary>looked at it</summary>")
        if last["role"] == "tool":
            return Text("seen: " + ("cut" if note in str(last["content"]) else "whole"))
        return ToolCalls([(tool, args)])

    server.fallback = model
    assert (workspace / "big.py").stat().st_size > 51_000
    done = pleat(
        "-p",
        case,
        "--yes",
        "--model",
        TEST_MODEL,
        "--api-base",
        server.base_url,
        "--api-key",
        TEST_API_KEY,
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "seen: cut"
    accepted = [r for r in server.requests if r.prompt_tokens <= 16_000]
    assert len(server.requests) - len(accepted) <= 1  # at most the refusal pleat learned from
