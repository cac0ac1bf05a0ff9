"""A small window keeps room for what the model has not read: results are cut to the room a fold
leaves, a fold gives up the kept tail before the newest results are stubbed, and the last rung
stubs results already read first (tests/e2e/test_window_matrix.py's 4k row end to end)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.compaction.engine import Compactor
from agent.compaction.offline_model import OfflineSummarizer
from agent.compaction.policy import CompactionPolicy
from agent.compaction.shrink import plan_shrink
from agent.events import CompactionDone
from agent.model.tokens import TokenLedger
from agent.turn.tool_budget import tool_context
from sessions.archive import ChunkArchive
from sessions.messages import Message, ToolCall, unread_results
from tools.base import ToolContext
from tools.registry import default_registry

# A small window whose room after a fold is under the policy's share of it yet above the least a
# result gets (MIN_OUTPUT_TOKENS), and a large one where the share is the smaller.
SMALL, LARGE = 4_608, 200_000


def compactor(tmp_path: Path, window: int) -> Compactor:
    """A compactor over pleat's real tool schemas (about 1,900 tokens: half a 4k window)."""
    ids = iter(range(1_000, 2_000))
    archive = ChunkArchive(tmp_path / "chunks", "s")
    return Compactor(
        CompactionPolicy(context_window=window),
        OfflineSummarizer(window),
        archive,
        TokenLedger(default_registry(archive=archive).schemas()),
        new_id=lambda: f"x{next(ids)}",
    )


def rows(first: int, tokens: int, engine: Compactor) -> str:
    """Rows "row N" from `first` on, as many as fit in `tokens` (as the engine counts them)."""
    lines: list[str] = []
    while engine.count_text("".join([*lines, f"row {first + len(lines)}\n"])) <= tokens:
        lines.append(f"row {first + len(lines)}\n")
    return "".join(lines)


def exchange(number: int, text: str) -> list[Message]:
    call = ToolCall(f"c{number}", "read_archive", '{"action": "read", "output": 1}')
    return [
        Message(role="assistant", content=None, tool_calls=(call,), id=f"a{number}"),
        Message(role="tool", content=text, tool_call_id=call.id, name=call.name, id=f"t{number}"),
    ]


def paging_history(engine: Compactor, page_tokens: int) -> list[Message]:
    """A request, two pages the model has read, and a third it has not."""
    history = [
        Message(role="system", content="You are pleat.", id="m0"),
        Message(role="user", content="find the last row of the output", id="m1"),
    ]
    for number in (1, 2, 3):
        history += exchange(number, rows((number - 1) * 1_000 + 1, page_tokens, engine))
    return history


async def fold(engine: Compactor, history: list[Message]) -> CompactionDone:
    events = [event async for event in engine.compact(history, [], reason="threshold")]
    done = events[-1]
    assert isinstance(done, CompactionDone), done
    return done


def test_a_fold_gives_up_the_tail_before_the_unread_result(tmp_path: Path) -> None:
    engine = compactor(tmp_path, SMALL)
    page = tool_context(ToolContext(tmp_path), engine, paging_history(engine, 0)).page_tokens
    history = paging_history(engine, page)  # three pages of the size a result is cut to here
    newest = history[-1]
    assert unread_results(history) == {newest.id}
    done = asyncio.run(fold(engine, history))
    assert done.history[-1].content == newest.content  # whole, not a stub
    assert engine.fits(done.history)
    assert all(m.id not in {"t1", "t2"} for m in done.history)  # the pages read were folded


def test_a_small_window_cuts_results_to_the_room_a_fold_leaves(tmp_path: Path) -> None:
    small, large = compactor(tmp_path / "s", SMALL), compactor(tmp_path / "l", LARGE)
    history = paging_history(small, 0)
    whole_small = tool_context(ToolContext(tmp_path), small, history).page_tokens
    assert whole_small == min(small.budget.tool_output_tokens, small.result_room(history))
    assert whole_small < small.budget.tool_output_tokens  # 4k: the room, not the policy's share
    whole_large = tool_context(ToolContext(tmp_path), large, history).page_tokens
    assert whole_large == large.budget.tool_output_tokens  # a large window: the policy's share


def test_the_last_rung_stubs_read_results_first_and_the_newest_only_when_told(
    tmp_path: Path,
) -> None:
    history = paging_history(compactor(tmp_path, SMALL), 1_000)

    def count(message: Message) -> int:
        return len(message.content or "") // 4 + 4

    newest = len(history) - 1
    everything = plan_shrink(history, count, excess=100_000)
    assert newest in everything.indices
    read_only = plan_shrink(history, count, excess=100_000, unread_too=False)
    assert read_only.indices and newest not in read_only.indices
    enough = plan_shrink(history, count, excess=10)
    assert newest not in enough.indices  # a read one suffices: the newest stays
