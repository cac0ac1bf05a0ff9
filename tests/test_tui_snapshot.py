"""What the chat screen looks like after one scripted exchange (an SVG snapshot)."""

from __future__ import annotations

from pathlib import Path

from conftest import TEST_API_KEY, TEST_MODEL
from scripted_server import ScriptedServer, Text
from textual.pilot import Pilot

from agent.config import Config
from agent.events import Usage
from tui.app import PleatApp
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar

# A terminal of this size shows the whole exchange with room to spare; fixed so the
# snapshot does not depend on the machine running the tests.
TERMINAL_SIZE = (100, 30)
# Pilot pauses of this many seconds between checks, at most MAX_POLLS of them (30 s: room for
# litellm's first import on a slow machine).
POLL_SECONDS = 0.05
MAX_POLLS = 600
REPLY = "Sure. `main()` prints a greeting:\n\n```python\nprint('hello')\n```"


def test_main_screen_after_one_exchange(
    snap_compare, server: ScriptedServer, workspace: Path
) -> None:
    server.push(Text(REPLY))
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, max_retries=0)
    app = PleatApp(config, workspace)

    async def exchange(pilot: Pilot) -> None:
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False  # a blinking cursor is on or off depending on timing
        prompt.value = "what does main() do?"
        await pilot.press("enter")
        for _ in range(MAX_POLLS):
            if app.turn is not None and app.turn.is_finished:
                break
            await pilot.pause(POLL_SECONDS)
        assert app.turn is not None and app.turn.is_finished, "no reply"
        # The workspace is a fresh temporary directory and the prompt's token count includes
        # the machine's platform line: both are pinned so the picture is the same everywhere.
        status = app.query_one(StatusBar)
        status.workspace = "~/project"
        status.usage = Usage(prompt_tokens=1234, cached_tokens=1024)

    assert snap_compare(app, terminal_size=TERMINAL_SIZE, run_before=exchange)
