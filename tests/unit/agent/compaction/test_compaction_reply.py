"""The compression reply parser: tags in any order, missing, repeated, malformed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.compaction.reply import ReplyError, parse_reply


def test_well_formed() -> None:
    reply = parse_reply(
        "<topics>auth, tests</topics>\n<continues_previous>true</continues_previous>\n"
        "<summary>\n## Task\nfix login\n</summary>"
    )
    assert reply.topics == "auth, tests"
    assert reply.continues_previous is True
    assert reply.summary == "## Task\nfix login"


def test_any_order_and_case() -> None:
    reply = parse_reply(
        "<SUMMARY>body</SUMMARY> <Continues_Previous> TRUE </Continues_Previous><topics>x</topics>"
    )
    assert (reply.summary, reply.continues_previous, reply.topics) == ("body", True, "x")


def test_missing_continues_previous_is_false() -> None:
    assert parse_reply("<topics>a</topics><summary>s</summary>").continues_previous is False


@pytest.mark.parametrize("value", ["yes", "1", "", "maybe", "true-ish"])
def test_only_an_explicit_true_continues(value: str) -> None:
    text = f"<continues_previous>{value}</continues_previous><summary>s</summary>"
    assert parse_reply(text).continues_previous is False


def test_missing_topics_is_empty() -> None:
    assert parse_reply("<summary>s</summary>").topics == ""


def test_repeated_tags_take_the_last() -> None:
    reply = parse_reply(
        "<summary>draft</summary><topics>old</topics> then <topics>new</topics>"
        "<summary>final</summary>"
    )
    assert (reply.summary, reply.topics) == ("final", "new")


def test_summary_cut_off_before_its_closing_tag_is_kept() -> None:
    assert (
        parse_reply("<topics>t</topics><summary>\n## Task\nhalf a sent").summary
        == "## Task\nhalf a sent"
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Sure! Here is a summary of our conversation.",
        "<topics>a</topics><continues_previous>false</continues_previous>",
        "<summary>   </summary>",
        "<summary></summary>",
        "<sumary>typo</sumary>",
    ],
)
def test_no_summary_is_refused(text: str) -> None:
    with pytest.raises(ReplyError):
        parse_reply(text)


def test_topics_become_one_bounded_line() -> None:
    reply = parse_reply("<topics>a,\n b,\n" + "c" * 500 + "</topics><summary>s</summary>")
    assert "\n" not in reply.topics and len(reply.topics) <= 200


@given(st.text())
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        reply = parse_reply(text)
    except ReplyError:
        return
    assert reply.summary.strip()
