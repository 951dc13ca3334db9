"""Kivy-free view models: what each screen shows and the intents it forwards, as plain Python.

`GameSession` (session) is a game in progress: engine, history, players, autosave, undo/redo and
a log by round. Screen view models: `HomeViewModel`, `TableViewModel`, `ScoringViewModel`
(via `scoring_for`), `HistoryViewModel`, `SettingsViewModel`, and `CorrectionsViewModel` (the
player's word on a recognised piece). Game panels (`PANELS`, game name → panel class) turn an
engine's public view into `PanelSection`s; `describe` turns engine values into translated text.
Nothing here imports Kivy; tests run in milliseconds without a window.

Public names: `GameSession`, `Player`, `HomeViewModel`, `TableViewModel`, `HistoryViewModel`,
`SettingsViewModel`, `Settings`, `CorrectionsViewModel`, `PanelSection`, `PanelLine`, `PANELS`,
`scoring_for`.
"""

from __future__ import annotations

from companion_app.viewmodels.cafe_international import CafePanel
from companion_app.viewmodels.corrections import CorrectionsViewModel
from companion_app.viewmodels.dice_king import DiceKingPanel
from companion_app.viewmodels.history import HistoryViewModel
from companion_app.viewmodels.home import HomeViewModel
from companion_app.viewmodels.kings_breakfast import KingsBreakfastPanel
from companion_app.viewmodels.panel import GenericPanel, PanelLine, PanelSection, PanelViewModel
from companion_app.viewmodels.scoring import ScoringViewModel, scoring_for
from companion_app.viewmodels.session import GameSession, Player
from companion_app.viewmodels.settings import Settings, SettingsViewModel
from companion_app.viewmodels.table import TableViewModel

PANELS: dict[str, type[PanelViewModel]] = {
    "kings-breakfast": KingsBreakfastPanel,
    "cafe-international": CafePanel,
    "dice-king": DiceKingPanel,
}

__all__ = [
    "PANELS",
    "CorrectionsViewModel",
    "GameSession",
    "GenericPanel",
    "HistoryViewModel",
    "HomeViewModel",
    "PanelLine",
    "PanelSection",
    "PanelViewModel",
    "Player",
    "ScoringViewModel",
    "Settings",
    "SettingsViewModel",
    "TableViewModel",
    "scoring_for",
]
