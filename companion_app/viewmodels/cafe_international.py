"""Café International: the panel (scores, bar tally, hand limits, bag, best placements) and the
scoring form (running points minus tiles left in hand, CI-22)."""

from __future__ import annotations

from typing import Any

from companion_app.i18n import Translator
from companion_app.viewmodels.describe import describe_action, describe_tile
from companion_app.viewmodels.panel import PanelLine, PanelSection, PanelViewModel
from companion_app.viewmodels.scoring import BreakdownLine, ScoringViewModel
from companion_app.viewmodels.session import GameSession
from engines.cafe_international.advisor import advise, scored_to_json
from engines.cafe_international.scoring import JOKER_PENALTY, TILE_PENALTY, ranking, winners

GAME = "cafe-international"
ADVICE_SHOWN = 4


def _signed(number: int) -> str:
    return f"+{number}" if number > 0 else str(number).replace("-", "−")


class CafePanel(PanelViewModel):
    """What a Café International player wants to see (see the rules' last section)."""

    def __init__(self, session: GameSession, tr: Translator) -> None:
        super().__init__(session, tr)
        self._advice: tuple[Any, list[Any]] | None = None

    def advice(self) -> list[Any]:
        """The engine's scored actions for the player to move, best first (cached per state)."""
        state = self.session.state
        if self._advice is not None and self._advice[0] is state:
            return self._advice[1]
        value: list[Any] = []
        if not self.session.is_over and not self.session.is_chance_node:
            try:
                value = advise(state)
            except ValueError:
                value = []
        self._advice = (state, value)
        return value

    def rank_actions(self, actions: list[Any]) -> list[Any]:
        """Legal actions in the advisor's order (most points first)."""
        order = {scored.action: i for i, scored in enumerate(self.advice())}
        return sorted(actions, key=lambda action: order.get(action, len(order)))

    def game_sections(self) -> list[PanelSection]:
        t = self.tr.t
        view = self.session.view
        bar = view.get("bar", {})
        next_value = bar.get("next_value")
        bar_lines = (
            PanelLine(t("ci.stools_taken"), f"{bar.get('taken', 0)} / 20"),
            PanelLine(t("ci.bar_points"), _signed(int(bar.get("points_given", 0)))),
            PanelLine(
                t("ci.next_stool", stool=bar.get("next_stool") or "—"),
                "—" if next_value is None else _signed(int(next_value)),
                "warn" if (next_value or 0) < 0 else "good",
            ),
        )
        hand_lines = []
        for player in view.get("players", []):
            name = player.get("name", "")
            hand = player.get("hand", [])
            tone = "focus" if name == self.session.player_to_act else "plain"
            hand_lines.append(
                PanelLine(
                    name,
                    t("ci.hand_value", held=len(hand), limit=player.get("hand_limit", 0)),
                    tone,
                )
            )
        table_lines = (
            PanelLine(t("ci.bag"), str(view.get("bag", ""))),
            PanelLine(t("ci.seated"), str(len(view.get("seated", {})))),
        )
        sections = [
            PanelSection(t("ci.bar"), bar_lines),
            PanelSection(t("ci.hands"), tuple(hand_lines)),
            PanelSection(t("ci.board"), table_lines),
        ]
        advice = self.advice()
        if advice:
            lines = []
            for rank, scored in enumerate(advice[:ADVICE_SHOWN]):
                entry = scored_to_json(self.session.state, scored)
                value = _signed(scored.points)
                if scored.hand_limit_change:
                    value += " · " + t("ci.hand_change", change=_signed(scored.hand_limit_change))
                lines.append(
                    PanelLine(
                        describe_action(self.tr, GAME, entry),
                        value,
                        "good" if rank == 0 else "plain",
                    )
                )
            # after the bar's tally: the stools and their points stay in sight
            sections.insert(1, PanelSection(t("ci.best", count=len(advice)), tuple(lines)))
            sections.insert(2, self.tiles_section(advice))
        return sections

    def tiles_section(self, advice: list[Any]) -> PanelSection:
        """For each tile in the hand of the player to move: its best placement and points.

        This is what a player holding a tile up to the camera will see; until recognition
        lands, every tile in hand is listed.
        """
        t = self.tr.t
        state = self.session.state
        entries = [scored_to_json(state, scored) for scored in advice]
        player: dict[str, Any] = next(
            (
                p
                for p in self.session.view.get("players", [])
                if p.get("name") == self.session.player_to_act
            ),
            {},
        )
        lines = []
        for tile in dict.fromkeys(player.get("hand", [])):
            alone = (entry for entry in entries if _tiles_of(entry) == {tile})
            best = next(alone, next((e for e in entries if tile in _tiles_of(e)), None))
            if best is None:
                lines.append(PanelLine(describe_tile(self.tr, tile), t("ci.no_place"), "warn"))
                continue
            where = describe_action(self.tr, GAME, best)
            lines.append(
                PanelLine(f"{describe_tile(self.tr, tile)}: {where}", _signed(best["points"]))
            )
        return PanelSection(t("ci.tiles", name=self.session.player_to_act or ""), tuple(lines))


