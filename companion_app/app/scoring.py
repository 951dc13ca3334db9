"""The Scoring screen: counts entered with big − / + buttons, the ranking and the breakdown."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion_app.app import theme
from companion_app.app.widgets import fill_sections
from companion_app.storage import StorageError
from companion_app.viewmodels.scoring import ScoringViewModel

Builder.load_file(__file__.replace(".py", ".kv"))

CELL_WIDTH = 140
ROW_LABEL_WIDTH = 150


class CountCell(BoxLayout):
    """One count with − and + buttons."""

    screen = ObjectProperty(None)
    row = StringProperty("")
    column = StringProperty("")
    value = NumericProperty(0)


def _label(text: str, width: float, bold: bool = False, colour: Any = theme.TEXT) -> Label:
    label = Label(
        text=text,
        bold=bold,
        color=colour,
        font_size=sp(theme.FONT_SMALL),
        size_hint=(None, None),
        width=dp(width),
        height=dp(theme.TOUCH_SMALL),
        halign="center",
        valign="middle",
        shorten=True,
    )
    label.text_size = (label.width, label.height)
    return label


class ScoringScreen(Screen):
    """Forwards count changes to the scoring view model; shows its ranking and breakdown."""

    vm: ScoringViewModel | None = None
    session: Any = None
    auto_fill = True  # follow the game until a player edits a count
    title = StringProperty("")
    export_message = StringProperty("")
    has_session = BooleanProperty(False)

    def bind_vm(self, vm: ScoringViewModel | None, session: Any = None) -> None:
        """Show the form `vm` (of `session`'s game, when there is one)."""
        self.vm = vm
        self.session = session
        self.has_session = session is not None
        self.auto_fill = True
        self.refresh()

    def step(self, row: str, column: str, delta: int) -> None:
        """The − or + of a cell."""
        self.auto_fill = False
        if self.vm is not None:
            self.vm.step(row, column, delta)
            self.refresh()

    def fill_from_game(self) -> None:
        """Prefill the counts from the game being played."""
        if self.vm is not None and self.session is not None:
            self.vm.fill_from_state(self.session)
            self.refresh()

    def clear(self) -> None:
        """All counts back to 0."""
        self.auto_fill = False
        if self.vm is not None:
            self.vm.clear()
            self.refresh()

    def export(self) -> None:
        """Write the results as JSON and CSV into the user data folder."""
        app = App.get_running_app()
        if self.vm is None:
            return
        stem = self.session.game_id if self.session is not None else f"scores-{self.vm.game}"
        try:
            json_path, csv_path = self.vm.export(stem)
        except (ValueError, OSError, StorageError) as error:
            self.export_message = str(error)
            return
        self.export_message = app.translator.t("scoring.exported", path=str(json_path.parent))
        del csv_path

    def refresh(self, *_: Any) -> None:
        """Redraw the grid and the summary from the view model."""
        vm = self.vm
        grid = self.ids.grid
        grid.clear_widgets()
        app = App.get_running_app()
        if vm is None:
            self.title = app.translator.t("scoring.no_game")
            fill_sections(self.ids.summary, [])
            return
        if self.auto_fill and self.session is not None:
            vm.fill_from_state(self.session)  # start from what the game knows
        self.title = app.translator.t("scoring.title", game=app.translator.t(f"game.{vm.game}"))
        # Categories down, people across: at most 6 people (the king and 5 players) fit a tablet.
        people = vm.rows()
        grid.cols = len(people) + 1
        grid.add_widget(_label("", ROW_LABEL_WIDTH))
        for person in people:
            grid.add_widget(_label(vm.row_label(person), CELL_WIDTH, bold=True, colour=theme.FOCUS))
        for column in vm.columns():
            grid.add_widget(_label(vm.column_label(column), ROW_LABEL_WIDTH, bold=True))
            for person in people:
                grid.add_widget(
                    CountCell(
                        screen=self,
                        row=person,
                        column=column,
                        value=vm.count(person, column),
                        size_hint_x=None,
                        width=dp(CELL_WIDTH),
                    )
                )
        fill_sections(self.ids.summary, vm.summary_sections())


__all__ = ["CountCell", "ScoringScreen"]
