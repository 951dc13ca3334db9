"""King's Breakfast: the panel (king's food and its value, offer, Emeralds, deck, hints) and the
scoring form (the king's and each player's cards, KB-19…KB-23)."""

from __future__ import annotations

from typing import Any

from companion_app.i18n import Translator
from companion_app.viewmodels.describe import describe_action, describe_value
from companion_app.viewmodels.panel import PanelLine, PanelSection, PanelViewModel
from companion_app.viewmodels.scoring import BreakdownLine, ScoringViewModel
from companion_app.viewmodels.session import GameSession
from engines.kings_breakfast import FOODS, scores_from_counts
from engines.kings_breakfast.hints import hints_for_state

GAME = "kings-breakfast"
HINT_PLAYOUTS = 600  # about 60 ms per position; enough to order the actions
HINTS_SHOWN = 3
_ACTING_PHASES = ("act", "emerald")


class KingsBreakfastPanel(PanelViewModel):
    """What a King's Breakfast player wants to see mid-game (see the rules' hints section)."""

    def __init__(self, session: GameSession, tr: Translator) -> None:
        super().__init__(session, tr)
        self._hints: tuple[Any, dict[str, Any] | None] | None = None

    # ---- hints (computed once per position) ---
    def hints(self) -> dict[str, Any] | None:
        """The engine's hints for the player to act, or None when there is no decision."""
        state = self.session.state
        if self._hints is not None and self._hints[0] is state:
            return self._hints[1]
        value: dict[str, Any] | None = None
        if str(self.session.view.get("phase")) in _ACTING_PHASES and not self.session.is_over:
            try:
                value = hints_for_state(
                    state, playouts=HINT_PLAYOUTS, seed=len(self.session.history.actions)
                )
            except ValueError:
                value = None
        self._hints = (state, value)
        return value

    def rank_actions(self, actions: list[Any]) -> list[Any]:
        """Legal actions ordered by the hints (best expected points first)."""
        hints = self.hints()
        if hints is None:
            return actions
        order = {_key(row["action"]): i for i, row in enumerate(hints["actions"])}
        session = self.session
        return sorted(actions, key=lambda a: order.get(_key(session.action_json(a)), len(order)))

    # ---- sections ---
    def turn_section(self) -> PanelSection:
        t = self.tr.t
        view = self.session.view
        section = super().turn_section()
        extra = (
            PanelLine(t("kb.cook"), str(view.get("cook", ""))),
            PanelLine(t("kb.rounds_left"), str(view.get("rounds_left", ""))),
        )
        return PanelSection(section.title, section.lines + extra)

    def game_sections(self) -> list[PanelSection]:
        t = self.tr.t
        view = self.session.view
        king = view.get("king", {})
        offer = view.get("offer", {})
        # the foods the king has, each on its line; those he has not, together on one line
        king_lines = tuple(
            PanelLine(describe_value(self.tr, food), t("kb.value_each", count=king[food]))
            for food in FOODS
            if king.get(food, 0)
        )
        missing = [describe_value(self.tr, food) for food in FOODS if not king.get(food, 0)]
        if missing:
            king_lines += (PanelLine(", ".join(missing), "—", "warn"),)
        offer_lines = [
            PanelLine(describe_value(self.tr, food), f"× {count}", "focus")
            for food, count in offer.items()
            if count
        ]
        if not offer_lines:
            offer_lines.append(PanelLine(t("kb.offer_empty")))
        offer_lines.append(
            PanelLine(t("kb.emeralds_on_table"), str(view.get("emeralds_on_table", 0)))
        )
        removed = view.get("removed", {})
        deck_lines = (
            PanelLine(t("kb.deck_count"), str(view.get("deck_count", ""))),
            PanelLine(t("kb.emeralds_used"), str(removed.get("emerald", 0))),
        )
        hand_lines = []
        for name, hand in view.get("hands", {}).items():
            taken = ", ".join(
                f"{describe_value(self.tr, food)} {count}"
                for food, count in hand.get("taken", {}).items()
                if count
            )
            hidden = hand.get("hidden_draws", 0)
            text = taken or "—"
            if hidden:
                text += " " + t("kb.hidden", count=hidden)
            tone = "focus" if name == self.session.player_to_act else "plain"
            hand_lines.append(PanelLine(name, text, tone))
        sections = [
            PanelSection(t("kb.king"), king_lines),
            PanelSection(t("kb.offer"), tuple(offer_lines)),
            PanelSection(t("kb.deck"), deck_lines),
            PanelSection(t("kb.hands"), tuple(hand_lines)),
        ]
        hint_section = self.hint_section()
        if hint_section is not None:
            sections.insert(1, hint_section)  # the king's totals first: what every card is worth
        return sections

    def hint_section(self) -> PanelSection | None:
        """The best actions for the player to act with expected points and chance to win."""
        hints = self.hints()
        if not hints or not hints.get("actions"):
            return None
        t = self.tr.t
        lines = []
        for rank, row in enumerate(hints["actions"][:HINTS_SHOWN]):
            text = describe_action(self.tr, GAME, row["action"])
            value = t(
                "kb.hint_value",
                points=f"{row['expected_points']:.0f}",
                win=f"{row['win_chance']:.0%}",
            )
            lines.append(PanelLine(text, value, "good" if rank == 0 else "plain"))
        return PanelSection(t("kb.hints", name=hints.get("player", "")), tuple(lines))


