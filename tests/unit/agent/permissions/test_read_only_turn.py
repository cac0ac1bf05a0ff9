"""A turn that only reads (/review): in every mode, and in the sandbox, only reading tools run, and
afterwards (also after a failure) the mode and the decisions are as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.permissions.modes import MODES, Mode
from agent.permissions.policy import READ_ONLY_REFUSAL, Permissions
from tools.edit_file import EditFileTool
from tools.read_file import ReadFileTool
from tools.shell import RunCommandTool
from tools.write_file import WriteFileTool

READ, EDIT, WRITE, RUN = ReadFileTool(), EditFileTool(), WriteFileTool(), RunCommandTool()


@pytest.mark.parametrize("mode", MODES)
def test_only_reading_tools_run_in_every_mode_then_the_mode_returns(
    mode: Mode, tmp_path: Path
) -> None:
    permissions = Permissions(mode)
    permissions.sandboxed = True  # a sandboxed command would otherwise run without asking
    before = [
        permissions.decide(tool, {"path": "a", "command": "ls"}, tmp_path) for tool in (WRITE, RUN)
    ]
    with permissions.reading_only():
        assert permissions.decide(READ, {"path": "a.py"}, tmp_path).action == "run"
        for tool in (EDIT, WRITE, RUN):
            verdict = permissions.decide(tool, {"path": "a", "command": "ls"}, tmp_path)
            assert verdict.action == "refuse"
            assert verdict.reason == READ_ONLY_REFUSAL.format(tool=tool.name)
        assert permissions.mode == mode
    after = [
        permissions.decide(tool, {"path": "a", "command": "ls"}, tmp_path) for tool in (WRITE, RUN)
    ]
    assert after == before and not permissions.read_only_turn


def test_the_turn_ends_reading_only_even_when_it_fails(tmp_path: Path) -> None:
    permissions = Permissions("full-auto")
    with pytest.raises(RuntimeError), permissions.reading_only():
        raise RuntimeError("the turn broke")
    assert permissions.decide(WRITE, {"path": "a"}, tmp_path).action == "run"
    with permissions.reading_only(False):  # an ordinary turn
        assert permissions.decide(WRITE, {"path": "a"}, tmp_path).action == "run"
