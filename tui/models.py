"""/model and the model at start-up: the picker, switching (the session's context folded first
when the new window is smaller), saving the default, and the first model found when none is
configured."""

from __future__ import annotations

import asyncio
import os

from agent.config import ConfigError, config_path
from agent.model.discovery import FoundModel, discover, same_model
from agent.model.errors import LLMError
from agent.terminal_text import visible
from tui.host import Host


def typed(host: Host, name: str) -> FoundModel:
    """A model named with /model NAME: called at the configured api_base, if any (a server
    picked earlier is not carried over to a name typed since)."""
    config = host.startup.config
    return FoundModel(name, config.api_base if config is not None else None, "typed")


def current(host: Host) -> FoundModel | None:
    config = host.controller.config if host.controller is not None else None
    if config is None or not config.model:
        return None
    return FoundModel(config.model, config.api_base, "in use")


async def pick(host: Host) -> tuple[FoundModel, bool] | None:
    """The picker over every model found; the choice and whether to save it (None: closed)."""
    from tui.screens.model_picker import ModelPickerScreen

    config = host.startup.config
    servers = config.local_model_servers if config is not None else ()
    if config is not None and config.api_base:  # the configured server is listed first
        servers = (config.api_base, *servers)

    async def load() -> list[FoundModel]:
        return await discover(os.environ, servers)

    chosen: tuple[FoundModel, bool] | None = await host.ask_screen(
        ModelPickerScreen(current(host), load)
    )
    return chosen


async def use(host: Host, model: FoundModel, save: bool) -> None:
    """Switch to `model` (the first session, when there is none yet), saving it as the default
    when asked; a model litellm cannot route is refused in one line."""
    assert host.controller is not None
    try:
        await host.controller.check_model(model)
    except LLMError as error:
        await host.conversation.add_notice(f"cannot switch model: {error.message}", "error")
        return
    if save:
        await _save(host, model)
    now = current(host)
    if host.agent is None:
        await _start_with(host, model)
    elif same_model(now, model):
        await host.conversation.add_notice(f"model: {visible(model.name)} (already in use)")
    else:
        from tui.tasks import run_model_switch

        host.start_work("switch", run_model_switch(host, model))


async def _save(host: Host, model: FoundModel) -> None:
    from agent.config_file import save_model

    try:
        line = await asyncio.to_thread(save_model, config_path(), model.name, model.api_base)
    except ConfigError as error:
        await host.conversation.add_notice(f"cannot save the default model: {error}", "error")
        return
    await host.conversation.add_notice(visible(line))


async def _start_with(host: Host, model: FoundModel) -> None:
    """The first session, with `model`, after a start without one."""
    from sessions.lock import SessionBusy
    from sessions.store import SessionError
    from tui import lifecycle

    assert host.controller is not None
    try:
        await asyncio.to_thread(host.controller.start_with_model, model)
    except (ConfigError, SessionError, SessionBusy) as error:
        await host.conversation.add_notice(f"cannot start with {model.name}: {error}", "error")
        return
    host.unavailable = None
    await lifecycle.show_session(host, [], source="startup")
    host.start_background(lifecycle.warm_up(host))  # the meter, and idle folds
    lifecycle.start_run_parts(host)
    await host.conversation.add_notice(
        f"model: {visible(model.name)} (a new session; Ctrl+S in /model saves it as the default)"
    )
