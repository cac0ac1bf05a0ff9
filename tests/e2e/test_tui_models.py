"""/model in the real app: the picker (provider keys and a local server listed, the current model
marked, a filter, Enter switches, Ctrl+S saves to config.toml), the first model found when none
is configured, and a switch to a smaller window folding first."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from agent.config import Config
from agent.conversation.model_switch import needs_room
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import (
    command,
    exchange,
    is_compression,
    make_app,
    model,
    started,
    summary_reply,
    wait_for,
    work_finished,
)
from tui.app import PleatApp
from tui.screens.model_picker import ModelPickerScreen
from tui.slash_commands import BY_NAME
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar

# Slow (the whole TUI under Textual's pilot, and litellm's model lists): left out of the fast set.
pytestmark = pytest.mark.slow

OTHER_MODEL = "other-model"
# A provider key the picker lists a provider for (never sent anywhere: no model of it is called).
ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
USER_CONFIG = '# my settings\nthinking = "off"  # for now\n\n[compaction]\nthreshold = 0.75\n'


@pytest.fixture
def two_models() -> Iterator[ScriptedServer]:
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL, OTHER_MODEL}) as server:
        server.fallback = model([Text("from the first"), Text("from the second")])
        yield server


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


def notices(app: PleatApp, kind: str | None = None) -> list[str]:
    return [n.text for n in app.query(Notice) if kind is None or n.kind == kind]


def picker_lines(app: PleatApp) -> list[str]:
    listing = app.screen.query_one("#model-list", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def open_picker(pilot: Pilot[None], app: PleatApp) -> ModelPickerScreen:
    await command(pilot, app, "/model")
    await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the picker")
    screen = app.screen
    assert isinstance(screen, ModelPickerScreen)
    await wait_for(pilot, lambda: screen.loaded, "the models found")
    await pilot.pause()
    return screen


async def test_the_picker_lists_filters_and_switches(
    two_models: ScriptedServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    app = make_app(two_models, workspace, local_model_servers=(two_models.base_url,))
    async with app.run_test(size=(120, 50)) as pilot:
        await exchange(pilot, app, "first")
        await open_picker(pilot, app)
        lines = picker_lines(app)
        assert lines[0] == "── anthropic (ANTHROPIC_API_KEY is set)"
        assert lines[1] == "  anthropic/claude-sonnet-4-5"  # the preferred one first
        server_heading = lines.index(f"── OpenAI-compatible at {two_models.base_url}")
        assert lines[server_heading + 1 :] == [
            f"  openai/{OTHER_MODEL}",
            f"● openai/{TEST_MODEL}",  # the current one, marked
        ]
        for key in "other":
            await pilot.press(key)
        await pilot.pause()
        assert picker_lines(app) == [lines[server_heading], f"  openai/{OTHER_MODEL}"]
        await pilot.press("enter")
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.model == f"openai/{OTHER_MODEL}", "the switch")
        await wait_for(pilot, lambda: work_finished(app), "the switch to end")
        await exchange(pilot, app, "second")
    assert [r.body["model"] for r in two_models.requests] == [TEST_MODEL, OTHER_MODEL]
    assert not (workspace / "config.toml").exists()  # Enter alone saves nothing


async def test_ctrl_s_switches_and_saves_the_default(
    two_models: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    config_file = write_config(pleat_home, USER_CONFIG)
    app = make_app(two_models, workspace, local_model_servers=(two_models.base_url,))
    async with app.run_test(size=(120, 50)) as pilot:
        await started(pilot, app)
        await open_picker(pilot, app)
        await pilot.press("up")  # from the current (last) model to the other one
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("saved model" in n for n in notices(app)), "the save")
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.model == f"openai/{OTHER_MODEL}", "the switch")
    saved = config_file.read_text()
    assert saved.startswith('# my settings\nthinking = "off"  # for now\n')
    assert saved.endswith("\n[compaction]\nthreshold = 0.75\n")
    data = tomllib.loads(saved)
    assert data["model"] == f"openai/{OTHER_MODEL}" and data["api_base"] == two_models.base_url
    assert oct(config_file.stat().st_mode & 0o777) == "0o600"


async def test_a_config_that_does_not_parse_is_not_saved_over(
    two_models: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    config_file = write_config(pleat_home, "model = \n# edited by hand, half done\n")
    app = make_app(two_models, workspace, local_model_servers=(two_models.base_url,))
    async with app.run_test(size=(120, 50)) as pilot:
        await started(pilot, app)
        await open_picker(pilot, app)
        await pilot.press("up")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: notices(app, "error"), "the refusal")
        error = notices(app, "error")[0]
        assert error.startswith("cannot save the default model:")
        assert "not valid TOML" in error and "not changed" in error and "\n" not in error
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.model == f"openai/{OTHER_MODEL}", "the switch")
    assert config_file.read_text() == "model = \n# edited by hand, half done\n"


async def test_without_a_model_the_first_found_is_used_and_said(
    two_models: ScriptedServer, workspace: Path
) -> None:
    config = Config(api_key=TEST_API_KEY, max_retries=0, local_model_servers=(two_models.base_url,))
    app = PleatApp(config, workspace)
    async with app.run_test(size=(120, 50)) as pilot:
        await started(pilot, app)
        assert app.agent is not None
        assert app.query_one(StatusBar).model == f"openai/{OTHER_MODEL}"  # the server's first
        said = notices(app)[-1]
        assert said.startswith(f"no model configured: using openai/{OTHER_MODEL} (served by")
        assert "Ctrl+S" in said
        await exchange(pilot, app, "hi")
    assert two_models.listings >= 1
    assert [r.body["model"] for r in two_models.requests] == [OTHER_MODEL]


async def test_without_a_model_and_nothing_found_the_picker_says_so(workspace: Path) -> None:
    app = PleatApp(Config(local_model_servers=()), workspace)
    async with app.run_test(size=(120, 50)) as pilot:
        await started(pilot, app)
        assert app.agent is None
        assert "found none to use either" in app.query_one(".help").source
        screen = await open_picker(pilot, app)
        state = str(screen.query_one("#model-picker-state").render())
        assert state.startswith("no models found")
        await pilot.press("enter")  # nothing to choose: it stays open
        assert app.screen is screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.screen_stack[0], "the picker closed")
        assert app.agent is None


async def test_a_switch_to_a_smaller_window_folds_first(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.fallback = model(
            [Text("word " * 2_000)] * 3 + [Text("from the small model")],
            lambda _: summary_reply("three long answers"),
        )
        app = make_app(server, workspace)
        async with app.run_test(size=(120, 50)) as pilot:
            for n in range(3):
                await exchange(pilot, app, f"question {n}")
            assert not app.query(CompactionMarker)
            await command(pilot, app, "/model openai/gpt-4")  # 8,192 tokens: litellm knows
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.model == "openai/gpt-4", "the switch")
            await wait_for(pilot, lambda: work_finished(app), "the switch to end")
            markers = app.query(CompactionMarker)
            assert len(markers) == 1 and markers.first().state == "done"
            assert app.agent is not None and not needs_room(app.agent)
            assert "model: openai/gpt-4 (from the next request on)" in notices(app)
            await exchange(pilot, app, "and now?")
        compressions = [r.body["model"] for r in server.requests if is_compression(r.body)]
        assert compressions == [TEST_MODEL]  # folded by the model being left
        assert server.requests[-1].body["model"] == "gpt-4"


async def test_a_switch_keeps_the_mode_the_queue_and_the_spending_count(
    two_models: ScriptedServer, workspace: Path
) -> None:
    """The agent a switch builds reads the app's permissions (Shift+Tab's mode, "always"
    rules), takes the prompts queued meanwhile, and goes on counting the run's spending."""
    app = make_app(two_models, workspace, max_budget_usd=5.0)
    async with app.run_test(size=(120, 50)) as pilot:
        await exchange(pilot, app, "first")
        before = app.agent
        assert before is not None
        before.cap.start = -1.25  # as if this run had already spent $1.25 before the switch
        await pilot.press("shift+tab")  # ask -> accept-edits
        await command(pilot, app, f"/model {OTHER_MODEL}")
        await wait_for(pilot, lambda: app.agent is not before, "the switch")
        await wait_for(pilot, lambda: work_finished(app), "the switch to end")
        after = app.agent
        assert after is not None
        assert after.permissions is app.approvals.permissions
        assert after.permissions.mode == "accept-edits"
        assert after.queued is before.queued
        assert after.cap.start == -1.25


async def test_a_prompt_sent_during_a_switch_waits_for_it(
    two_models: ScriptedServer, workspace: Path
) -> None:
    """Review finding 6: a prompt sent while /model NAME runs is queued and goes to the new
    model once the switch is done; it never starts a turn the switch then cancels."""
    app = make_app(two_models, workspace)
    async with app.run_test(size=(120, 50)) as pilot:
        await started(pilot, app)
        app.run_slash(BY_NAME["model"], OTHER_MODEL)
        assert app.busy  # from the moment the command starts
        app.query_one(PromptInput).value = "after the switch"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(two_models.requests) == 1, "the queued prompt's turn")
        await wait_for(pilot, lambda: work_finished(app), "the turn to end")
        assert not [n for n in notices(app) if "interrupted" in n]
    assert [r.body["model"] for r in two_models.requests] == [OTHER_MODEL]
    assert two_models.requests[0].messages[-1]["content"] == "after the switch"
