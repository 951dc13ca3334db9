"""The History screen's view model: the game's log by round, with undo and redo."""

from __future__ import annotations

from dataclasses import dataclass

from companion_app.i18n import Translator
from companion_app.viewmodels.describe import describe_action
from companion_app.viewmodels.session import GameSession


@dataclass(frozen=True)
class HistoryRound:
    """One round of the log: its title and one text line per step, oldest first."""

    title: str
    lines: tuple[str, ...]


class HistoryViewModel:
    """Reads the session's log; forwards undo and redo to it."""

    def __init__(self, session: GameSession, tr: Translator) -> None:
        self.session = session
        self.tr = tr

    def rounds(self) -> list[HistoryRound]:
        """The log grouped by round, newest round first."""
        t = self.tr.t
        rounds: list[HistoryRound] = []
        for number, entries in self.session.log_by_round():
            title = t("history.round", number=number) if number is not None else t("history.game")
            lines = []
            for entry in entries:
                text = describe_action(self.tr, self.session.game, entry.action)
                who = (
                    t("history.table") if entry.is_chance or entry.player is None else entry.player
                )
                lines.append(f"{entry.step}. {who}: {text}")
            rounds.append(HistoryRound(title, tuple(lines)))
        return rounds

    @property
    def can_undo(self) -> bool:
        """Whether undo is possible."""
        return self.session.can_undo

    @property
    def can_redo(self) -> bool:
        """Whether redo is possible."""
        return self.session.can_redo

    def undo_text(self) -> str:
        """The undo button's text, naming the step it takes back."""
        if not self.session.can_undo:
            return self.tr.t("history.undo")
        last = self.session.action_json(self.session.history.actions[-1])
        return self.tr.t(
            "history.undo_step", step=describe_action(self.tr, self.session.game, last)
        )

    def redo_text(self) -> str:
        """The redo button's text, naming the step it replays."""
        if not self.session.can_redo:
            return self.tr.t("history.redo")
        nxt = self.session.action_json(self.session.history.redo_stack[-1])
        return self.tr.t("history.redo_step", step=describe_action(self.tr, self.session.game, nxt))

    def undo(self) -> None:
        """Take back the last step (no-op when there is none)."""
        if self.session.can_undo:
            self.session.undo()

    def redo(self) -> None:
        """Replay the last undone step (no-op when there is none)."""
        if self.session.can_redo:
            self.session.redo()


__all__ = ["HistoryRound", "HistoryViewModel"]
