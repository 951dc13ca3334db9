"""The Table screen's view model: the game panel, the choices to tap, the live status line.

Until perception lands, what happens at the table is entered by tapping: the legal actions of the
player to act, or at a chance step (a deal, a draw, a roll) its outcomes or "at random". When the
live loop's perception reports an observation, the same `choose` path applies the action the
engine finds for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion_app.i18n import Translator
from companion_app.viewmodels.describe import describe_action
from companion_app.viewmodels.panel import GenericPanel, PanelSection, PanelViewModel
from companion_app.viewmodels.session import GameSession

MAX_CHOICES = 12


@dataclass(frozen=True)
class Choice:
    """A tappable choice: its text and the engine action it applies."""

    text: str
    action: Any
    probability: float | None = None


PanelFactory = Callable[[GameSession, Translator], PanelViewModel]


def panel_for(session: GameSession, tr: Translator) -> PanelViewModel:
    """The game's own panel view model, or the generic one."""
    from companion_app.viewmodels import PANELS  # the registry imports the game panels

    factory: PanelFactory = PANELS.get(session.game, GenericPanel)
    return factory(session, tr)


class TableViewModel:
    """The session's panel and choices, plus the preview's status (paused, FPS, latency)."""

    def __init__(self, session: GameSession, tr: Translator) -> None:
        self.session = session
        self.tr = tr
        self.panel = panel_for(session, tr)
        self.paused = False
        self.message: str | None = None

    def sections(self) -> list[PanelSection]:
        """The game panel's sections for the current state."""
        return self.panel.sections()

    def prompt(self) -> str:
        """What the table is waiting for, in one line."""
        t = self.tr.t
        session = self.session
        if session.is_over:
            return t("table.prompt.over")
        if session.is_chance_node:
            key = f"table.prompt.chance.{session.game}"
            return t(key) if self.tr.has(key) else t("table.prompt.chance")
        player = session.player_to_act
        return t("table.prompt.player", name=player) if player else t("table.prompt.action")

    def choices(self, limit: int = MAX_CHOICES) -> list[Choice]:
        """The choices to show: legal actions, or chance outcomes (most likely first)."""
        session = self.session
        game = session.game
        if session.is_chance_node:
            outcomes = sorted(session.chance_outcomes(), key=lambda item: -item[1])[:limit]
            return [
                Choice(
                    f"{describe_action(self.tr, game, session.action_json(a))} ({p:.0%})",
                    a,
                    p,
                )
                for a, p in outcomes
            ]
        ranked = self.panel_ranked_actions()
        return [
            Choice(describe_action(self.tr, game, session.action_json(action)), action)
            for action in ranked[:limit]
        ]

    def panel_ranked_actions(self) -> list[Any]:
        """Legal actions, best first when the game's panel knows how to rank them."""
        rank = getattr(self.panel, "rank_actions", None)
        actions = self.session.legal_actions()
        return list(rank(actions)) if callable(rank) else actions

    def choose(self, choice: Choice) -> bool:
        """Apply a tapped choice; returns whether the engine took it (else `message` says why)."""
        try:
            self.session.apply(choice.action)
        except ValueError as error:
            self.message = str(error)
            return False
        self.message = None
        return True

    def play_chance(self) -> bool:
        """Let chance decide the pending deal, draw or roll (the demo's "at random")."""
        if not self.session.is_chance_node:
            return False
        self.session.play_chance()
        self.message = None
        return True

    def toggle_pause(self) -> bool:
        """Pause or resume the live view; returns the new paused state."""
        self.paused = not self.paused
        return self.paused

    def status(
        self, preview_fps: float | None, latency_ms: float | None, perceiving: bool = True
    ) -> str:
        """The live status line: preview FPS and perception latency (or that it is paused).

        `perceiving` is False while no recognition is installed (the placeholder perception).
        """
        t = self.tr.t
        if self.paused:
            return t("table.status.paused")
        fps = "–" if preview_fps is None else f"{preview_fps:.0f}"
        if not perceiving:
            return t("table.status.no_perception", fps=fps)
        latency = "–" if latency_ms is None else f"{latency_ms:.0f}"
        return t("table.status.live", fps=fps, latency=latency)


LOW_PREVIEW_FPS = 21.0  # a preview slower than this is uploaded at REDUCED_PREVIEW of the view
REDUCED_PREVIEW = 0.75


def next_preview_scale(preview_fps: float | None, scale: float) -> float:
    """The share of the view's pixels the preview is uploaded at: once the measured preview rate
    falls under `LOW_PREVIEW_FPS` (software OpenGL spends most of a frame uploading the
    texture), `REDUCED_PREVIEW` for the rest of the live session; a device that keeps up never
    leaves full size."""
    if preview_fps is not None and preview_fps < LOW_PREVIEW_FPS:
        return min(scale, REDUCED_PREVIEW)
    return scale


__all__ = [
    "Choice",
    "LOW_PREVIEW_FPS",
    "MAX_CHOICES",
    "REDUCED_PREVIEW",
    "TableViewModel",
    "next_preview_scale",
    "panel_for",
]
