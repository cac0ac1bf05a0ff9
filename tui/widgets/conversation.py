"""The scrolling conversation, windowed: all entries kept as data, only the newest mounted."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.containers import VerticalScroll
from textual.widget import Widget

from agent.conversation.entries import (
    Entry,
    ExpansionEntry,
    FoldEntry,
    MarkdownEntry,
    NoticeEntry,
    NoticeKind,
    ReplyEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)
from tui.widgets.reply_window import BlockWindow

if TYPE_CHECKING:
    from tui.widgets.app_markdown import AppMarkdown
    from tui.widgets.assistant_message import AssistantMessage
    from tui.widgets.command_expansion import CommandExpansion
    from tui.widgets.compaction_marker import CompactionMarker
    from tui.widgets.notice import Notice
    from tui.widgets.thinking_block import ThinkingBlock
    from tui.widgets.tool_call import ToolCallBlock
    from tui.widgets.user_message import UserMessage

# Widgets kept mounted while the user follows the end, counting those inside an entry (a
# Markdown reply is a widget per paragraph, list and code block). Every relayout (a key that
# changes the prompt's height, a resize) visits all of them: about 0.045 ms each on a 2-core
# machine, so 225 mounted widgets made such a key cost 10.6 ms median and 20 ms at p95
# (bench/tui_latency.py, issue 32). 120 still hold several screens of scroll-back (about 24
# typical replies) and keep that key within one 60 Hz frame; scrolling up mounts more.
MAX_WIDGETS = 120
# Pruning waits until the mounted widgets are this many over the budget, so it runs once per
# batch of new widgets rather than on every one (each prune is one removal and one relayout).
PRUNE_SLACK = 30
# Entries kept mounted however heavy they are: the reply being read and what led to it.
MIN_MOUNTED = 8
# Entries mounted when a session is shown from its history (resume, /resume): the screen
# fills at once; scrolling up loads the rest.
INITIAL = 30
# Entries mounted at a time when the user reaches the top: a few screens' worth, cheap enough
# to mount between two frames.
LOAD_BATCH = 20


@cache
def _widget_classes() -> dict[type, Any]:
    """Entry type -> widget class, imported on first use: Markdown costs a tenth of the start-up
    time and is not needed for the first frame."""
    from tui.widgets.app_markdown import AppMarkdown
    from tui.widgets.assistant_message import AssistantMessage
    from tui.widgets.command_expansion import CommandExpansion
    from tui.widgets.compaction_marker import CompactionMarker
    from tui.widgets.notice import Notice
    from tui.widgets.thinking_block import ThinkingBlock
    from tui.widgets.tool_call import ToolCallBlock
    from tui.widgets.user_message import UserMessage

    return {
        UserEntry: UserMessage,
        ExpansionEntry: CommandExpansion,
        ReplyEntry: AssistantMessage,
        ThinkingEntry: ThinkingBlock,
        ToolEntry: ToolCallBlock,
        NoticeEntry: Notice,
        MarkdownEntry: AppMarkdown,
        FoldEntry: CompactionMarker,
    }


def _weight(widget: Widget) -> int:
    """The widget and everything inside it."""
    return 1 + len(widget.query("*"))


def widget_for(entry: Entry) -> Widget:
    """The widget that shows one entry."""
    return cast(Widget, _widget_classes()[type(entry)](entry))


class Conversation(VerticalScroll):
    """Holds the exchange; stays scrolled to the end until the user scrolls up. `entries` is
    everything shown; entries[first:] are mounted, in order, as the children.

    A chat with hundreds of mounted Markdown widgets gets slow to lay out (textual#5163), so
    only a budget of widgets stays mounted: older entries are pruned while the user follows the
    end, and mounted again, a batch at a time, when the user scrolls to the top.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = []
        self.first = 0
        self._loading = False

    def on_mount(self) -> None:
        self.anchor()

    @property
    def mounted_count(self) -> int:
        return len(self.entries) - self.first

    @property
    def mounted_widgets(self) -> int:
        """Widgets in the conversation, those inside each entry's widget included."""
        return sum(_weight(child) for child in self.children)

    @property
    def following(self) -> bool:
        """The user is at the end (not reading further up)."""
        return self.scroll_y >= self.max_scroll_y

    # -- adding -------------------------------------------------------------------------------

    async def add(self, entry: Entry) -> Widget:
        """Append an entry and mount its widget at the end."""
        self.entries.append(entry)
        widget = widget_for(entry)
        await self.mount(widget)
        await self._prune()
        return widget

    async def add_user(self, text: str, images: tuple[str, ...] = ()) -> UserMessage:
        return cast("UserMessage", await self.add(UserEntry(text, images)))

    async def add_expansion(self, source: str, text: str) -> CommandExpansion:
        """What a custom command sent, collapsed, under the line the user typed."""
        return cast("CommandExpansion", await self.add(ExpansionEntry(source, text)))

    async def add_assistant(self) -> AssistantMessage:
        return cast("AssistantMessage", await self.add(ReplyEntry()))

    async def add_thinking(self) -> ThinkingBlock:
        return cast("ThinkingBlock", await self.add(ThinkingEntry()))

    async def add_tool_call(self, summary: str) -> ToolCallBlock:
        return cast("ToolCallBlock", await self.add(ToolEntry(summary)))

    async def add_notice(self, text: str, kind: NoticeKind = "note") -> Notice:
        return cast("Notice", await self.add(NoticeEntry(text, kind)))

    async def add_markdown(self, text: str, classes: str) -> AppMarkdown:
        """A fixed Markdown text from the app itself (e.g. the configuration help)."""
        return cast("AppMarkdown", await self.add(MarkdownEntry(text, classes)))

    async def add_fold(self, text: str) -> CompactionMarker:
        """The line of a compaction that has just started."""
        return cast("CompactionMarker", await self.add(FoldEntry(text)))

    async def drop(self, widget: Widget) -> None:
        """Remove one mounted widget and its entry (a line that turned out to say nothing)."""
        entry = getattr(widget, "entry", None)
        index = next((i for i, e in enumerate(self.entries) if e is entry), None)
        if index is None or index < self.first:
            return
        del self.entries[index]
        await widget.remove()

    async def reset(self, entries: Sequence[Entry]) -> None:
        """Show another conversation: the newest INITIAL entries mounted, the rest on demand."""
        await self.remove_children()
        self.entries = list(entries)
        self.first = max(0, len(self.entries) - INITIAL)
        await self.mount_all([widget_for(e) for e in self.entries[self.first :]])
        self.anchor()

    # -- the window ---------------------------------------------------------------------------

    async def _prune(self) -> None:
        """Unmount the oldest entries past the widget budget, only while the user follows the
        end (removing content above the reader's view would make it jump)."""
        if not self.following or self.mounted_count <= MIN_MOUNTED:
            return
        children = list(self.children)
        weights = [_weight(child) for child in children]
        if sum(weights) <= MAX_WIDGETS + PRUNE_SLACK:
            return
        kept, cut = 0, len(children)
        while cut > 0 and (
            len(children) - cut < MIN_MOUNTED or kept + weights[cut - 1] <= MAX_WIDGETS
        ):
            cut -= 1
            kept += weights[cut]
        if cut > 0:
            self.first += cut
            await self.remove_children(children[:cut])

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.max_scroll_y - new_value > self.scrollable_content_region.height:
            self.show_hidden_blocks()  # a screen up from the end: before the spacers come near
        else:
            self.call_after_refresh(self._show_spacers_in_view)
        if new_value <= 0 and self.first > 0 and not self._loading:
            self._loading = True
            self.call_after_refresh(self.load_older)
        elif new_value >= self.max_scroll_y and self.first < len(self.entries) - MIN_MOUNTED:
            self.call_after_refresh(self._prune)

    def on_resize(self, event: events.Resize) -> None:
        """A new size changes how many rows the kept blocks of a long reply fill."""
        self.show_hidden_blocks()

    def _show_spacers_in_view(self) -> None:
        for child in self.children:
            window = getattr(child, "window", None)
            if isinstance(window, BlockWindow):
                window.show_if_in_view()

    def show_hidden_blocks(self) -> None:
        """Show again the blocks long replies hid while the user followed the end
        (tui.widgets.reply_window): the user is reading further up."""
        for child in self.children:
            window = getattr(child, "window", None)
            if isinstance(window, BlockWindow) and window.hiding:
                window.show_all()

    async def load_older(self) -> None:
        """Mount the previous batch of entries above the first mounted one, keeping the reader's
        place (the widget that was at the top stays at the top)."""
        try:
            if self.first == 0:
                return
            start = max(0, self.first - LOAD_BATCH)
            anchor_widget = self.children[0] if self.children else None
            widgets = [widget_for(e) for e in self.entries[start : self.first]]
            self.first = start
            await self.mount_all(widgets, before=0)
            if anchor_widget is not None:
                self.call_after_refresh(self._keep_place, anchor_widget)
        finally:
            self._loading = False

    def _keep_place(self, widget: Widget) -> None:
        self.scroll_to(y=widget.virtual_region.y, animate=False, immediate=True)
