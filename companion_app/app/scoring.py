"""The Scoring screen: counts entered with big − / + buttons or read from a photo of a player's
spread pieces (the camera's picture, read off the UI thread), the ranking and the breakdown."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen

from companion_app.app import theme
from companion_app.app.table import fit_to, frame_texture
from companion_app.app.widgets import fill_sections
from companion_app.storage import StorageError
from companion_app.viewmodels.scoring import ScanResult, ScoringViewModel, annotate_scan

Builder.load_file(__file__.replace(".py", ".kv"))

CELL_WIDTH = 140
# how long a scanned picture, its pieces boxed, stays in place of the camera's
SCAN_SHOWN_S = 10.0
ROW_LABEL_WIDTH = 150


class ScanButton(BoxLayout):
    """Reads the camera's picture into one person's counts."""

    screen = ObjectProperty(None)
    row = StringProperty("")


class PictureView(ButtonBehavior, Image):
    """The camera's (or the scanned) picture; a tap shows it large."""


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
    scan_message = StringProperty("")
    scanning = BooleanProperty(False)
    has_session = BooleanProperty(False)
    _scanned_until = 0.0  # monotonic time the scanned picture gives way to the camera's
    _picture: np.ndarray | None = None  # the picture shown, full size (for `enlarge_picture`)

    def bind_vm(self, vm: ScoringViewModel | None, session: Any = None) -> None:
        """Show the form `vm` (of `session`'s game, when there is one)."""
        self.vm = vm
        self.session = session
        self.has_session = session is not None
        self.auto_fill = True
        self.scan_message = ""
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

    def show_frame(self, frame: np.ndarray, *, scanned: bool = False) -> None:
        """The camera's picture, small, so players can aim it at a spread before scanning; a
        `scanned` picture (its pieces boxed) stays for `SCAN_SHOWN_S` in place of the camera's."""
        now = time.monotonic()
        if scanned:
            self._scanned_until = now + SCAN_SHOWN_S
        elif now < self._scanned_until:
            return
        self._picture = frame
        preview = self.ids.camera
        preview.texture = frame_texture(fit_to(frame, tuple(preview.size)), preview.texture)
        preview.canvas.ask_update()

    def enlarge_picture(self) -> Popup | None:
        """Show the picture (a scanned one with its pieces boxed) filling most of the window,
        so that each piece's name can be checked; a tap anywhere closes it."""
        if self._picture is None:
            return None
        from kivy.core.window import Window

        big = fit_to(self._picture, (Window.width * 0.95, Window.height * 0.85))
        view = PictureView(texture=frame_texture(big), fit_mode="contain")
        popup = Popup(
            title=App.get_running_app().translator.t("scoring.picture"),
            title_size=sp(theme.FONT_LARGE),
            content=view,
            size_hint=(0.98, 0.98),
        )
        view.bind(on_release=lambda *_: popup.dismiss())
        popup.open()
        return popup

    def scan(self, row: str) -> None:
        """Read the camera's newest picture as a photo of `row`'s spread pieces (a few seconds,
        off the UI thread); its counts replace the row's, a refused photo says why."""
        app = App.get_running_app()
        vm = self.vm
        if vm is None or self.scanning:
            return
        live = getattr(app, "live", None)
        latest = live.latest_frame() if live is not None else None
        if live is None or latest is None:
            self.scan_message = app.translator.t("scoring.scan_no_picture")
            return
        if live.paused:  # its picture is an old one, not what the camera sees now
            self.scan_message = app.translator.t("scoring.scan_paused")
            return
        if getattr(app, "camera_is_demo_clip", False):
            # the recording shows the whole table: read as one spread, every card in view
            # (villages, the penalty pile, the row) would be counted as one player's
            self.scan_message = app.translator.t("scoring.scan_demo")
            return
        frame = latest[1].copy()
        session = self.session
        self.scanning = True
        self.scan_message = app.translator.t("scoring.scan_reading", name=vm.row_label(row))

        def read() -> None:
            try:
                result = vm.read_photo(row, frame, session)
            except Exception as error:  # shown, never a crash of the app
                result = ScanResult(row, {}, (f"{type(error).__name__}: {error}",))
            Clock.schedule_once(lambda _dt: self._scanned(vm, result, frame))

        threading.Thread(target=read, name="scoring-photo", daemon=True).start()

    def _scanned(self, vm: ScoringViewModel, result: ScanResult, frame: np.ndarray) -> None:
        """A photo has been read (UI thread): fill its row, or say why it was refused; show
        the picture with its pieces boxed."""
        self.scanning = False
        if vm is not self.vm:  # another game's form since: its counts are not this photo's
            return
        self.show_frame(annotate_scan(frame, result), scanned=True)
        tr = App.get_running_app().translator.t
        name = vm.row_label(result.row)
        if result.ok:
            vm.apply_scan(result)
            self.auto_fill = False  # the photo's counts, not the game's
            self.scan_message = tr("scoring.scan_done", name=name)
        else:
            from vision.readers.photos import retake_helps

            problem = result.problems[0]
            self.scan_message = tr("scoring.scan_refused", name=name, problem=problem)
            if any(identity is None for _, identity in result.pieces):
                self.scan_message += " " + tr("scoring.scan_marked")
            if retake_helps(problem):
                self.scan_message += " " + tr("scoring.scan_retake")
                if vm.game == "dice-king":  # a covered number hides a penalty card's value
                    self.scan_message += " " + tr("scoring.scan_retake_penalty")
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
        scannable = vm.scannable_rows()
        if scannable:
            grid.add_widget(_label(app.translator.t("scoring.photo_row"), ROW_LABEL_WIDTH))
            for person in people:
                if person in scannable:
                    cell: Any = ScanButton(
                        screen=self, row=person, size_hint_x=None, width=dp(CELL_WIDTH)
                    )
                else:
                    cell = _label("", CELL_WIDTH)
                grid.add_widget(cell)
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


__all__ = ["CountCell", "PictureView", "ScanButton", "ScoringScreen"]
