"""`pleat replay`: the provider cache model on hand-made request sequences, and the four
strategies on a few real sessions, whose reports must agree where they have to."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent.compaction.policy import CompactionPolicy
from agent.replay.cache_model import CacheModel, Prices
from agent.replay.recorded import read_sessions
from agent.replay.strategies import STRATEGIES, run_strategy
from tests.support.pleat_process import pleat

SYSTEM = {"role": "system", "content": "You are a careful assistant. " * 20}
TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {}}}]


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def test_first_request_is_written_then_its_prefix_is_read() -> None:
    cache = CacheModel()
    first = cache.request([SYSTEM, user("a " * 300)], TOOLS)
    assert first.cached_tokens == 0
    assert first.cost == pytest.approx(first.prompt_tokens * 1.25)
    second = cache.request([SYSTEM, user("a " * 300), user("b " * 50)], TOOLS)
    assert second.cached_tokens == first.prompt_tokens
    fresh = second.prompt_tokens - second.cached_tokens
    assert second.cost == pytest.approx(second.cached_tokens * 0.1 + fresh * 1.25)


def test_a_changed_message_breaks_the_prefix_from_there() -> None:
    cache = CacheModel()
    cache.request([SYSTEM, user("one"), user("two")], TOOLS)
    tools_and_system = cache.request([SYSTEM], TOOLS).prompt_tokens
    changed = cache.request([SYSTEM, user("ONE"), user("two")], TOOLS)
    assert changed.cached_tokens == tools_and_system
    other_tools = cache.request([SYSTEM, user("one")], [])
    assert other_tools.cached_tokens == 0  # the tool schemas come first in the prefix


def test_entries_expire_after_their_lifetime() -> None:
    cache = CacheModel(lifetime=30, seconds_per_request=10)
    cache.request([SYSTEM, user("x")], TOOLS)
    cache.request([user("unrelated")], [])
    cache.request([user("unrelated 2")], [])
    assert cache.request([SYSTEM, user("x")], TOOLS).cached_tokens > 0  # 30 s later: alive
    for n in range(4):
        cache.request([user(f"other {n}")], [])
    assert cache.request([SYSTEM, user("x")], TOOLS).cached_tokens == 0  # 50 s idle: expired


def test_uncacheable_requests_pay_plain_input_and_leave_nothing() -> None:
    cache = CacheModel(prices=Prices(uncached=2.0, cache_read=0.5, cache_write=3.0))
    charge = cache.request([SYSTEM, user("x")], TOOLS, cacheable=False)
    assert charge.cost == pytest.approx(charge.prompt_tokens * 2.0)
    assert cache.request([SYSTEM, user("x")], TOOLS).cached_tokens == 0


@pytest.fixture(scope="module")
def short_sessions(recorded_sessions_file: Path) -> list:
    sessions = list(read_sessions(recorded_sessions_file))
    return [
        *sorted(sessions, key=lambda s: len(s.messages))[:3],
        max(sessions, key=lambda s: len(s.messages)),
    ]


async def test_strategies_agree_where_they_must(short_sessions: list, tmp_path: Path) -> None:
    window = 16_000
    policy = CompactionPolicy(context_window=window)
    for session in short_sessions:
        results = {
            name: await run_strategy(
                name,
                session,
                policy=policy,
                window=window,
                archive_dir=tmp_path / name / session.name,
            )
            for name in STRATEGIES
        }
        calls = sum(m.role == "assistant" for m in session.messages)
        for result in results.values():
            if result.finished:
                assert result.requests == calls  # one request per recorded model reply
            assert result.peak_context > 0
        assert results["insert"].finished and results["separate"].finished
        if results["none"].finished and results["insert"].compactions == 0:
            # Nothing was folded: every strategy sent exactly the same requests.
            billed = {round(r.billed, 6) for r in results.values()}
            assert len(billed) == 1, billed
        if results["insert"].compactions:
            share = (
                results["insert"].compression_cached_tokens
                / results["insert"].compression_prompt_tokens
            )
            assert share >= 0.9  # the compression call rides on the last request's cache
            assert results["separate"].compression_cached_tokens == 0
        assert results["mask"].compactions == results["none"].compactions == 0


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return pleat("replay", *args)


def test_cli_reports_json_per_session(tmp_path: Path, recorded_sessions_file: Path) -> None:
    path = str(recorded_sessions_file)
    done = run_cli(path, "--limit", "3", "--json", "--strategy", "insert", "--strategy", "none")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["summarizer"].startswith("[offline summarizer")
    assert set(report["strategies"]) == {"insert", "none"}
    assert len(report["strategies"]["insert"]["sessions"]) == 3
    assert "replay [" in done.stderr  # a progress bar on long runs


@pytest.mark.parametrize(
    ("content", "needle"),
    [("{not json}\n", "Expecting"), ('{"no_messages": []}\n', "messages")],
)
def test_cli_bad_input_is_one_line(tmp_path: Path, content: str, needle: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    done = run_cli(str(bad))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_cli_missing_file() -> None:
    done = run_cli("/no/such/file.jsonl")
    assert done.returncode == 2 and "no such file" in done.stderr
