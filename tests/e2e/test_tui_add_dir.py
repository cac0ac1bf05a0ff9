"""/add-dir in the real app (Textual's pilot) against the scripted server: a directory added
mid-session is told to the model with the next prompt and written by its file tools; a bad one
is named and nothing changes; add_dirs' bad entries are said at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import command, exchange, make_app, started
from tui.widgets.notice import Notice

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def notices(app: object, kind: str | None = None) -> list[str]:
    return [n.text for n in app.query(Notice) if kind is None or n.kind == kind]  # type: ignore[attr-defined]


async def test_add_dir_lets_the_model_write_there_from_the_next_prompt(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    other = (tmp_path / "other").resolve()
    other.mkdir()
    server.push(
        ToolCalls([("write_file", {"path": str(other / "x.txt"), "content": "from tui\n"})]),
        Text("written"),
    )
    app = make_app(server, workspace, approve_everything=True, add_dirs=("../missing",))
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert any("'../missing': not found; not added" in n for n in notices(app, "error"))
        await command(pilot, app, "/add-dir")
        assert "No directory outside the workspace is added" in notices(app)[-1]
        await command(pilot, app, f"/add-dir {tmp_path / 'nowhere'}")
        assert notices(app, "error")[-1].endswith("nowhere': not found; not added")
        await command(pilot, app, "/add-dir ../other")  # taken from the workspace
        assert notices(app)[-1].startswith(f"added {other} for this session")
        await exchange(pilot, app, "write it")
        await command(pilot, app, "/add-dir")
        assert notices(app)[-1] == f"added directories:\n{other}"
    assert (other / "x.txt").read_text() == "from tui\n"
    told = server.requests[0].messages[-1]["content"]
    assert told.startswith("write it\n\n[pleat: added directories]") and f"- {other}" in told
    result = [m for m in server.requests[1].messages if m["role"] == "tool"]
    assert result[0]["content"] == f"created {other}/x.txt (1 lines, 9 bytes)"
