"""The command palette's pleat commands (Ctrl+P): every slash command, run without an argument."""

from __future__ import annotations

from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tui.slash_commands import COMMANDS, SlashCommand


class _RunsSlashCommands(Protocol):
    """What the palette needs of the app (PleatApp)."""

    def run_slash(self, command: SlashCommand, arg: str) -> None: ...


class SlashCommandProvider(Provider):
    """Offers /compact, /context, /chunks ... as palette commands."""

    def _run(self, command: SlashCommand) -> None:
        cast(_RunsSlashCommands, self.app).run_slash(command, "")

    @staticmethod
    def _title(command: SlashCommand) -> str:
        return f"/{command.name}"

    async def discover(self) -> Hits:
        for command in COMMANDS:
            yield DiscoveryHit(self._title(command), partial(self._run, command), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in COMMANDS:
            title = self._title(command)
            score = max(matcher.match(title), matcher.match(command.help) * 0.5)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(title),
                    partial(self._run, command),
                    text=title,
                    help=command.help,
                )
