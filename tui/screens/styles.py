"""The screens' styles: tui/screens/screens.tcss, read after the first frame."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

# Every screen's rules: none of them is on the first frame, so the app's own stylesheet
# (tui/pleat.tcss) leaves them out and the first frame does not wait for their parsing. Each
# screen class names this file in CSS_PATH (Textual reads it when the screen is first shown);
# load_styles reads it earlier, in the idle moment after the first frame.
SCREENS_CSS = Path(__file__).resolve().with_name("screens.tcss")


def load_styles(app: App[object]) -> None:
    """Add the screens' rules to the app's stylesheet once, after the first frame: only they are
    parsed (the others are cached), where a screen shown first would make Textual parse every
    source again. No widget on screen matches them, so nothing is restyled."""
    stylesheet = app.stylesheet
    if not stylesheet.has_source(str(SCREENS_CSS)):
        stylesheet.read(SCREENS_CSS)
        stylesheet.parse()  # read() alone leaves the old rules map in use
