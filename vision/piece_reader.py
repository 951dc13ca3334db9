"""The piece reader: which companion card or tile face a detected piece shows, from its box alone.

Gallery matching (`vision.identify`) needs a piece's four corners, and a half-covered card's or a
blurred tile's corners are where it fails. The piece reader looks at a square crop around the
detector's box (cut from the full-resolution frame like a die's, `vision.dice_reader.crop_dice`)
and a small network (`models/piece_reader.onnx`, trained by ``python -m models.train pieces`` on
our renders) gives calibrated odds over the distinct companion faces plus "no companion face"
(a back, a foreign piece, bare table). A piece is named when its best face is at least
`PieceReaderConfig.min_probability` likely; the identities sharing a face (Dice King's penalty
cards of one value) are named by the first, as the gallery does.

It knows the companion art only: a user's own printing is identified by the gallery from its
enrolled faces, so `vision.pipeline.Perception` does not ask it about games with enrolled faces.

The same class loads a *face reader* (`FACE_READER_MODELS`): a piece reader trained on a few
faces that differ only in small print (``python -m models.train pieces --faces PREFIX``), from a
larger crop, whose every other piece is class 0.

Public names: `PieceReaderConfig`, `PieceReadings`, `PieceReader`, `FACE_READER_MODELS`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.dice_reader import crop_dice
from vision.errors import ModelError
from vision.geometry import clockwise_quad
from vision.rectify import warp_face
from vision.sessions import load_session

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "piece_reader.onnx"
# Readers of faces that differ only in small print, read from a larger crop (identity prefix →
# model): Dice King's penalty cards show their value only as "-n" and n crowns (DK-3); its
# inhabitants and villages differ in a value, a name or a dice rule (DK-4, DK-2); King's
# Breakfast's foods are read from the larger crop too (scoring photos of many cards).
FACE_READER_MODELS = {
    "dice-king/penalty-": DEFAULT_MODEL.with_name("penalty_reader.onnx"),
    "dice-king/": DEFAULT_MODEL.with_name("dice_king_reader.onnx"),
    "kings-breakfast/": DEFAULT_MODEL.with_name("kings_breakfast_reader.onnx"),
}
# Readers of the rectified face (identity prefix → model; `PieceReader.read_quads`): the piece's
# quad warped upright onto a square, so small print is read at one scale whatever the piece's
# size and tilt in the frame (``python -m models.train pieces --warps``).
FACE_WARP_MODELS = {
    "dice-king/": DEFAULT_MODEL.with_name("dice_king_warp_reader.onnx"),
}
# how many quarter turns of each crop a reader may read (`PieceReaderConfig.views`)
PIECE_VIEWS = (1, 4)


@dataclass(frozen=True)
class PieceReaderConfig:
    """Piece reader settings.

    Attributes:
        margin: context on each side of the box, as a fraction of its longer side (as trained).
        min_probability: a piece is named only when its best face is at least this likely
            (after restricting to the games asked about); below it the identity stays None.
            0.95 (reader v3; chosen on 300 eval-split scenes of seed 101, not the evaluated
            seed 100: matched cards named right / wrong 0.9 352 / 7, 0.95 345 / 4, and with
            the pipeline's veto at 0.2 339 / 3).
        batch: most crops per model call.
        threads: onnxruntime intra-op threads.
        views: 1, or 4 to read every crop in its four quarter turns (the readers learnt faces
            lying any way round) and combine the odds by their geometric mean: steadier odds on
            blurred faces, at 4 × the cost. Scoring photos read Dice King's faces so
            (`vision.readers.photos.PHOTO_FACE_READER_VIEWS`).
    """

    margin: float = 0.1
    min_probability: float = 0.95
    batch: int = 64
    threads: int = 1
    views: int = 1


@dataclass(frozen=True)
class PieceReadings:
    """What the piece reader concluded about n boxes.

    Attributes:
        identities: (n,) object: the named identity, or None (unsure, or no companion face).
        scores: (n,) float32: the best face's probability.
        probabilities: (n, C) float32: odds of "no companion face" (column 0) and of each face
            (columns 1…, `PieceReader.classes`), restricted to the games asked about.
        foreign: (n,) float32: the odds, before that restriction, of the faces of the games not
            asked about (0 when every game was): a piece of another game is forced onto the
            faces asked about by the restriction, and can be named one with high odds.
    """

    identities: np.ndarray
    scores: np.ndarray
    probabilities: np.ndarray
    foreign: np.ndarray


class PieceReader:
    """Reads card and tile faces with the ONNX piece reader (loaded once, in the constructor).

    Raises:
        ModelError: the model file is missing, unreadable, or carries no face classes.
    """

    def __init__(
        self, model_path: str | Path | None = None, config: PieceReaderConfig | None = None
    ) -> None:
        self.config = config or PieceReaderConfig()
        if self.config.views not in PIECE_VIEWS:
            raise ValueError(f"views must be one of {PIECE_VIEWS}, not {self.config.views!r}")
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        self.model_path = path
        self._session = load_session(path, "piece reader", threads=self.config.threads)
        self._input = self._session.get_inputs()[0].name
        shape = self._session.get_inputs()[0].shape
        self.crop_size = int(shape[-1]) if isinstance(shape[-1], int) else 64
        meta = self._session.get_modelmeta().custom_metadata_map.get("face_classes")
        try:
            groups = json.loads(meta) if meta else None
        except ValueError:
            groups = None
        if not isinstance(groups, list) or not all(
            isinstance(g, list) and g and all(isinstance(i, str) for i in g) for g in groups
        ):
            raise ModelError(f"piece reader model carries no face classes: {path}")
        # class 0 is "no companion face"; then one class per face, its identities
        self.classes: tuple[tuple[str, ...], ...] = ((),) + tuple(tuple(g) for g in groups)
        # the class (column of the odds) of every identity
        self.class_index: dict[str, int] = {
            identity: k for k, group in enumerate(self.classes) for identity in group
        }
        self._games = np.array(
            [""] + [g[0].partition("/")[0] for g in self.classes[1:]], dtype=object
        )

    def allowed(self, games: Sequence[str] | None) -> np.ndarray:
        """(C,) bool: the classes a piece of one of `games` (all when None) may be."""
        if games is None:
            return np.ones(len(self.classes), bool)
        keep = np.isin(self._games, list(games))
        keep[0] = True
        return keep

    def read(
        self, frame: np.ndarray, boxes_xyxy: np.ndarray, games: Sequence[str] | None = None
    ) -> PieceReadings:
        """Read the pieces in `boxes_xyxy` (n, 4; pixels of `frame`, uint8 BGR)."""
        boxes = np.asarray(boxes_xyxy, np.float64).reshape(-1, 4)
        if len(boxes) == 0:
            return self.read_crops(np.zeros((0, self.crop_size, self.crop_size, 3), np.uint8))
        crops = crop_dice(frame, boxes, size=self.crop_size, margin=self.config.margin)
        return self.read_crops(crops, games)

    def read_quads(
        self, frame: np.ndarray, corners: np.ndarray, games: Sequence[str] | None = None
    ) -> PieceReadings:
        """Read the pieces whose 4 corners (n, 4, 2; pixels of `frame`) are given, each warped
        onto a square (`warp_squares`), as a face-warp reader (`FACE_WARP_MODELS`) learnt them.
        Corners that form no convex quad read as no companion face."""
        quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
        warps, readable = warp_squares(frame, quads, self.crop_size)
        readings = self.read_crops(warps, games)
        if not readable.all():
            nothing = np.zeros(len(self.classes), np.float32)
            nothing[0] = 1.0
            readings.probabilities[~readable] = nothing
            readings.scores[~readable] = 1.0
            readings.identities[~readable] = None
        return readings

    def read_crops(self, crops: np.ndarray, games: Sequence[str] | None = None) -> PieceReadings:
        """Read (n, S, S, 3) uint8 BGR crops of this reader's input size S."""
        n = len(crops)
        width = len(self.classes)
        if n == 0:
            return PieceReadings(
                np.empty(0, object),
                np.zeros(0, np.float32),
                np.zeros((0, width), np.float32),
                np.zeros(0, np.float32),
            )
        log_odds = np.zeros((n, width), np.float64)
        for turn in range(self.config.views):
            turned = np.rot90(crops, turn, axes=(1, 2))
            parts = []
            for start in range(0, n, self.config.batch):
                batch = turned[start : start + self.config.batch].transpose(0, 3, 1, 2)
                tensor = np.ascontiguousarray(batch, dtype=np.float32) / 255.0
                parts.append(self._session.run(None, {self._input: tensor})[0])
            log_odds += np.log(np.maximum(np.concatenate(parts), 1e-12))
        # the geometric mean of the views' odds (one view: its odds)
        log_odds /= self.config.views
        probabilities = np.exp(log_odds - log_odds.max(axis=1, keepdims=True)).astype(np.float32)
        probabilities /= np.maximum(probabilities.sum(axis=1, keepdims=True), 1e-12)
        allowed = self.allowed(games)
        foreign = probabilities[:, ~allowed].sum(axis=1).astype(np.float32)
        probabilities *= allowed
        probabilities /= np.maximum(probabilities.sum(axis=1, keepdims=True), 1e-12)
        best = probabilities.argmax(axis=1)
        scores = probabilities[np.arange(n), best]
        identities = np.empty(n, object)
        for i, (k, p) in enumerate(zip(best, scores, strict=True)):
            sure = k > 0 and p >= self.config.min_probability
            identities[i] = self.classes[int(k)][0] if sure else None
        return PieceReadings(identities, scores.astype(np.float32), probabilities, foreign)

    def candidates(
        self, probabilities: np.ndarray, top_k: int = 3
    ) -> tuple[tuple[str, float], ...]:
        """The `top_k` likeliest faces of one row of `PieceReadings.probabilities` (identity,
        probability), best first; "no companion face" left out."""
        order = np.argsort(-probabilities[1:])[:top_k] + 1
        return tuple(
            (self.classes[int(k)][0], float(probabilities[k]))
            for k in order
            if probabilities[k] > 0
        )


def warp_squares(
    frame: np.ndarray, corners: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each quad of `corners` (n, 4, 2) warped onto a `size` square, listed clockwise from its
    first corner (`vision.geometry.clockwise_quad`): a card's 2:3 face is stretched square, and
    a quad starting one corner later gives the square turned a quarter. Returns (n, S, S, 3)
    uint8 warps and (n,) bool: the quads that could be warped (the rest are black)."""
    quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    warps = np.zeros((len(quads), size, size, 3), np.uint8)
    readable = np.zeros(len(quads), bool)
    for i, corners_i in enumerate(quads):
        quad = clockwise_quad(corners_i)
        if quad is None or np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).min() < 2:
            continue
        warps[i] = warp_face(frame, quad, (size, size))
        readable[i] = True
    return warps, readable


__all__ = [
    "FACE_READER_MODELS",
    "FACE_WARP_MODELS",
    "PIECE_VIEWS",
    "PieceReader",
    "PieceReaderConfig",
    "PieceReadings",
    "warp_squares",
]
