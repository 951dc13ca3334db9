"""What a game panel shows, as plain data: titled sections of labelled lines.

Every game's panel view model (`kings_breakfast.py`, `cafe_international.py`, `dice_king.py`)
builds `PanelSection`s from the engine's public view; the Kivy panel draws any list of sections the
same way, so a new figure in a panel is a line here, not a new widget. `GenericPanel` shows an
engine's public view as it is, for a game without a panel of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion_app.i18n import Translator
from companion_app.viewmodels.describe import describe_value
from companion_app.viewmodels.session import GameSession

# Tones the screen maps to colours: plain text, good news, a warning, the thing to look at now.
TONES = ("plain", "good", "warn", "focus")


@dataclass(frozen=True)
class PanelLine:
    """One labelled figure: ``label … value``; `tone` is one of `TONES`."""

    label: str
    value: str = ""
    tone: str = "plain"


@dataclass(frozen=True)
class PanelSection:
    """A titled group of lines."""

    title: str
    lines: tuple[PanelLine, ...] = field(default_factory=tuple)


class PanelViewModel:
    """Base of the per-game panels: the session, a translator, and `sections()`."""

    def __init__(self, session: GameSession, tr: Translator) -> None:
        self.session = session
        self.tr = tr

    def sections(self) -> list[PanelSection]:
        """The panel's contents for the current state."""
        return [self.turn_section(), *self.game_sections(), self.scores_section()]

    def turn_section(self) -> PanelSection:
        """Round, whose turn, or that the game is over."""
        t = self.tr.t
        session = self.session
        lines: list[PanelLine] = []
        if session.round is not None:
            lines.append(PanelLine(t("panel.round"), str(session.round)))
        if session.is_over:
            lines.append(PanelLine(t("panel.game_over"), "", "focus"))
        elif session.is_chance_node:
            lines.append(PanelLine(t("panel.waiting_for_table"), "", "focus"))
        elif session.player_to_act is not None:
            lines.append(PanelLine(t("panel.turn_of"), session.player_to_act, "focus"))
        return PanelSection(t("panel.turn"), tuple(lines))

    def game_sections(self) -> list[PanelSection]:
        """The game's own sections (subclasses); the generic panel lists the public view."""
        lines = tuple(
            PanelLine(str(key).replace("_", " "), _short(describe_value(self.tr, value)))
            for key, value in self.session.view.items()
        )
        return [PanelSection(self.tr.t("panel.table"), lines)]

    def scores_section(self) -> PanelSection:
        """Every player's score now, best first."""
        scores = self.session.scores()
        ordered = sorted(scores.items(), key=lambda item: -item[1])
        lines = tuple(PanelLine(name, str(points)) for name, points in ordered)
        return PanelSection(self.tr.t("panel.scores"), lines)


class GenericPanel(PanelViewModel):
    """The public view, key by key: a fallback for a game without its own panel."""


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lines_from_counts(
    tr: Translator, counts: dict[str, Any], *, tone: str = "plain"
) -> tuple[PanelLine, ...]:
    """One line per piece id with its count, piece names translated, zero counts left out."""
    return tuple(
        PanelLine(describe_value(tr, piece), str(count), tone)
        for piece, count in counts.items()
        if count
    )


__all__ = [
    "TONES",
    "GenericPanel",
    "PanelLine",
    "PanelSection",
    "PanelViewModel",
    "lines_from_counts",
]
