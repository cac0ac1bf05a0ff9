"""Code blocks highlighted when first drawn: the same cells as Textual's, highlighted only once
drawn, right again after the streamed block grew or the theme changed."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from tests.support.screen_cells import MarkdownApp, markdown_cells, screen_cells
from tui.widgets.code_fence import LAZY_FENCE_BLOCKS, CodeLines, LazyFence

# Slow (Textual apps under the pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

FENCES = {
    "python": "Intro.\n\n```python\ndef load(path):\n    return parse(path.read_text())\n```\n\n"
    "After.",
    "no language, tabs": "```\n\tindented\twith tabs\nplain line\n```\n",
    "wider than the screen": "```sh\n" + "echo " + "x" * 120 + "\n```\n",
    "indented code block": "Text.\n\n    four spaces\n    of code\n\nMore.",
    "in a list": "- item with code:\n\n  ```python\n  x = 1\n  ```\n- plain\n",
    "unknown language": "```nosuchlanguage\nsome <code> here\n```\n",
}


class LazyMarkdown(Markdown):
    BLOCKS = {**Markdown.BLOCKS, **LAZY_FENCE_BLOCKS}  # noqa: RUF012  (as Markdown.BLOCKS)


@pytest.mark.parametrize("name", FENCES)
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("size", [(36, 20), (90, 20)])
async def test_code_blocks_draw_like_textuals(name: str, theme: str, size: tuple[int, int]) -> None:
    text = FENCES[name]
    lazy = await markdown_cells(LazyMarkdown(text), theme, size)
    assert lazy == await markdown_cells(Markdown(text), theme, size)


async def test_a_block_out_of_view_is_not_highlighted_until_drawn() -> None:
    text = "\n\n".join(f"```python\nx_{n} = {n}\n```" for n in range(30))
    app = MarkdownApp(LazyMarkdown(text), "textual-dark")
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        fences = list(app.query(LazyFence))
        assert len(fences) == 30
        assert fences[0]._lit is not None  # on screen
        assert fences[-1]._lit is None  # far below: laid out, never drawn
        app.query_one(VerticalScroll).scroll_end(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert fences[-1]._lit is not None


async def test_a_growing_block_and_a_new_theme_are_drawn_anew() -> None:
    grown = "```python\ndef f():\n    return 1\n```\n"
    markdown = LazyMarkdown()
    app = MarkdownApp(markdown, "textual-dark")
    async with app.run_test(size=(60, 12)) as pilot:
        await markdown.append("```python\ndef f():\n")
        await pilot.pause()
        await markdown.append("    return 1\n```\n")
        await pilot.pause()
        (fence,) = app.query(LazyFence)
        assert fence.code == "def f():\n    return 1"
        assert app.query_one(CodeLines).size.height == 2  # both lines (the content, no padding)
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        streamed_light = screen_cells(app)
    assert streamed_light == await markdown_cells(Markdown(grown), "textual-light", (60, 12))
