"""The resume picker's rows and filter: sizes as people read them, every word of the filter in
the title, the prompts or the id, a damaged session matched by "damaged", escapes made visible."""

from __future__ import annotations

from sessions.store import SessionInfo
from tui.screens.sessions import human_size, matches, session_label


def row(**fields: object) -> SessionInfo:
    info = SessionInfo("20260101-000000-abc123", "/ws", "t", 0.0, 4, 0, "fix the parser")
    for name, value in fields.items():
        setattr(info, name, value)
    return info


def test_sizes_read_as_people_read_them() -> None:
    assert [human_size(n) for n in (812, 4300, 31 * 2**20)] == ["812 B", "4.2 KB", "31 MB"]


def test_every_word_must_be_in_the_title_prompts_or_id() -> None:
    named = row(name="Parser Work", prompts="fix the parser\nthen the lexer")
    assert matches(named, ["parser", "lexer"]) and matches(named, ["abc123"])
    assert not matches(named, ["parser", "tokenizer"])
    assert matches(row(damaged="its journal is empty"), ["damaged"])
    assert not matches(row(damaged="its journal is empty"), ["parser"])


def test_a_title_with_escapes_is_shown_visible() -> None:
    label = session_label(row(name="a\x1b]52;c;aGk=\x07b", turns=1, size=10), None)
    assert "\x1b" not in label and "\\x1b" in label and "1 turn ·" in label
