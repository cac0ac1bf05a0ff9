"""What images cost and how they are sent: token estimates, the bounded cache of encoded images,
the last rung dropping a prompt's images, cache breakpoints on content parts, the vision key."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

import agent.images.parts as image_parts
from agent.compaction.cheap_tier import shrink_tail
from agent.compaction.ledger import update_ledger
from agent.compaction.shrink import apply_shrink, plan_shrink
from agent.config import ConfigError, load_config
from agent.images.parts import Attachments
from agent.images.tokens import image_tokens
from agent.model.request_shape import EPHEMERAL, with_cache_breakpoints
from agent.model.tokens import message_tokens
from sessions.image_ref import ImageRef
from sessions.image_store import SessionImages
from sessions.messages import Message, ToolCall, provider_messages, tool_result, user
from tests.support import images
from tools.image_file import LoadedImage
from tools.image_format import sniff


def loaded(data: bytes, source: str = "shot.png") -> LoadedImage:
    info = sniff(data)
    assert info is not None
    return LoadedImage(data, info, source)


@pytest.mark.parametrize(
    ("size", "tokens", "why"),
    [
        ((3, 2), 255, "OpenAI's one tile (85 + 170) beats Anthropic's 1"),
        ((1000, 1000), 1334, "Anthropic's 1e6 / 750 beats OpenAI's 4 tiles (765)"),
        ((8000, 8000), 1534, "Anthropic scales it to 1.15 MP: 1,150,000 / 750, rounded up"),
        ((1568, 100), 765, "OpenAI's 4 × 1 tiles (never scaled up) beat Anthropic's 210"),
    ],
)
def test_image_tokens_take_the_larger_provider_estimate(
    size: tuple[int, int], tokens: int, why: str
) -> None:
    assert image_tokens(*size) == tokens, why


def test_a_message_counts_its_images(tmp_path: Path) -> None:
    store = SessionImages(tmp_path)
    image = store.keep(images.png(), media_type="image/png", width=1000, height=1000, source="a")
    plain, with_image = user("look"), user("look", (image,))
    assert message_tokens(with_image) - message_tokens(plain) >= 1334


def test_encoded_images_are_cached_within_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionImages(tmp_path / "images")
    attachments = Attachments(store, lambda: None)
    first = attachments.keep(loaded(images.png(seed=1)))
    second = attachments.keep(loaded(images.png(seed=2)))
    url = attachments.image_part(first)
    assert isinstance(url, dict)
    expected = "data:image/png;base64," + base64.b64encode(images.png(seed=1)).decode()
    assert url["image_url"]["url"] == expected
    store.path(first).unlink()
    assert attachments.image_part(first) == url  # from the cache: no disk read
    monkeypatch.setattr(image_parts, "MAX_CACHED_CHARS", len(expected) + 10)
    assert isinstance(attachments.image_part(second), dict)  # pushes the first one out
    assert attachments.image_part(first) == (
        "the session's copy of shot.png cannot be read: it is missing"
    )


def test_without_vision_the_model_gets_the_reason(tmp_path: Path) -> None:
    store = SessionImages(tmp_path / "images")
    attachments = Attachments(store, lambda: "m does not accept images")
    image = attachments.keep(loaded(images.gif()))
    assert attachments.refusal() == "m does not accept images"
    text = provider_messages([user("see", (image,))], attachments)[0]["content"][1]["text"]
    assert text == "[image shot.png 1×1 (GIF): not shown: m does not accept images]"
    assert Attachments(None, lambda: None).refusal() == "no session to keep images in"


def ref(width: int, height: int, seed: int) -> ImageRef:
    return ImageRef(f"{seed:064x}.png", "image/png", width, height, 100, f"s{seed}.png")


def test_the_last_rung_drops_old_images_first_and_keeps_the_words() -> None:
    call = ToolCall("c1", "read_file", "{}")
    history = [
        Message("system", "sys", id="m1"),
        Message("user", "old shot", id="m2", images=(ref(1000, 1000, 1),)),
        Message("assistant", None, tool_calls=(call,), id="m3"),
        tool_result(call, "a.png is a PNG image", (ref(1000, 1000, 2),)),
        Message("assistant", "seen", id="m5"),
        Message("user", "new shot", id="m6", images=(ref(1000, 1000, 3),)),
    ]
    history[3].id = "m4"
    plan = plan_shrink(history, message_tokens, excess=2_000)
    assert plan.indices == (1, 3)  # the two already seen; the new prompt's image stays
    shrunk = apply_shrink(history, plan, chunk=2, why="did not fit the context window")
    assert shrunk[1].images == () and shrunk[1].content is not None
    assert shrunk[1].content.startswith("old shot\n\n[pleat: the image attached here")
    assert "(s1.png 1000×1000) did not fit the context window; archived in chunk 2" in (
        shrunk[1].content
    )
    assert shrunk[3].images == () and "s2.png 1000×1000" in (shrunk[3].content or "")
    assert shrunk[5] is history[5]
    everything = plan_shrink(history, message_tokens, excess=10_000)
    assert everything.indices == (1, 3, 5)  # the newest too, when nothing else is enough


def test_a_breakpoint_on_content_parts_goes_on_the_last_part() -> None:
    parts = [{"type": "text", "text": "q"}, {"type": "image_url", "image_url": {"url": "data:"}}]
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": parts}]
    marked, _ = with_cache_breakpoints(messages, None)
    assert "cache_control" not in marked[1]
    assert marked[1]["content"][-1]["cache_control"] == EPHEMERAL
    assert "cache_control" not in parts[-1]  # the caller's messages are not changed


@pytest.mark.parametrize(
    ("text", "vision"),
    [("vision = true\n", "true"), ("vision = false\n", "false"), ('vision = "Auto"\n', "auto")],
)
def test_the_vision_key(pleat_home: Path, text: str, vision: str) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(text)
    config = load_config({"model": "m"}, environ={})
    assert config.vision == vision and config.model_settings().vision == vision
    assert load_config({}, environ={"PLEAT_VISION": "false"}).vision == "false"


def test_a_bad_vision_value_is_named(pleat_home: Path) -> None:
    with pytest.raises(ConfigError, match=r"PLEAT_VISION must be auto, true or false, got 'maybe'"):
        load_config({}, environ={"PLEAT_VISION": "maybe"})


def test_the_ledger_records_what_a_request_showed() -> None:
    history = [
        Message("system", "sys", id="m1"),
        Message("user", "what is in @ui/shot.png?", id="m2", images=(ref(80, 60, 1),)),
        Message("assistant", "a red square", id="m3"),
    ]
    ledger = update_ledger(None, history)
    assert ledger.requests == [("m2", "what is in @ui/shot.png? [attached: s1.png 80×60]")]


def test_a_superseded_read_of_an_image_leaves_its_image_in_the_archive() -> None:
    first, again = (
        ToolCall("c1", "read_file", '{"path": "a.png"}'),
        ToolCall("c2", "read_file", '{"path": "a.png"}'),
    )
    tail = [
        Message("assistant", None, tool_calls=(first,), id="m3"),
        tool_result(first, "a.png is a PNG image", (ref(80, 60, 1),)),
        Message("assistant", None, tool_calls=(again,), id="m5"),
        tool_result(again, "a.png is a PNG image", (ref(80, 60, 1),)),
    ]
    tail[1].id, tail[3].id = "m4", "m6"
    new_tail, shrunk = shrink_tail(tail, chunk=1, stale_chars=4000, fresh_results=0)
    assert [m.id for m in shrunk] == ["m4"] and shrunk[0].images == tail[1].images
    assert new_tail[1].images == () and "superseded" in (new_tail[1].content or "")
    assert new_tail[3].images == tail[3].images
