"""The command palette's pleat commands (Ctrl+P): every slash command, built-in and custom."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from agent.commands.builtin import Builtin
from agent.terminal_text import visible

if TYPE_CHECKING:
    from agent.commands.catalog import CommandCatalog, CustomCommand
    from tui.host import Host
    from tui.widgets.prompt_input import PromptInput


class _RunsBuiltins(Protocol):
    """What the palette needs of the app (PleatApp)."""

    custom_commands: CommandCatalog | None

    @property
    def prompt(self) -> PromptInput: ...

    def run_slash(self, command: Builtin, arg: str) -> None: ...


class SlashCommandProvider(Provider):
    """Offers /compact, /context, /chunks ... and the custom commands as palette commands."""

    @property
    def _app(self) -> _RunsBuiltins:
        return cast(_RunsBuiltins, self.app)

    async def startup(self) -> None:
        from tui.command_catalog import refresh

        await refresh(cast("Host", self.app))  # the files as they are now

    def _run(self, command: Builtin) -> None:
        self._app.run_slash(command, "")

    def _run_custom(self, command: CustomCommand) -> None:
        """A command that takes arguments goes into the prompt to be completed; one that takes
        none runs as if typed."""
        from tui.widgets.prompt_input import PromptInput

        prompt = self._app.prompt
        if command.argument_hint:
            prompt.value = f"/{command.name} "
            prompt.focus()
        else:
            prompt.post_message(PromptInput.Submitted(f"/{command.name}"))

    def _entries(self) -> Iterator[tuple[str, str, Callable[[], None]]]:
        """(title, help, run) of every command: the built-ins, then the custom ones, a built-in
        a command file shadows under `/pleat:NAME` (agent/commands/resolution.py). The palette
        reads both texts as Textual markup: a custom command's name is plain by its charset
        (agent/commands/files.py), its file's text is escaped (`[file]` is a hint, not a tag)."""
        from agent.commands.resolution import listing
        from tui.command_catalog import whose

        catalog = self._app.custom_commands
        for row in listing(catalog.commands if catalog is not None else ()):
            command = row.command
            if isinstance(command, Builtin):
                described = f"{command.help} ({row.note})" if row.note else command.help
                yield f"/{row.typed}", escape(visible(described)), partial(self._run, command)
                continue
            hint = f"{command.argument_hint} · " if command.argument_hint else ""
            scope = whose(command, row.note) if row.note else f"{command.scope} command"
            described = f"{hint}{command.description} ({scope})"
            yield f"/{row.typed}", escape(visible(described)), partial(self._run_custom, command)

    async def discover(self) -> Hits:
        for title, help_text, run in self._entries():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._entries():
            score = max(matcher.match(title), matcher.match(help_text) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, text=title, help=help_text)
