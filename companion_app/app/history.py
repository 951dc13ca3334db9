"""The History screen: the game's log by round, newest first, with big undo and redo buttons."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion_app.app.widgets import fill_sections
from companion_app.viewmodels.history import HistoryViewModel
from companion_app.viewmodels.panel import PanelLine, PanelSection

Builder.load_file(__file__.replace(".py", ".kv"))

MAX_ROUNDS_SHOWN = 30


class HistoryScreen(Screen):
    """Forwards undo/redo to `HistoryViewModel`; shows its rounds."""

    vm: HistoryViewModel | None = None
    undo_text = StringProperty("")
    redo_text = StringProperty("")
    empty_text = StringProperty("")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)

    def bind_vm(self, vm: HistoryViewModel | None) -> None:
        """Show `vm` (None: no game yet)."""
        self.vm = vm
        self.refresh()

    def undo(self) -> None:
        """Take back the last step."""
        if self.vm is not None:
            self.vm.undo()

    def redo(self) -> None:
        """Replay the last undone step."""
        if self.vm is not None:
            self.vm.redo()

    def refresh(self, *_: Any) -> None:
        """Redraw from the view model."""
        t = App.get_running_app().translator.t
        vm = self.vm
        if vm is None:
            self.undo_text, self.redo_text = t("history.undo"), t("history.redo")
            self.can_undo = self.can_redo = False
            self.empty_text = t("history.no_game")
            fill_sections(self.ids.rounds, [])
            return
        self.undo_text, self.redo_text = vm.undo_text(), vm.redo_text()
        self.can_undo, self.can_redo = vm.can_undo, vm.can_redo
        rounds = vm.rounds()[:MAX_ROUNDS_SHOWN]
        self.empty_text = "" if rounds else t("history.empty")
        fill_sections(
            self.ids.rounds,
            [PanelSection(r.title, tuple(PanelLine(line) for line in r.lines)) for r in rounds],
        )


__all__ = ["HistoryScreen"]
