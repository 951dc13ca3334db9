"""The Scoring screen's view model: counts entered by hand, final scores, a breakdown by rule.

A scoring form is a grid: one row per player (King's Breakfast adds the king's row), one column
per category (a food, tiles left in hand, inhabitant points, ...). Each game's form
(`scoring_for`) knows its rows and columns and asks its engine for the scores; the breakdown names
the rule clause behind each line so players can check the arithmetic at the table. Photos of the
final spread fill a row's counts (`ScoringViewModel.scan`: the camera's picture of a player's
spread pieces, read as `table-companion score` reads a photo); a refused photo changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion_app import storage
from companion_app.i18n import Translator
from companion_app.viewmodels.panel import PanelLine, PanelSection

MAX_COUNT = 99  # cards or tiles of one kind
MAX_POINTS = 9999  # running points (a Café game often passes 100)


@dataclass(frozen=True)
class ScanResult:
    """What reading one row's photo did.

    Attributes:
        row: the row the photo was for.
        filled: column → the count set from the photo (empty when refused).
        problems: why the photo was refused (empty when its counts were taken).
        seen: what the reader saw (its pieces, what it set aside), for the user.
        pieces: each piece the reader took into account, as (box x0, y0, x1, y1 in the
            photo's pixels, its identity or None when it could not be identified), so that the
            screen can show which one to put right.
    """

    row: str
    filled: dict[str, int]
    problems: tuple[str, ...] = ()
    seen: dict[str, Any] = field(default_factory=dict)
    pieces: tuple[tuple[tuple[float, float, float, float], str | None], ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the photo's counts were taken."""
        return not self.problems


@dataclass(frozen=True)
class BreakdownLine:
    """One line of the breakdown: whose, the clause behind it, the text and its points."""

    player: str
    clause: str
    text: str
    points: int | None = None


class ScoringViewModel:
    """A grid of counts and the scores they give; the generic form has one "points" column."""

    game = "generic"

    def __init__(self, players: Sequence[str], tr: Translator) -> None:
        self.players = list(players)
        self.tr = tr
        self.counts: dict[tuple[str, str], int] = {}
        self.error: str | None = None

    # ---- the grid ---
    def rows(self) -> list[str]:
        """Row ids, top to bottom (players by name; a game may add rows such as "king")."""
        return list(self.players)

    def columns(self) -> list[str]:
        """Column ids, left to right."""
        return ["points"]

    def row_label(self, row: str) -> str:
        """A row's label."""
        return row

    def column_label(self, column: str) -> str:
        """A column's label (translated)."""
        key = f"scoring.column.{column}"
        if self.tr.has(key):
            return self.tr.t(key)
        piece = f"piece.{column}"
        return self.tr.t(piece) if self.tr.has(piece) else column.replace("_", " ")

    def column_bounds(self, column: str) -> tuple[int, int]:
        """The smallest and largest value a cell of `column` may hold."""
        return (-MAX_POINTS, MAX_POINTS) if column == "points" else (0, MAX_COUNT)

    def count(self, row: str, column: str) -> int:
        """The value in a cell (0 when never set)."""
        return self.counts.get((row, column), 0)

    def set_count(self, row: str, column: str, value: int) -> None:
        """Set a cell, clamped to the column's bounds.

        Raises:
            ValueError: unknown row or column.
        """
        if row not in self.rows():
            raise ValueError(f"unknown row {row!r} in scoring")
        if column not in self.columns():
            raise ValueError(f"unknown column {column!r} in scoring")
        low, high = self.column_bounds(column)
        self.counts[(row, column)] = max(low, min(high, int(value)))

    def step(self, row: str, column: str, delta: int) -> None:
        """Add `delta` to a cell (the + and − buttons)."""
        self.set_count(row, column, self.count(row, column) + delta)

    def clear(self) -> None:
        """Every cell back to 0."""
        self.counts.clear()

    def fill_from_state(self, session: Any) -> None:
        """Prefill the grid from a finished (or running) game, where the game knows how."""
        return None

    # ---- photos ---
    scans_photos = False  # a game's form that reads photos (`counts_from_reading`) says so

    def scannable_rows(self) -> list[str]:
        """The rows a photo can fill: every row of a form that reads photos, none otherwise."""
        return self.rows() if self.scans_photos else []

    def photo_name(self, row: str) -> str:
        """How the reader's problems name the photo of `row`."""
        return f"photo of {row}"

    def counts_from_reading(
        self, row: str, observation: Any, session: Any = None
    ) -> dict[str, int]:
        """column → count of `row` from a photo's accepted reading (`read_scoring_frame`).

        Raises:
            ValueError: the reading cannot be scored in this form (a card outside the deck).
        """
        raise ValueError(f"{self.game} cannot be scored from photos")

    def read_photo(self, row: str, frame: Any, session: Any = None) -> ScanResult:
        """Read a photo of `row`'s pieces (uint8 BGR, a camera frame) with
        `vision.readers.photos.read_scoring_frame`, as `table-companion score` reads one (the
        models load at the first photo of a game); the form is not changed (`apply_scan`), so
        this may run off the UI thread. A refused photo, or one that cannot be read, comes back
        with its problems; `session` (the game being played) gives Dice King its deck.

        Raises:
            ValueError: `row` is not a row a photo can fill.
        """
        if row not in self.scannable_rows():
            raise ValueError(f"no photo can fill row {row!r} of the {self.game} scores")
        from vision.readers.photos import PhotoError, read_scoring_frame

        what = self.photo_name(row)
        try:
            read = read_scoring_frame(self.game, frame, king=row == "king", what=what)
        except PhotoError as error:
            return ScanResult(row, {}, (str(error),))
        reading = read.reading
        pieces = tuple(
            ((float(x0), float(y0), float(x1), float(y1)), None if name is None else str(name))
            for (x0, y0, x1, y1), name in zip(
                read.pieces.boxes_xyxy, read.pieces.identities, strict=True
            )
        )
        problems: tuple[str, ...] = tuple(reading.problems)
        counts: dict[str, int] = {}
        if not problems:
            try:
                counts = self.counts_from_reading(row, reading.observation, session)
            except (ValueError, KeyError) as error:
                message = error.args[0] if error.args else str(error)
                problems = (f"{what}: {message}",)
        return ScanResult(row, {} if problems else counts, problems, dict(reading.seen), pieces)

    def apply_scan(self, result: ScanResult) -> None:
        """Set the counts of an accepted photo (`read_photo`); a refused one changes nothing."""
        if result.ok:
            for column, value in result.filled.items():
                self.set_count(result.row, column, value)

    def scan(self, row: str, frame: Any, session: Any = None) -> ScanResult:
        """`read_photo`, then `apply_scan`: fill `row` from a photo of its pieces."""
        result = self.read_photo(row, frame, session)
        self.apply_scan(result)
        return result

    # ---- results ---
    def result(self) -> dict[str, Any]:
        """Final scores in the `score` JSON shape, with ``game`` added."""
        totals = {player: self.count(player, "points") for player in self.players}
        ranking = sorted(self.players, key=lambda p: -totals[p])
        best = max(totals.values(), default=0)
        return {
            "game": self.game,
            "players": {player: {"total": totals[player]} for player in self.players},
            "ranking": ranking,
            "winners": [p for p in ranking if totals[p] == best],
        }

    def breakdown(self) -> list[BreakdownLine]:
        """Lines explaining every player's total, each naming the clause behind it."""
        return [
            BreakdownLine(p, "", self.tr.t("scoring.points"), self.count(p, "points"))
            for p in self.players
        ]

    def safe_result(self) -> dict[str, Any] | None:
        """`result()`, or None with `error` set when the counts are refused."""
        try:
            value = self.result()
        except ValueError as error:
            self.error = str(error)
            return None
        self.error = None
        return value

    def summary_sections(self) -> list[PanelSection]:
        """The ranking and each player's breakdown, ready for the panel widget."""
        t = self.tr.t
        result = self.safe_result()
        if result is None:
            return [PanelSection(t("scoring.problem"), (PanelLine(self.error or "", "", "warn"),))]
        winners = set(result["winners"])
        ranking = tuple(
            PanelLine(
                f"{place}. {name}" + ("  ★" if name in winners else ""),
                str(result["players"][name]["total"]),
                "good" if name in winners else "plain",
            )
            for place, name in enumerate(result["ranking"], start=1)
        )
        sections = [PanelSection(t("scoring.ranking"), ranking)]
        by_player: dict[str, list[PanelLine]] = {}
        for line in self.breakdown():
            label = f"{line.clause}  {line.text}" if line.clause else line.text
            value = "" if line.points is None else f"{line.points:+d}"
            tone = "warn" if (line.points or 0) < 0 else "plain"
            by_player.setdefault(line.player, []).append(PanelLine(label, value, tone))
        for name in result["ranking"]:
            if name in by_player:
                sections.append(PanelSection(name, tuple(by_player[name])))
        return sections

    def export(self, stem: str, folder: Path | None = None) -> tuple[Path, Path]:
        """Write the results as JSON and CSV (see `storage.export_results`)."""
        return storage.export_results(self.result(), stem, folder)


# box colours (BGR) of a scanned picture: a named piece, one that could not be identified
SCAN_NAMED_BGR = (80, 200, 60)
SCAN_UNNAMED_BGR = (40, 40, 230)


def annotate_scan(frame: np.ndarray, result: ScanResult) -> np.ndarray:
    """A copy of a scanned picture with each piece the reader took into account boxed: named
    ones green with their short name, ones it could not identify red and thicker (the piece
    to straighten, uncover or bring into focus before scanning again)."""
    picture = np.ascontiguousarray(frame, dtype=np.uint8).copy()
    scale = max(picture.shape[:2]) / 800.0
    thin, thick = max(1, round(2 * scale)), max(2, round(5 * scale))
    for (x0, y0, x1, y1), identity in result.pieces:
        corner, far = (round(x0), round(y0)), (round(x1), round(y1))
        if identity is None:
            cv2.rectangle(picture, corner, far, SCAN_UNNAMED_BGR, thick)
            continue
        cv2.rectangle(picture, corner, far, SCAN_NAMED_BGR, thin)
        name = identity.partition("/")[2] or identity
        at = (corner[0] + thin, corner[1] + round(16 * scale))
        weight = max(1, round(scale))
        # dark under the green, so that a name reads on a card of any colour
        for colour, width in (((0, 0, 0), weight + 2), (SCAN_NAMED_BGR, weight)):
            cv2.putText(
                picture,
                name,
                at,
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45 * scale,
                colour,
                width,
                cv2.LINE_AA,
            )
    return picture


def scoring_for(game: str, players: Sequence[str], tr: Translator) -> ScoringViewModel:
    """The scoring form of `game` (the generic one for a game without its own)."""
    from companion_app.viewmodels import cafe_international, dice_king, kings_breakfast

    forms: dict[str, type[ScoringViewModel]] = {}
    for module in (kings_breakfast, cafe_international, dice_king):
        form = getattr(module, "SCORING", None)
        if form is not None:
            forms[form.game] = form
    return forms.get(game, ScoringViewModel)(players, tr)


__all__ = [
    "MAX_COUNT",
    "MAX_POINTS",
    "BreakdownLine",
    "SCAN_NAMED_BGR",
    "SCAN_UNNAMED_BGR",
    "ScanResult",
    "ScoringViewModel",
    "annotate_scan",
    "scoring_for",
]
