"""Dice King: the panel (dice as read, cards they meet, villages, exact keep advice, kingdoms)
and the scoring form (the parts of each kingdom, DK-20, DK-25, DK-26)."""

from __future__ import annotations

from typing import Any

from companion_app.i18n import Translator
from companion_app.viewmodels.describe import describe_value
from companion_app.viewmodels.panel import PanelLine, PanelSection, PanelViewModel
from companion_app.viewmodels.scoring import BreakdownLine, ScoringViewModel
from companion_app.viewmodels.session import GameSession
from engines.dice_king.advisor import advise, advised_action, request_from_state
from engines.dice_king.catalogue import companion_deck
from engines.dice_king.scoring import KingdomScore, score_kingdom

GAME = "dice-king"
KEEPS_SHOWN = 3
DIE_FACES = "⚀⚁⚂⚃⚄⚅"


def die_text(tr: Translator, reading: str) -> str:
    """A die reading such as ``5r`` as ``⚄ 5 red``."""
    value, colour = reading[:-1], reading[-1:]
    face = DIE_FACES[int(value) - 1] if value.isdigit() and 1 <= int(value) <= 6 else "?"
    return f"{face}{value} {describe_value(tr, colour)}"


class DiceKingPanel(PanelViewModel):
    """What a Dice King player wants to see (see the rules' last section)."""

    def __init__(self, session: GameSession, tr: Translator) -> None:
        super().__init__(session, tr)
        self._advice: tuple[Any, Any] | None = None

    def advice(self) -> Any:
        """The engine's exact keep advice for the six dice on the table (None without them)."""
        state = self.session.state
        if self._advice is not None and self._advice[0] is state:
            return self._advice[1]
        value = None
        view = self.session.view
        if len(view.get("dice", [])) == 6 and view.get("phase") == "roll":
            try:
                value = advise(request_from_state(state))
            except ValueError:
                value = None
        self._advice = (state, value)
        return value

    def rank_actions(self, actions: list[Any]) -> list[Any]:
        """The advisor's own play first, then the rest."""
        try:
            best = advised_action(self.session.state)
        except ValueError:
            return actions
        return sorted(actions, key=lambda action: action != best)

    def card_text(self, card_id: str) -> str:
        """A card as ``rich snob · 4 pts``."""
        try:
            card = self.session.state.deck.card(card_id)
        except (KeyError, ValueError, AttributeError):
            return card_id
        kind = self.tr.t(f"dk.type.{card.type.value}")
        return self.tr.t("dk.card", kind=kind, points=card.points)

    def turn_section(self) -> PanelSection:
        t = self.tr.t
        section = super().turn_section()
        view = self.session.view
        extra = (PanelLine(t("dk.rolls_left"), str(view.get("rolls_left", ""))),)
        return PanelSection(section.title, section.lines + extra)

    def game_sections(self) -> list[PanelSection]:
        t = self.tr.t
        view = self.session.view
        dice = view.get("dice", [])
        dice_lines = (
            (PanelLine("   ".join(die_text(self.tr, d) for d in dice)),)
            if dice
            else (PanelLine(t("dk.no_dice")),)
        )
        satisfied = set(view.get("satisfied", []))
        advice = self.advice()
        villages_with = set(getattr(advice, "villages_with", ()) or ())
        row_lines = []
        for slot in view.get("row", []):
            if not slot:
                continue
            card_id = slot["card"]
            met = card_id in satisfied
            value = t("dk.met") if met else ""
            if slot.get("village") and (met or not advice):
                value += (" + " if value else "") + t("dk.village")
            row_lines.append(
                PanelLine(
                    f"{card_id}: {self.card_text(card_id)}",
                    value,
                    "good" if met else "plain",
                )
            )
        del villages_with
        sections = [
            PanelSection(t("dk.dice"), dice_lines),
            PanelSection(t("dk.row"), tuple(row_lines)),
        ]
        if advice is not None and view.get("rolls_left", 0) and advice.keeps:
            lines = []
            for rank, keep in enumerate(advice.keeps[:KEEPS_SHOWN]):
                kept = (
                    describe_value(self.tr, list(keep.keep)) if keep.keep else t("dk.keep_nothing")
                )
                chance = keep.probabilities.get(keep.target, 0.0)
                lines.append(
                    PanelLine(
                        t("dk.keep", keep=kept, target=keep.target),
                        f"{chance:.1%}",
                        "good" if rank == 0 else "plain",
                    )
                )
            sections.insert(1, PanelSection(t("dk.keeps"), tuple(lines)))
        villages = view.get("villages", {})
        supply = (
            PanelLine(t("dk.inhabitants_left"), str(view.get("inhabitants_left", ""))),
            PanelLine(t("dk.penalties_left"), str(view.get("penalties_left", ""))),
            PanelLine(
                t("dk.villages"),
                " ".join(f"{v}" if v is not None else "—" for v in villages.values()),
            ),
        )
        sections.append(PanelSection(t("dk.supply"), supply))
        return sections

    def scores_section(self) -> PanelSection:
        t = self.tr.t
        kingdoms = self.session.view.get("kingdoms", {})
        ordered = sorted(kingdoms.items(), key=lambda item: -item[1].get("score", 0))
        lines = tuple(
            PanelLine(
                name,
                t("dk.kingdom", score=k.get("score", 0), cards=len(k.get("cards", []))),
                "focus" if name == self.session.player_to_act else "plain",
            )
            for name, k in ordered
        )
        return PanelSection(t("dk.kingdoms"), lines)


