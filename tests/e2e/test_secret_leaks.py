"""Keys pleat was started with cannot be read back by the commands it runs, and every one of
them, whatever its source, is kept off disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.process_secrets import secret_values
from tests.support.constants import TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (runs pleat as a process): left out of the fast set.
pytestmark = pytest.mark.slow

# The provider key, given on the command line (--api-key): shaped like no known token format,
# so only the known-value redaction can catch it.
FLAG_KEY = "flag-key-5e2b9c71d0a34f68"
# A provider key given only through the provider's variable.
ENV_KEY = "env-key-7a1f3c90b2d64e85"
# Another secret-named variable, and a variable holding it under an innocent name.
DB_PASSWORD = "db-pass-3c8e0f12a9b7d654"
DATABASE_URL = f"postgres://app:{DB_PASSWORD}@db/app"
# What the scripted model runs: pleat's own environment and command line through /proc, then
# the command's own environment.
SNOOP = "tr '\\0' '\\n' < /proc/$PPID/environ; echo; tr '\\0' ' ' < /proc/$PPID/cmdline; echo; env"


def snooping_model(results: list[str]) -> Any:
    def reply(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if last["role"] == "tool":
            results.append(str(last["content"]))
            return Text("done")
        return ToolCalls([("run_command", {"command": SNOOP})])

    return reply


def test_commands_cannot_read_the_keys_back_and_no_file_holds_them(
    workspace: Path, pleat_home: Path
) -> None:
    results: list[str] = []
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ |= {"OPENAI_API_KEY": ENV_KEY, "DB_PASSWORD": DB_PASSWORD, "DATABASE_URL": DATABASE_URL}
    with ScriptedServer(
        api_key=FLAG_KEY, models={TEST_MODEL}, fallback=snooping_model(results)
    ) as server:
        done = subprocess.run(
            [
                sys.executable, "-m", "tui.main",
                "-p", f"my keys are {ENV_KEY} and {FLAG_KEY}; look around",
                "--model", TEST_MODEL,
                "--api-base", server.base_url,
                "--api-key", FLAG_KEY,
                "--cwd", str(workspace),
                "--yes",
                # Without the sandbox: in it a command cannot read pleat's /proc at all (another
                # user namespace); this is the defence that holds without one.
                "--sandbox", "off",
            ],
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(results) == 1
    output = results[0]
    assert "--api-key" in output and "PATH=" in output  # the command did read pleat's /proc
    for secret in (FLAG_KEY, ENV_KEY, DB_PASSWORD):
        assert secret not in output, secret
    # In pleat's /proc environ (masked), not in the command's own: it holds a secret.
    assert output.count("DATABASE_URL=") == 1
    # The user pasted both keys into the prompt: the journal holds neither.
    for path in pleat_home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert FLAG_KEY.encode() not in data and ENV_KEY.encode() not in data, path


def test_secret_values_come_from_secret_names_and_flags() -> None:
    environ = {
        "OPENAI_API_KEY": ENV_KEY,
        "HOME": "/home/someone",
        "GITHUB_TOKEN": "short",
        "SSH_KEY_PATH": "/home/someone/.ssh/id_ed25519",  # a path, not a key
    }
    argv = ["pleat", "--api-key", FLAG_KEY, "--api-key=" + DB_PASSWORD, "-p", "hi"]
    assert set(secret_values(environ, argv)) == {ENV_KEY, FLAG_KEY, DB_PASSWORD}


def test_blanking_in_a_child_process_changes_what_proc_shows() -> None:
    """In a fresh interpreter: the key is in its /proc environ, then it is not; Python's own
    copy still holds it."""
    script = (
        "import os, sys\n"
        "from agent.process_secrets import hide_from_children\n"
        "before = open('/proc/self/environ', 'rb').read()\n"
        f"count = hide_from_children([{ENV_KEY!r}])\n"
        "after = open('/proc/self/environ', 'rb').read()\n"
        f"print(count, {ENV_KEY!r}.encode() in before, {ENV_KEY!r}.encode() in after,"
        " os.environ['SOME_API_KEY'] == " + repr(ENV_KEY) + ", len(before) == len(after))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "SOME_API_KEY": ENV_KEY},
        capture_output=True,
        text=True,
        timeout=60,
    )
    count, *facts = done.stdout.split()
    assert int(count) >= 1 and facts == ["True", "False", "True", "True"], done.stderr