def _tiles_of(entry: dict[str, Any]) -> set[str]:
    """The hand tiles an advice entry plays (seat placements, the bar guest, a swap's guest)."""
    tiles = {placement.get("tile") for placement in entry.get("placements", [])}
    if "tile" in entry:
        tiles.add(entry["tile"])
    return {tile for tile in tiles if tile}


class CafeScoring(ScoringViewModel):
    """One row per player: running points, ordinary tiles and jokers left in hand (CI-22)."""

    game = GAME
    scans_photos = True

    def columns(self) -> list[str]:
        return ["points", "tiles", "jokers"]

    def totals(self) -> dict[str, int]:
        """CI-22: running points − 5 per tile − 10 per joker left in hand."""
        return {
            p: self.count(p, "points")
            - TILE_PENALTY * self.count(p, "tiles")
            - JOKER_PENALTY * self.count(p, "jokers")
            for p in self.players
        }

    def result(self) -> dict[str, Any]:
        totals = self.totals()
        players = {
            p: {
                "total": totals[p],
                "points": self.count(p, "points"),
                "penalty": totals[p] - self.count(p, "points"),
            }
            for p in self.players
        }
        return {
            "game": GAME,
            "players": players,
            "ranking": ranking(totals),
            "winners": winners(totals),
        }

    def breakdown(self) -> list[BreakdownLine]:
        t = self.tr.t
        lines: list[BreakdownLine] = []
        for p in self.players:
            lines.append(BreakdownLine(p, "CI-18", t("ci.line.points"), self.count(p, "points")))
            tiles, jokers = self.count(p, "tiles"), self.count(p, "jokers")
            if tiles:
                lines.append(
                    BreakdownLine(
                        p, "CI-22", t("ci.line.tiles", count=tiles), -TILE_PENALTY * tiles
                    )
                )
            if jokers:
                lines.append(
                    BreakdownLine(
                        p, "CI-22", t("ci.line.jokers", count=jokers), -JOKER_PENALTY * jokers
                    )
                )
        return lines

    def photo_name(self, row: str) -> str:
        return f"photo of {row}'s tiles"

    def counts_from_reading(
        self, row: str, observation: Any, session: Any = None
    ) -> dict[str, int]:
        # the tiles left in hand (CI-22); the running points are the game's, not the photo's
        jokers = sum(1 for tile in observation if str(tile).startswith("joker/"))
        return {"tiles": len(observation) - jokers, "jokers": jokers}

    def fill_from_state(self, session: Any) -> None:
        state = session.state
        self.clear()
        for name, points, hand in zip(state.players, state.points, state.hands, strict=True):
            if name in self.players:
                jokers = sum(1 for tile in hand if tile.startswith("joker/"))
                self.set_count(name, "points", points)
                self.set_count(name, "tiles", len(hand) - jokers)
                self.set_count(name, "jokers", jokers)


SCORING = CafeScoring

__all__ = ["SCORING", "CafePanel", "CafeScoring"]
