"""The 60 real recorded sessions through the real engine (offline summarizer), with the
invariants checked at every compaction: valid histories, every folded message archived exactly
once and verbatim, no request over the window once folding has started."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.compaction.policy import Budget, CompactionPolicy
from agent.events import CompactionDone
from agent.replay.recorded import read_sessions
from agent.replay.strategies import run_strategy
from sessions.archive import ChunkArchive
from sessions.messages import Message, is_summary
from tests.support.invariants import assert_history_valid
from tools.result_facts import ResultFacts

# Small enough that most of the 60 sessions fold, several of them many times.
WINDOW = 16_000


@pytest.fixture(scope="module")
def sessions(recorded_sessions_file: Path) -> list:
    return list(read_sessions(recorded_sessions_file))


def test_the_data_is_what_its_readme_says(sessions: list) -> None:
    assert len(sessions) == 60
    sizes = sorted(len(s.messages) for s in sessions)
    assert sizes[0] == 28 and sizes[-1] == 292


@pytest.mark.slow  # the sixty recorded sessions through the engine
async def test_sixty_sessions_keep_every_invariant(sessions: list, tmp_path: Path) -> None:
    policy = CompactionPolicy(context_window=WINDOW)
    budget = Budget.of(policy, WINDOW)
    total_folds = 0
    for session in sessions:
        directory = tmp_path / session.name
        originals = {m.id: m for m in session.messages}
        folded_ids: list[str] = []

        def check(
            before: list[Message], done: CompactionDone, folded_ids: list[str] = folded_ids
        ) -> None:
            assert_history_valid(done.history)
            assert done.tokens_after < done.tokens_before
            live = {m.id for m in done.history}
            folded_ids.extend(m.id for m in before if m.id not in live and not is_summary(m))

        result = await run_strategy(
            "insert",
            session,
            policy=policy,
            window=WINDOW,
            archive_dir=directory,
            on_compaction=check,
        )
        assert not result.failures
        assert result.finished, f"{session.name} overflowed at message {result.overflow_at}"
        total_folds += result.compactions
        # Every folded message is in the archive exactly once, verbatim (as folded, or as the
        # original of a tool output shrunk in an earlier fold's kept tail); a re-read the replay
        # gave as pleat's note (agent/replay/rereads.py) is archived as that note.
        archive = ChunkArchive(directory, session.name)
        stored = [
            m for c in archive.chunks() for part in archive.read_parts(c.number) for m in part
        ]
        stored_ids = [m.id for m in stored]
        assert len(stored_ids) == len(set(stored_ids))
        assert set(folded_ids) <= set(stored_ids)
        for message in stored:
            original = originals[message.id]
            facts = ResultFacts.of_message(message.meta)
            if facts is not None and facts.unchanged_of:  # it stands for the same text
                assert originals[facts.unchanged_of].content == original.content
                continue
            assert (message.role, message.content, message.tool_calls) == (
                original.role,
                original.content,
                original.tool_calls,
            )
        # Every request stays inside the window.
        assert result.peak_context <= budget.window, session.name
    assert total_folds >= 60
