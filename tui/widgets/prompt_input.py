"""The prompt: a multi-line TextArea with history, slash-command and @file completion."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea

from agent.commands.completion import WorkspaceFiles, command_completion, file_completion
from tui.widgets.completion_list import CompletionList
from tui.widgets.vim_prompt import VimPrompt

# Keys that insert a line break instead of sending: Shift+Enter where the terminal reports it
# (terminals speaking the kitty keyboard protocol: kitty, WezTerm, foot, Ghostty; not tmux 3.3,
# which sends it as a plain Enter), and Ctrl+J everywhere (it is a line feed). Backslash then
# Enter works everywhere too. Alt+Enter is not here: Textual reads it as Enter in tmux.
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})
# The keys the completion list takes while it shows, before vim's normal mode would.
COMPLETION_KEYS = frozenset({"enter", "tab", "escape"})


class PromptInput(TextArea):
    """Where the user types; posts Submitted with the text when Enter sends it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "up", "Previous prompt", show=False),
        Binding("down", "down", "Next prompt", show=False),
    ]

    class Submitted(Message):
        """Enter was pressed: `value` is the prompt as typed."""

        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    def __init__(
        self,
        placeholder: str,
        completions: CompletionList,
        commands: Callable[[], Sequence[tuple[str, str]]],
        files: WorkspaceFiles,
    ) -> None:
        super().__init__(
            id="prompt",
            placeholder=placeholder,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
        )
        self.completions = completions
        # The commands as (name, label), asked at every keystroke (custom commands come and go
        # with their files); refresh_commands reads them again, when the list opens.
        self.commands = commands
        self.refresh_commands: Callable[[], Awaitable[object]] | None = None
        self.files = files
        self.past: list[str] = []  # prompts sent, oldest first
        self._position = 0  # index into past; len(past) means the draft
        self._draft = ""
        # Text the app or the history put in the box: no completion list for it until the
        # user edits it (walking up through "/compact" must not open the command list).
        self._placed: str | None = None
        self._listing = False  # the workspace's files are being listed for @ completion
        # Takes the newest prompt queued while pleat works back out of its queue (the app
        # sets it): ↑ in an empty prompt brings it here to edit, or to drop by clearing it.
        self.take_queued: Callable[[], str | None] = lambda: None
        self.vim: VimPrompt | None = None  # vim keys (/vim, editor_mode = "vim"): None is off

    def set_vim(self, on: bool) -> None:
        """Vim keys on (in insert mode) or off; the border title shows the mode while on."""
        self.vim = VimPrompt(self) if on else None
        if not on:
            self.border_title = None

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self._placed = text
        self.load_text(text)
        self.move_cursor(self.document.end)
        if self.vim is not None:
            self.vim.forget()

    # -- keys ---------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.vim is not None and not (self.completions.showing and key in COMPLETION_KEYS):
            taken, submit = self.vim.key(event)  # vim keys: tui/widgets/vim_prompt.py
            if submit:
                self._submit()
            if taken:
                event.stop()
                event.prevent_default()
                return
        if key in ("enter", "tab") and self.completions.showing:
            self._complete()  # keys typed since the last Changed message was handled count
        handled = True
        if key == "enter" and self.completions.showing:
            self._accept(submit=True)
        elif key == "tab" and self.completions.showing:
            self._accept(submit=False)
        elif key == "tab" and self._completing_word():
            pass  # the suggestions are still being listed: keep the focus here
        elif key == "escape" and self.completions.showing:
            self.completions.show(None)
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "enter":
            row, column = self.cursor_location
            if column > 0 and self.document[row][column - 1] == "\\":
                self.replace("\n", (row, column - 1), (row, column))  # "\" + Enter: a new line
            else:
                self._submit()
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def action_up(self) -> None:
        if self.completions.showing:
            self.completions.move(-1)
        elif not self.text and (taken := self.take_queued()) is not None:
            self.value = taken
        elif self.cursor_at_first_line:
            self._walk_history(-1)
        else:
            self.action_cursor_up()

    def action_down(self) -> None:
        if self.completions.showing:
            self.completions.move(1)
        elif self.cursor_at_last_line:
            self._walk_history(1)
        else:
            self.action_cursor_down()

    # -- history ------------------------------------------------------------------------------

    def remember(self, text: str) -> None:
        """Add a submitted prompt to the history (not twice in a row)."""
        if text and (not self.past or self.past[-1] != text):
            self.past.append(text)
        self._position = len(self.past)
        self._draft = ""

    def _walk_history(self, step: int) -> None:
        if not self.past:
            return
        if self._position == len(self.past):
            self._draft = self.text
        position = max(0, min(len(self.past), self._position + step))
        if position == self._position:
            return
        self._position = position
        self.value = self.past[position] if position < len(self.past) else self._draft

    # -- completion ---------------------------------------------------------------------------

    def on_text_area_changed(self) -> None:
        if self.text == "/" and self.refresh_commands is not None:  # the / list opens
            self.run_worker(self._list_commands(), group="commands", exit_on_error=False)
        self._complete()

    def on_text_area_selection_changed(self) -> None:
        self._complete()

    def _complete(self) -> None:
        if self._placed is not None and self.text == self._placed:
            self.completions.show(None)
            return
        self._placed = None
        row, column = self.cursor_location
        line = self.document[row]
        completion = command_completion(line, column, row, self.commands())
        if completion is None and "@" in line[:column]:
            if self.files.stale and not self._listing:
                self._listing = True
                self.run_worker(self._list_files(), group="files", exit_on_error=False)
            completion = file_completion(line, column, self.files.files)
        self.completions.show(completion)

    async def _list_commands(self) -> None:
        """The command files read again (off the event loop), then the list shown again."""
        assert self.refresh_commands is not None
        await self.refresh_commands()
        self._complete()

    async def _list_files(self) -> None:
        try:
            await self.files.refresh()
        finally:
            self._listing = False
        self._complete()

    def _completing_word(self) -> bool:
        """The word at the cursor is a command or a file mention being typed."""
        row, column = self.cursor_location
        word = self.document[row][:column].rsplit(maxsplit=1)[-1:] or [""]
        return word[0].startswith(("@", "/"))

    def _accept(self, *, submit: bool) -> None:
        """Put the highlighted suggestion in place of the word; a command chosen with Enter
        runs at once (as typed out in full)."""
        completion, chosen = self.completions.completion, self.completions.chosen
        self.completions.show(None)
        if completion is None or chosen is None:
            return
        row = self.cursor_location[0]
        self.replace(chosen.value + " ", (row, completion.start), (row, completion.end))
        if submit and completion.kind == "command":
            self._submit()

    def _submit(self) -> None:
        """Send the text and empty the box at once, so keys typed before the app handles the
        message land in the empty box instead of being wiped with the sent text."""
        text = self.text
        self.value = ""
        if self.vim is not None:
            self.vim.forget(insert=True)  # the next prompt is typed in insert mode
        self.post_message(self.Submitted(text))