_PARTS = ("inhabitants", "villages", "penalties", "dragons", "fairies", "penalty_cards")


class DiceKingScoring(ScoringViewModel):
    """One row per player; columns are the parts of a kingdom's score (DK-25)."""

    game = GAME
    scans_photos = True

    def columns(self) -> list[str]:
        return list(_PARTS)

    def kingdom(self, player: str) -> KingdomScore:
        """The player's counts as the engine's `KingdomScore`."""
        return KingdomScore(**{part: self.count(player, part) for part in _PARTS})

    def result(self) -> dict[str, Any]:
        kingdoms = {p: self.kingdom(p) for p in self.players}
        # DK-26: highest score; a tie goes to fewer penalty cards; still tied is shared.
        key = {p: (-k.total, k.penalty_cards) for p, k in kingdoms.items()}
        ranking = sorted(self.players, key=lambda p: key[p])
        winners = [p for p in ranking if key[p] == key[ranking[0]]] if ranking else []
        players = {
            p: {"total": k.total, "fairy_bonus": k.fairy_bonus, "penalty_cards": k.penalty_cards}
            for p, k in kingdoms.items()
        }
        return {"game": GAME, "players": players, "ranking": ranking, "winners": winners}

    def breakdown(self) -> list[BreakdownLine]:
        t = self.tr.t
        lines: list[BreakdownLine] = []
        for p in self.players:
            k = self.kingdom(p)
            parts = (
                ("DK-25", "dk.line.inhabitants", k.inhabitants),
                ("DK-10", "dk.line.villages", k.villages),
                ("DK-11", "dk.line.penalties", -k.penalties),
                ("DK-22", "dk.line.dragons", -k.dragons),
                ("DK-20", "dk.line.fairies", k.fairy_bonus),
            )
            for clause, key, points in parts:
                if points:
                    lines.append(BreakdownLine(p, clause, t(key, fairies=k.fairies), points))
            if k.penalty_cards:
                lines.append(
                    BreakdownLine(p, "DK-26", t("dk.line.tie_break", count=k.penalty_cards))
                )
        return lines

    def photo_name(self, row: str) -> str:
        return f"photo of {row}'s kingdom"

    def counts_from_reading(
        self, row: str, observation: Any, session: Any = None
    ) -> dict[str, int]:
        # the game's own deck when there is one (a deck file of the user's printing), else the
        # companion deck the photo reader knows (DK-25)
        deck = session.state.deck if session is not None else companion_deck()
        kingdom = score_kingdom(deck, list(observation))
        return {part: getattr(kingdom, part) for part in _PARTS}

    def fill_from_state(self, session: Any) -> None:
        state = session.state
        self.clear()
        for name, pile in zip(state.players, state.kingdoms, strict=True):
            if name in self.players:
                kingdom = score_kingdom(state.deck, pile)
                for part in _PARTS:
                    self.set_count(name, part, getattr(kingdom, part))

    def column_bounds(self, column: str) -> tuple[int, int]:
        return (0, 999)


SCORING = DiceKingScoring

__all__ = ["SCORING", "DiceKingPanel", "DiceKingScoring", "die_text"]
