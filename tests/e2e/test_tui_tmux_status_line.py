"""The status line command, as a user has it: a script in config.toml's [status_line] that reads
Claude Code's JSON on stdin and prints a coloured line; pleat in a real terminal (tmux) shows that
line's first line, colours kept, its other escapes gone, and runs it again after a turn."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,  # a real terminal and a real process (litellm's import takes seconds)
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

ANSWER = "hello from the scripted server"
# The script keeps every input it gets (input-N.json) and prints a green line naming the run,
# an OSC 52 clipboard write and a screen erase inside it, and a second line. An input is
# renamed into place once whole: the test may look while the script is still writing it.
SCRIPT = """\
n=$(ls "$DIR" | grep -c '^input-')
n=$((n + 1))
cat > "$DIR/part-$n"
mv "$DIR/part-$n" "$DIR/input-$n.json"
model=$(sed 's/.*"id": "\\([^"]*\\)".*/\\1/' "$DIR/input-$n.json")
printf '\\033[1;32mSTATUS-RUN-%s\\033[0m \\033]52;c;cHduZWQ=\\007' "$n"
printf 'model=%s\\033[2J end\\nSECOND-LINE\\n' "$model"
"""


def inputs(directory: Path) -> list[dict[str, object]]:
    """Every JSON the script received, in order."""
    files = sorted(directory.glob("input-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    return [json.loads(f.read_text()) for f in files]


def test_status_line_script_gets_valid_json_and_its_line_is_on_screen(
    workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    script = tmp_path / "statusline.sh"
    script.write_text(SCRIPT)
    pleat_home.mkdir(parents=True, exist_ok=True)
    command = f"DIR={shlex.quote(str(runs))} sh {shlex.quote(str(script))}"
    (pleat_home / "config.toml").write_text(
        f'[status_line]\ntype = "command"\ncommand = {json.dumps(command)}\npadding = 1\n'
    )
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as server:
        server.fallback = lambda body: Text(ANSWER)
        with TmuxPleat(workspace, server) as tui:
            screen = tui.wait_for(lambda s: "STATUS-RUN-" in s, "the status line")
            line = next(x for x in screen.splitlines() if "STATUS-RUN-" in x)
            assert f"model={TEST_MODEL} end" in line  # the script read the JSON it was given
            assert "SECOND-LINE" not in screen  # the first line only
            assert "52;c" not in screen and "\\x1b" not in screen  # no escape, shown or raw
            assert tui.running()
            escaped = subprocess.run(
                ["tmux", "-L", tui.socket, "capture-pane", "-e", "-p", "-t", "pleat"],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            codes = re.search(r"((?:\x1b\[[0-9;]*m)+)STATUS-RUN-", escaped)
            assert codes is not None  # drawn in the script's colours: bold, green
            params = re.findall(r"\d+", codes.group(1))
            assert "1" in params and ("32" in params or "38" in params)
            first = inputs(runs)
            tui.send("hello there")
            tui.wait_for(lambda s: ANSWER in s, "the answer")
            tui.wait_for(
                lambda s: (
                    f"STATUS-RUN-{len(inputs(runs))}" in s
                    and any(i["context_window"]["current_usage"] for i in inputs(runs))
                ),
                "the line refreshed after the turn",
            )
    received = inputs(runs)
    start, last = first[0], received[-1]
    assert start["hook_event_name"] == "Status"
    assert start["model"] == {"id": TEST_MODEL, "display_name": TEST_MODEL}
    assert start["workspace"] == {"current_dir": str(workspace), "project_dir": str(workspace)}
    assert start["cwd"] == str(workspace)
    session_dir = pleat_home / "sessions" / str(start["session_id"])
    assert Path(str(start["transcript_path"])).parent == session_dir
    assert last["session_id"] == start["session_id"]
    window = last["context_window"]
    assert isinstance(window, dict) and window["total_input_tokens"] > 0
    assert window["current_usage"]["output_tokens"] > 0
