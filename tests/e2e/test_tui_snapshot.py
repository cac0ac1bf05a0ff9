"""What the screens look like (SVG snapshots): chat, tool block, approval, chunks, context."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from agent.slash.context_report import ContextGauge, ContextReport
from sessions.usage import Usage, UsageTally
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, make_app, model, small_policy, wait_for, work_finished
from tui.app import PleatApp
from tui.screens.approval import ApprovalScreen
from tui.screens.chunks import ChunkBrowserScreen
from tui.screens.context import ContextScreen
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# A terminal of this size shows a whole exchange with room to spare; fixed so the snapshot does
# not depend on the machine running the tests.
TERMINAL_SIZE = (100, 30)
REPLY = "Sure. `main()` prints a greeting:\n\n```python\nprint('hello')\n```"
# A context breakdown with round numbers, so the picture does not depend on the platform line
# in the system prompt.
REPORT = ContextReport(
    system_tokens=180,
    tools_tokens=1_591,
    summary_tokens=420,
    message_tokens=6_250,
    messages=37,
    counted=8_441,
    size=8_530,
    window=16_000,
    usable=12_000,
    reserved_output=4_000,
    trigger=9_600,
    suspended_below=None,
    chunks=2,
    usage=UsageTally(
        calls=41,
        compression_calls=2,
        prompt_tokens=301_250,
        cached_tokens=262_400,
        cache_creation_tokens=31_900,
        completion_tokens=9_870,
        cost=0.4163,
    ),
)


async def type_prompt(pilot: Pilot, app: PleatApp, text: str) -> None:
    prompt = app.query_one(PromptInput)
    prompt.cursor_blink = False  # a blinking cursor is on or off depending on timing
    prompt.value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.turn is not None, "the work to start")


async def pin_status(pilot: Pilot, app: PleatApp) -> None:
    """The workspace is a fresh temporary directory, the session id is new on every run and the
    token counts include the machine's platform line: all pinned (after the warm-up, which
    would otherwise set the meter again)."""
    await wait_for(pilot, lambda: app.warm, "the warm-up")
    status = app.query_one(StatusBar)
    status.workspace = "~/project"
    status.session = "20250101-120000-abcdef"
    status.usage = Usage(prompt_tokens=1234, cached_tokens=1024)
    status.context = ContextGauge(used=2_100, window=4_000, trigger=2_400)


def test_main_screen_after_one_exchange(
    snap_compare, server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model([Text(REPLY)])
    app = make_app(server, workspace)

    async def exchange(pilot: Pilot) -> None:
        await type_prompt(pilot, app, "what does main() do?")
        await wait_for(pilot, lambda: work_finished(app), "the reply")
        await pin_status(pilot, app)

    assert snap_compare(app, terminal_size=TERMINAL_SIZE, run_before=exchange)


def test_tool_block_with_a_diff(snap_compare, server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model(
        [ToolCalls([("write_file", {"path": "hello.py", "content": "print('hi')\n"})]), Text("ok")]
    )
    app = make_app(server, workspace, approve_everything=True)

    async def write(pilot: Pilot) -> None:
        await type_prompt(pilot, app, "write hello.py")
        await wait_for(pilot, lambda: work_finished(app), "the turn")
        await pin_status(pilot, app)

    assert snap_compare(app, terminal_size=TERMINAL_SIZE, run_before=write)


def test_permission_modal(snap_compare, server: ScriptedServer, workspace: Path) -> None:
    (workspace / "hello.py").write_text("print('hello')\n")
    server.fallback = model(
        [
            ToolCalls(
                [
                    (
                        "edit_file",
                        {"path": "hello.py", "old_string": "hello", "new_string": "hi there"},
                    )
                ]
            ),
            Text("ok"),
        ]
    )
    app = make_app(server, workspace)

    async def ask(pilot: Pilot) -> None:
        await type_prompt(pilot, app, "change the greeting")
        await asked(pilot, app, ApprovalScreen, "the approval")
        await pin_status(pilot, app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=TERMINAL_SIZE, run_before=ask)


def test_chunk_browser(snap_compare, server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("The cache key is the file hash."), Text("ok"), Text("ok")])
    app = make_app(server, workspace, compaction=small_policy())

    async def browse(pilot: Pilot) -> None:
        for text in ("how is the cache keyed?", "and the expiry?", "thanks"):
            await type_prompt(pilot, app, text)
            await wait_for(pilot, lambda: work_finished(app), "the reply")
        await type_prompt(pilot, app, "/compact")
        await wait_for(pilot, lambda: work_finished(app) and app.work_kind == "compact", "fold")
        app.query_one(PromptInput).value = "/chunks"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "browser")
        screen = app.screen
        assert isinstance(screen, ChunkBrowserScreen)
        await wait_for(pilot, lambda: screen.current == 1, "the chunk")
        screen.query_one("#chunks-title").update("Chunks of session 20250101-120000-abcdef")
        await pilot.pause()

    assert snap_compare(app, terminal_size=TERMINAL_SIZE, run_before=browse)


def test_context_view(snap_compare, server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace)

    async def show(pilot: Pilot) -> None:
        await pin_status(pilot, app)
        app.query_one(PromptInput).cursor_blink = False
        await app.push_screen(ContextScreen(REPORT))
        await pilot.pause()

    assert snap_compare(app, terminal_size=TERMINAL_SIZE, run_before=show)
