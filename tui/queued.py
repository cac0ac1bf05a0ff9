"""Prompts typed while pleat works: queued, shown above the prompt, taken back, or sent next.

The agent's queue (agent.turn.prompt_queue) holds them; its turn delivers them at its next model
call. What a turn leaves queued becomes the next turn, as one prompt. Esc puts them back into the
prompt instead: nothing is sent that the user did not see go.
"""

from __future__ import annotations

from tui.host import Host


def joined(prompts: list[str]) -> str:
    """Several prompts as one (agent.turn.prompt_queue, imported after the first frame)."""
    from agent.turn.prompt_queue import joined as join

    return join(prompts)


def show(host: Host) -> None:
    """Show what waits (after every change to the queue)."""
    agent = host.agent
    host.queued_prompts.show(agent.queued.prompts if agent is not None else ())


def put(host: Host, text: str) -> None:
    """Queue a prompt sent while work runs."""
    assert host.agent is not None
    host.agent.queued.put(text)
    show(host)


def take_back(host: Host) -> str | None:
    """The newest queued prompt, out of the queue (↑ in an empty prompt), or None."""
    taken = host.agent.queued.take_newest() if host.agent is not None else None
    show(host)
    return taken


def put_back(host: Host) -> None:
    """The work is being interrupted: every queued prompt goes back into the prompt, before
    whatever was being typed, unsent."""
    prompts = host.agent.queued.take_all() if host.agent is not None else []
    if not prompts:
        return
    draft = host.prompt.text
    host.prompt.value = joined([*prompts, draft] if draft.strip() else prompts)
    show(host)
    count = f"{len(prompts)} queued prompt{'' if len(prompts) == 1 else 's'}"
    host.notify(f"{count} not sent: back in the prompt")


def give_back(host: Host, text: str) -> None:
    """A prompt a hook blocked: back into the input, before whatever is being typed, unsent."""
    draft = host.prompt.text
    host.prompt.value = joined([text, draft] if draft.strip() else [text])


def take_all_with(host: Host, text: str) -> str:
    """A prompt sent when nothing runs: anything still queued goes first, in one prompt."""
    prompts = host.agent.queued.take_all() if host.agent is not None else []
    show(host)
    return joined([*prompts, text])
