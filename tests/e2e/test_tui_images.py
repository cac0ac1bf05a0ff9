"""Images in the TUI: `@shot.png` is shown as a line under the prompt and reaches the model as an
image; a model without vision gets a notice; a resumed session shows the line again; the chunk
browser shows a folded image's reference."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from textual.app import App

from sessions.archive import ChunkArchive
from sessions.image_store import SessionImages
from sessions.messages import Message
from tests.support import images
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import exchange, make_app, started, wait_for
from tui.screens.chunks import ChunkBrowserScreen
from tui.widgets.notice import Notice
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set.
pytestmark = pytest.mark.slow

SHOT = images.png(80, 60, seed=3)


def shown(widget: UserMessage) -> str:
    return str(widget.render())


async def test_an_at_image_is_shown_and_sent(server: ScriptedServer, workspace: Path) -> None:
    (workspace / "shot\x1b[2J.png").write_bytes(SHOT)  # a hostile name: shown, never obeyed
    server.push(Text("a red square"), Text("still"))
    app = make_app(server, workspace, vision="true")
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, '@"shot\x1b[2J.png" what is it?')
        message = app.query_one(UserMessage)
        assert shown(message).endswith("[image: shot\\x1b[2J.png 80×60]")
        assert not app.query(Notice)
        session = app.session
        assert session is not None
        session_id = session.id
    part = server.requests[0].messages[-1]["content"][-1]
    assert part["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(SHOT).decode()
    resumed = make_app(server, workspace, vision="true", resume=session_id)
    async with resumed.run_test() as pilot:
        await started(pilot, resumed)
        await wait_for(pilot, lambda: resumed.query(UserMessage), "the resumed prompt")
        assert shown(resumed.query_one(UserMessage)).endswith("[image: shot\\x1b[2J.png 80×60]")


async def test_a_model_without_vision_gets_a_notice(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "shot.png").write_bytes(SHOT)
    server.push(Text("no idea"))
    app = make_app(server, workspace, vision="false")
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "what is in @shot.png?")
        notices = [str(n.render()) for n in app.query(Notice)]
    assert any("the model will not see the images: images are turned off" in n for n in notices)
    content = server.requests[0].messages[-1]["content"]
    assert all(part["type"] == "text" for part in content)


class Browser(App[None]):
    """Just the chunk browser, over the given archive."""

    def __init__(self, archive: ChunkArchive) -> None:
        super().__init__()
        self.archive = archive

    def on_mount(self) -> None:
        self.push_screen(ChunkBrowserScreen(self.archive))


async def test_the_chunk_browser_shows_a_folded_image(tmp_path: Path) -> None:
    store = SessionImages(tmp_path / "images")
    image = store.keep(SHOT, media_type="image/png", width=80, height=60, source="ui/shot.png")
    archive = ChunkArchive(tmp_path / "chunks", "s1")
    archive.images = store
    archive.write_chunk(
        [Message("user", "what is in it?", id="m2", images=(image,))], topics="shot", tokens=1
    )
    app = Browser(archive)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "the browser")
        browser = app.screen
        assert isinstance(browser, ChunkBrowserScreen)
        await wait_for(pilot, lambda: "shot.png" in browser.viewer.source, "the chunk")
        assert f"![shot.png 80×60](images/{image.file})" in browser.viewer.source
    assert (tmp_path / "chunks" / "images" / image.file).read_bytes() == SHOT
