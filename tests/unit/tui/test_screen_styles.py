"""The screens' rules live in tui/screens/screens.tcss, off the first frame's stylesheet: every
screen names that file (Textual reads it when the screen is first shown), and the app's own
stylesheet holds none of their rules."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

from textual.screen import Screen

import tui.screens
from tui.screens.styles import SCREENS_CSS

APP_CSS = SCREENS_CSS.parent.parent / "pleat.tcss"


def screen_classes() -> list[type[Screen[object]]]:
    found: list[type[Screen[object]]] = []
    for module_info in pkgutil.iter_modules(tui.screens.__path__):
        module = importlib.import_module(f"tui.screens.{module_info.name}")
        for _, value in inspect.getmembers(module, inspect.isclass):  # styles.py: none
            if issubclass(value, Screen) and value.__module__ == module.__name__:
                found.append(value)
    return found


def test_every_screen_names_the_screens_stylesheet() -> None:
    classes = screen_classes()
    assert len(classes) >= 10  # the package's screens were found
    unstyled = [cls.__name__ for cls in classes if cls.CSS_PATH != SCREENS_CSS]
    assert unstyled == []


def test_the_apps_stylesheet_leaves_the_screens_rules_out() -> None:
    names = {cls.__name__ for cls in screen_classes()}
    selectors = re.findall(r"^([A-Za-z#][^{\n]*)\{", APP_CSS.read_text(encoding="utf-8"), re.M)
    named = {word for selector in selectors for word in re.findall(r"[\w-]+", selector)}
    assert named & names == set()
    assert SCREENS_CSS.is_file() and "ApprovalScreen" in SCREENS_CSS.read_text(encoding="utf-8")
