"""How early a background fold starts: the lead measured from the session's growth and its
compression calls (agent/compaction/lead.py), and the start it decides (agent/compaction/
early.py) on a real compactor over pleat's tool schemas, in a small window and a large one."""

from __future__ import annotations

from pathlib import Path

from agent.compaction.early import early_start, observed_size
from agent.compaction.engine import Compactor
from agent.compaction.lead import IDLE_SECONDS, SAFETY, FoldLead
from agent.compaction.offline_model import OfflineSummarizer
from agent.compaction.policy import CompactionPolicy
from agent.model.tokens import TokenLedger
from sessions.archive import ChunkArchive
from sessions.messages import Message, ToolCall
from tools.registry import default_registry


class Clock:
    """The seconds the lead reads, moved by the test (the steps' own time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_lead_is_unknown_until_growth_and_a_call_were_both_seen() -> None:
    clock = Clock()
    lead = FoldLead(clock)
    lead.observe(1_000)
    assert lead.tokens() is None
    clock.now += 1.0
    lead.observe(1_300)  # 300 tokens in a second
    assert lead.tokens() is None  # no compression call timed yet
    lead.call_took(3.0)
    assert lead.tokens() == int(300 * 3.0 * SAFETY + 300)


def test_time_between_turns_and_a_fold_are_not_growth() -> None:
    clock = Clock()
    lead = FoldLead(clock)
    lead.call_took(2.0)
    lead.observe(1_000)
    clock.now += 1.0
    lead.observe(1_200)
    measured = lead.tokens()
    clock.now += IDLE_SECONDS + 1  # the machine slept: not growth time
    lead.observe(1_400)
    assert lead.tokens() == measured  # 200 a second and 200 a step, as before
    lead.restart()  # a fold was applied; the wait for it is not growth time either
    clock.now += 30.0
    lead.observe(1_500)
    clock.now += 1.0
    lead.observe(1_700)
    assert lead.tokens() == measured


def test_a_local_model_s_slow_steps_are_growth_time_and_a_new_request_is_not() -> None:
    clock = Clock()
    lead = FoldLead(clock)
    lead.call_took(120.0)  # a CPU-bound model: minutes a call
    lead.observe(2_000)
    clock.now += 90.0  # a step of a minute and a half
    lead.observe(2_900)
    assert lead.tokens() == int(10 * 120.0 * SAFETY + 900)


def test_the_pause_before_a_new_request_is_not_counted(tmp_path: Path) -> None:
    compactor = engine(tmp_path, 8_000)
    compactor.lead = FoldLead(clock := Clock())
    compactor.lead.call_took(3.0)
    history = history_of(6, 1_000)
    assert observed_size(compactor, history) is not None
    clock.now += 1.0
    history = history_of(7, 1_000)
    observed_size(compactor, history)
    measured = compactor.lead.tokens()
    assert measured is not None
    clock.now += 600.0  # the user read the answer and wrote the next request
    history.append(Message(role="user", content="now the next part", id="u2"))
    observed_size(compactor, history)
    assert compactor.lead.tokens() == measured


def engine(tmp_path: Path, window: int, **policy: float) -> Compactor:
    ids = iter(range(1_000, 9_000))
    archive = ChunkArchive(tmp_path / "chunks", "s")
    return Compactor(
        CompactionPolicy(context_window=window, **policy),  # type: ignore[arg-type]
        OfflineSummarizer(window),
        archive,
        TokenLedger(default_registry(archive=archive).schemas()),
        new_id=lambda: f"x{next(ids)}",
    )


def history_of(steps: int, chars: int) -> list[Message]:
    """A request and `steps` file reads of `chars` characters each."""
    history = [
        Message(role="system", content="You are pleat.", id="m0"),
        Message(role="user", content="read the files one by one", id="m1"),
    ]
    for i in range(steps):
        call = ToolCall(f"c{i}", "read_file", f'{{"path": "f{i}.txt"}}')
        text = (f"file {i} line: some words to read through; " * 200)[:chars]
        history.append(Message(role="assistant", content=None, tool_calls=(call,), id=f"a{i}"))
        history.append(
            Message(role="tool", content=text, tool_call_id=call.id, name=call.name, id=f"t{i}")
        )
    return history


def first_start(compactor: Compactor, clock: Clock, chars: int) -> int | None:
    """Steps of `chars` a second until a background fold would start (None: none before the
    threshold)."""
    for steps in range(1, 200):
        history = history_of(steps, chars)
        size = compactor.tokens.size(history)
        if size >= compactor.budget.trigger_tokens:
            return None
        compactor.lead.observe(size)
        if early_start(compactor, history, size) is not None:
            return steps
        clock.now += 1.0
    return None


def test_slow_calls_start_the_fold_earlier_than_early_fold_at(tmp_path: Path) -> None:
    quick, slow = engine(tmp_path / "a", 32_000), engine(tmp_path / "b", 32_000)
    for compactor, seconds in ((quick, 0.1), (slow, 8.0)):
        compactor.lead = FoldLead(clock := Clock())
        compactor.lead.call_took(seconds)
        compactor.clock = clock  # type: ignore[attr-defined]
    at_policy = first_start(quick, quick.clock, 4_000)  # type: ignore[attr-defined]
    earlier = first_start(slow, slow.clock, 4_000)  # type: ignore[attr-defined]
    assert at_policy is not None and earlier is not None
    assert earlier < at_policy  # eight seconds of a thousand tokens each: steps ahead
    size = quick.tokens.size(history_of(at_policy, 4_000))
    assert size >= quick.budget.early_tokens  # a quick call starts at early_fold_at, not before


def test_no_background_fold_when_early_fold_at_is_one_or_folding_is_paused(
    tmp_path: Path,
) -> None:
    off = engine(tmp_path / "a", 32_000, early_fold_at=1.0)
    paused = engine(tmp_path / "b", 32_000)
    history = history_of(15, 4_000)
    size = off.tokens.size(history)
    assert paused.budget.early_tokens <= size < paused.budget.trigger_tokens
    assert early_start(off, history, size) is None
    assert early_start(off, history, size, at_threshold=True) is None
    assert early_start(paused, history, size) is not None
    paused.suspended_below = size + 1_000
    assert early_start(paused, history, size) is None


def test_a_small_window_keeps_a_tail_that_leaves_room_below_the_threshold(
    tmp_path: Path,
) -> None:
    small = engine(tmp_path, 8_000)
    history = history_of(8, 1_000)
    room = small.tail_room(history, small.budget)
    assert 0 < room < small.budget.tail_tokens  # the policy's quarter would leave no room
    system = small.tokens.count(history[0])
    tools = small.tokens.scaled(small.tokens.tools_tokens)
    assert system + tools + small.budget.summary_cap + 2 * room <= small.budget.trigger_tokens
    large = engine(tmp_path / "l", 200_000)
    assert large.tail_room(history, large.budget) > large.budget.tail_tokens


def test_the_small_window_note_is_said_once(tmp_path: Path) -> None:
    small = engine(tmp_path, 8_000)
    small.lead = FoldLead(clock := Clock())
    small.lead.call_took(6.0)
    small.after_last_fold = small.budget.trigger_tokens - 200  # a fold left little room
    notes = []
    for steps in range(1, 40):
        history = history_of(steps, 1_000)
        size = small.tokens.size(history)
        small.lead.observe(size)
        start = early_start(small, history, size, at_threshold=True)
        if start is not None:
            notes.append(start.note)
        clock.now += 1.0
    said = [note for note in notes if note]
    assert len(said) == 1 and "8,000-token window" in said[0]
