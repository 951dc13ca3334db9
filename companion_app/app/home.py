"""The Home screen: choose a game, seat the players, pick who starts, resume a saved game."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion_app.app import theme
from companion_app.app.widgets import BigButton, resize_children
from companion_app.viewmodels.describe import game_name
from companion_app.viewmodels.home import COLOURS, PLAYER_RANGE, HomeViewModel

Builder.load_file(__file__.replace(".py", ".kv"))

# The word for "starts" differs per game: the first cook, the first king, the first player.
_STARTS_KEYS = {
    "kings-breakfast": "home.first_cook",
    "cafe-international": "home.first_player",
    "dice-king": "home.first_king",
}


class PlayerRowView(BoxLayout):
    """One seat: colour, name, move up/down, starts, remove."""

    screen = ObjectProperty(None)
    index = NumericProperty(0)
    name = StringProperty("")
    colour = ColorProperty(theme.SURFACE_HIGH)
    starts = BooleanProperty(False)
    starts_text = StringProperty("")


class SavedGameRow(BigButton):
    """A saved game to resume."""

    game_id = StringProperty("")


class HomeScreen(Screen):
    """Forwards taps to `HomeViewModel`; redraws from it after every change."""

    vm: HomeViewModel | None = None
    players_title = StringProperty("")
    problems = StringProperty("")
    can_start = BooleanProperty(True)
    can_add = BooleanProperty(True)

    def bind_vm(self, vm: HomeViewModel) -> None:
        """Show `vm` and redraw after every change it makes."""
        self.vm = vm
        vm.add_listener(self.refresh)
        self.refresh()

    def vm_call(self, name: str, *args: Any) -> None:
        """Forward an intent to the view model."""
        if self.vm is not None:
            getattr(self.vm, name)(*args)

    def refresh(self, *_: Any) -> None:
        """Redraw everything from the view model (cheap: a handful of widgets)."""
        vm = self.vm
        if vm is None:
            return
        app = App.get_running_app()
        t = app.translator.t
        low, high = PLAYER_RANGE[vm.game]
        self.players_title = t("home.players", low=low, high=high)
        self.problems = "\n".join(problem.text(t) for problem in vm.problems())
        self.can_start = vm.can_start
        self.can_add = len(vm.players) < high
        games = resize_children(self.ids.games, len(PLAYER_RANGE), self._make_game_button)
        for button, (game, (g_low, g_high)) in zip(games, PLAYER_RANGE.items(), strict=True):
            button.game = game
            button.text = f"{game_name(app.translator, game)}   ({g_low}–{g_high})"
            button.selected = game == vm.game
        starts_text = t(_STARTS_KEYS[vm.game])
        rows = resize_children(
            self.ids.players, len(vm.players), lambda: PlayerRowView(screen=self)
        )
        for index, (row, player) in enumerate(zip(rows, vm.players, strict=True)):
            row.index = index
            row.name = player.name
            row.colour = COLOURS.get(player.colour, theme.SURFACE_HIGH)
            row.starts = index == vm.first
            row.starts_text = starts_text
        infos = vm.saved_games()
        saved = resize_children(self.ids.saved, max(1, len(infos)), self._make_saved_row)
        if not infos:
            saved[0].game_id = ""
            saved[0].text = t("home.no_saved")
            saved[0].disabled = True
        for row, info in zip(saved, infos, strict=False):
            state = t("home.finished") if info.finished else t("home.in_progress")
            when = info.updated[:16].replace("T", " ")
            row.game_id = info.game_id
            row.disabled = False
            row.text = (
                f"{game_name(app.translator, info.game)} · {', '.join(info.players)}\n"
                f"{t('home.steps', steps=info.steps)} · {state} · {when}"
            )

    def _make_game_button(self) -> BigButton:
        button = BigButton(height=dp(76))
        button.bind(on_release=lambda b: self.vm_call("choose_game", b.game))
        return button

    def _make_saved_row(self) -> SavedGameRow:
        row = SavedGameRow(font_size=sp(theme.FONT_SMALL), height=dp(76))
        row.bind(on_release=lambda r: r.game_id and App.get_running_app().resume_game(r.game_id))
        return row
