"""`--output-format text` (the default): the answer streams to stdout as the model writes it,
progress to stderr; a slash command's line is its answer."""

from __future__ import annotations

from typing import TextIO

from agent.events import ErrorKind, Event, HookNotice, TextDelta, ToolCallStarted, TurnDone
from agent.headless.progress import say_progress


class TextReport:
    """Follows one headless run's events and prints them as text."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.answer_out = out  # where a slash command writes its answer
        self._wrote_text = False  # text since the last line break the answer needs

    def start(self) -> None:
        """The run begins: nothing to say yet."""

    def event(self, event: Event, *, progress: bool = True) -> None:
        """Take one event: answer text to stdout, its line (`progress`) to stderr."""
        if progress:
            say_progress(event, self.err)
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._wrote_text = True
        elif isinstance(event, ToolCallStarted | HookNotice) and self._wrote_text:
            self.out.write("\n")  # the text before a tool call (or a Stop hook) is not the answer
            self._wrote_text = False

    def end_text(self) -> None:
        """The answer's last line ends (also when interrupted: the terminal starts clean)."""
        if self._wrote_text:
            self.out.write("\n")
            self.out.flush()
            self._wrote_text = False

    def finish(
        self,
        done: TurnDone | None,
        error: str | None,
        answer: str = "",
        kind: ErrorKind | None = None,
    ) -> None:
        """The run ended: its error line is the caller's to print (the same in every format)."""
        self.end_text()

    def command_finished(
        self, command: str, code: int, errors: list[str], last: str | None
    ) -> None:
        """A slash command ended: it printed its own answer."""