def _key(action_json: dict[str, Any]) -> str:
    return repr(sorted(action_json.items()))


class KingsBreakfastScoring(ScoringViewModel):
    """The king's row and one row per player, one column per food (KB-19…KB-23)."""

    game = GAME
    scans_photos = True

    def rows(self) -> list[str]:
        return ["king", *self.players]

    def columns(self) -> list[str]:
        return list(FOODS)

    def row_label(self, row: str) -> str:
        return self.tr.t("kb.king_row") if row == "king" else row

    def counts_json(self) -> dict[str, Any]:
        """The counts in the `score kings-breakfast --counts` contract shape."""

        def row(name: str) -> dict[str, int]:
            return {food: self.count(name, food) for food in FOODS if self.count(name, food)}

        return {"king": row("king"), "players": {p: row(p) for p in self.players}}

    def result(self) -> dict[str, Any]:
        return {"game": GAME, **scores_from_counts(self.counts_json())}

    def breakdown(self) -> list[BreakdownLine]:
        t = self.tr.t
        result = self.result()
        lines: list[BreakdownLine] = []
        for player in self.players:
            by_food = result["players"][player]["by_food"]
            for food in FOODS:
                held, king = self.count(player, food), self.count("king", food)
                if not held:
                    continue
                fields: dict[str, Any] = {
                    "held": held,
                    "king": king,
                    "food": describe_value(self.tr, food),
                }
                if king == 0:
                    clause, text = "KB-22", t("kb.line.none", **fields)
                elif held > king:
                    clause, text = "KB-20", t("kb.line.greedy", **fields)
                else:
                    clause, text = "KB-21", t("kb.line.points", **fields)
                lines.append(BreakdownLine(player, clause, text, int(by_food.get(food, 0))))
            discarded = result["players"][player]["discarded"]
            if discarded:
                lines.append(
                    BreakdownLine(player, "KB-23", t("kb.line.tie_break", count=discarded))
                )
        return lines

    def photo_name(self, row: str) -> str:
        return "photo of the king's area" if row == "king" else f"photo of {row}'s cards"

    def counts_from_reading(
        self, row: str, observation: Any, session: Any = None
    ) -> dict[str, int]:
        # every food, so a food the photo does not show is 0; an Emerald in a hand scores
        # nothing by itself (KB-19) and has no column
        return {food: int(observation.get(food, 0)) for food in FOODS}

    def fill_from_state(self, session: Any) -> None:
        state = session.state
        self.clear()
        for food, count in zip(FOODS, state.king, strict=True):
            self.set_count("king", food, count)
        for index, name in enumerate(state.players):
            if name in self.players:
                for food, count in zip(FOODS, state.hand(index), strict=True):
                    self.set_count(name, food, count)


SCORING = KingsBreakfastScoring

__all__ = ["SCORING", "KingsBreakfastPanel", "KingsBreakfastScoring"]
