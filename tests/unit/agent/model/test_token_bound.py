"""The ledger's tokenizer-free bound and its waiting report: size_at_most is never below size,
a report's calibration is the one counting it at once would give, and neither loads the
tokenizer (a `pleat -p` run that ends after its reply never does)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agent.model.tokens as tokens
from agent.model.tokens import (
    MAX_RATIO,
    TokenLedger,
    count_text,
    message_tokens,
    payload_tokens,
    utf8_bytes,
)
from sessions.image_ref import ImageRef
from sessions.messages import Message, ToolCall

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file: «path», 行 numbers, emoji 🙂",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
# Texts the tokenizer splits in unusual ways: scripts of several bytes a character, emoji,
# whitespace runs, digits, lone surrogates (a reply may carry one), nothing.
TEXTS = (
    "",
    "hello",
    "def load(path: Path) -> dict:\n    return json.loads(path.read_text())\n" * 20,
    "日本語のテキストと한국어 텍스트, ελληνικά, русский",
    "🙂🙃🤖 " * 30,
    " " * 200 + "\n\n\t\t",
    "1234567890" * 50,
    "lone \ud800 surrogate \udfff here",
)


def history() -> list[Message]:
    call = ToolCall("call_1", "read_file", '{"path": "src/日本.py"}')
    image = ImageRef("a.png", "image/png", 640, 480, 1000, "a.png")
    return [
        Message(role="system", content="You are pleat.", id="m1"),
        Message(role="user", content=TEXTS[3], id="m2", images=(image,)),
        Message(
            role="assistant",
            content=None,
            tool_calls=(call,),
            reasoning_content="I should read it 🙂",
            id="m3",
        ),
        Message(role="tool", content=TEXTS[2], tool_call_id="call_1", name="read_file", id="m4"),
        Message(role="assistant", content=TEXTS[4], id="m5"),
    ]


@pytest.fixture
def no_tokenizer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any use of the tokenizer fails the test."""

    def refuse() -> Callable[[str], int]:
        raise AssertionError("the tokenizer was used")

    monkeypatch.setattr(tokens, "_count_text", refuse)
    yield


@pytest.mark.parametrize("text", TEXTS)
def test_the_bytes_of_a_text_are_at_least_its_tokens(text: str) -> None:
    assert utf8_bytes(text) >= count_text(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None)))
def test_the_bytes_of_any_text_are_at_least_its_tokens(text: str) -> None:
    assert utf8_bytes(text) >= count_text(text)


def test_a_message_and_the_tools_are_bounded_the_same_way() -> None:
    for message in history():
        assert message_tokens(message, utf8_bytes) >= message_tokens(message)
    assert payload_tokens(TOOLS, utf8_bytes) >= payload_tokens(TOOLS)


def test_the_bound_of_a_fresh_ledger_needs_no_tokenizer(no_tokenizer: None) -> None:
    ledger = TokenLedger(TOOLS)
    assert ledger.size_at_most(history()) > 0


def test_the_bound_is_never_below_the_size_before_and_after_reports() -> None:
    messages = history()
    ledger = TokenLedger(TOOLS)
    assert ledger.size_at_most(messages) >= ledger.size(messages)
    for prompt_tokens in (10, 4_000, 40_000):  # below, near and far above our own count
        ledger = TokenLedger(TOOLS)
        ledger.report(prompt_tokens, messages, 3)  # waiting: the bound takes the most ratio
        bound = ledger.size_at_most(messages)
        assert bound >= ledger.size(messages)  # which settles the report
        assert ledger.size_at_most(messages) >= ledger.size(messages)
        assert ledger.size_at_most(messages) <= bound


def test_a_report_waits_for_its_count_until_the_calibration_is_needed(no_tokenizer: None) -> None:
    messages = history()
    ledger = TokenLedger(TOOLS)
    ledger.report(5_000, messages, len(messages))
    assert ledger.size_at_most(messages) == 5_000  # nothing new since the report
    with pytest.raises(AssertionError, match="tokenizer"):
        ledger.size([*messages, Message(role="user", content="more", id="m6")])


def test_a_waiting_report_calibrates_as_counting_it_at_once_would() -> None:
    messages = history()
    local = payload_tokens(TOOLS) + sum(message_tokens(m) for m in messages[:4])
    ledger = TokenLedger(TOOLS)
    ledger.report(round(local * 1.3), messages, 4)
    assert ledger.ratio == pytest.approx(1.3, abs=0.001)
    # The next report extends the prefix summed for this one.
    ledger.report(round((local + message_tokens(messages[4])) * 2), messages, 5)
    assert ledger.ratio == pytest.approx(2.0, abs=0.001)
    ledger.report(10**9, messages, 5)
    assert ledger.ratio == MAX_RATIO


def test_a_message_rewritten_after_a_report_counts_as_it_was_for_that_report() -> None:
    messages = history()
    local = payload_tokens(TOOLS) + sum(message_tokens(m) for m in messages)
    ledger = TokenLedger(TOOLS)
    ledger.report(local * 2, messages, len(messages))
    shorter = Message(
        role="tool", content="[cut]", tool_call_id="call_1", name="read_file", id="m4"
    )
    ledger.forget(messages[3])  # the report is counted first, with the message as it was
    messages[3] = shorter
    assert ledger.ratio == pytest.approx(2.0, abs=0.001)
    assert ledger.local_count(shorter) == message_tokens(shorter)


def test_a_rebuilt_history_keeps_the_waiting_reports_calibration() -> None:
    messages = history()
    local = payload_tokens(TOOLS) + sum(message_tokens(m) for m in messages)
    ledger = TokenLedger(TOOLS)
    ledger.report(round(local * 1.5), messages, len(messages))
    ledger.reset_report()
    assert ledger.ratio == pytest.approx(1.5, abs=0.001)
    assert ledger.size(messages) == ledger.estimate(messages)
