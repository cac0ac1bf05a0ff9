"""The prompt queue with `!` command lines: a turn reads only the prompts before the first one;
the command waits at the head for the front end, and what follows it after that."""

from __future__ import annotations

from agent.images.prompt import Attached
from agent.turn.prompt_queue import PromptQueue
from sessions.messages import Message


async def no_images(text: str) -> Attached:
    return Attached()


async def test_a_turn_reads_only_the_prompts_before_a_command_line() -> None:
    queue = PromptQueue()
    for text in ("look at a", "!make", "then fix it"):
        queue.put(text)
    added: list[Message] = []

    def add(message: Message) -> Message:
        added.append(message)
        return message

    delivered = await queue.deliver(add, no_images)
    assert [m.content for m in added] == ["look at a"]
    assert [d.text for d in delivered] == ["look at a"]
    assert await queue.deliver(add, no_images) == []  # the command heads the queue: nothing read
    assert queue.prompts == ("!make", "then fix it")
    assert queue.take_command() == "!make"
    assert queue.take_command() is None  # a prompt heads it now
    assert queue.deliverable == ("then fix it",)
    assert queue.take_deliverable() == ["then fix it"]
    assert len(queue) == 0


def test_every_line_comes_back_in_order_when_the_work_is_interrupted() -> None:
    queue = PromptQueue()
    for text in ("!make", "then fix it", "!git status"):
        queue.put(text)
    assert queue.deliverable == ()
    assert queue.take_all() == ["!make", "then fix it", "!git status"]
