"""Rectify, learned: a card's or tile's rough quad → its corners, by a small ONNX network.

The detector's corner head regresses corners from the piece's centre cell and is its weakest
part (median corner error about a fifth of the piece's side, `models/detector.md`). This stage
looks at each piece on its own: the frame around the rough quad is cut out at a fixed scale
(`context_patch`: the quad's extent times `CONTEXT_EXTENT`, resized to `CONTEXT_SIZE` px, so a
400 px card and a 40 px one look alike), then warped so that the rough quad becomes an upright
rectangle of the piece's own aspect, `LONG` px on its long side, in the middle of a `CANVAS` px
canvas (`canvas_rect`, `canonical_warp`). The network (`models.architectures.CornerRefinerNet`)
outputs, for each rough corner, where the true corner nearest it lies on that canvas; the
inverse warp takes it back to the frame. The canvas removes the question of which corner is
which, so the network never has to decide the piece's orientation; and as it keeps the piece's
aspect, a card half under another one still shows how long it is (on a square canvas the
refiner snapped to the covering card's edge). Two rounds: the second starts from the first's.

A refined quad that is not convex, that moved a corner by more than `max_move` of the piece's
size, or whose opposite sides differ by more than `max_side_ratio`, is not used (the quad it
started from is kept). Trained on rendered scenes only
(`models/corner_refiner.md`): ``python -m models.train corners``.

Public names: `CornerRefiner`, `CornerRefinerConfig`, `context_patch`, `canvas_rect`,
`canonical_warp`, `CANVAS`, `LONG`, `CONTEXT_SIZE`, `CONTEXT_EXTENT`, `PIECE_ASPECTS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import is_convex_clockwise, order_corners_clockwise
from vision.sessions import load_session

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "corner_refiner.onnx"

CANVAS = 96  # side of the network's input, px
LONG = 56  # the rough quad's long side on the canvas, px
CONTEXT_SIZE = 144  # side of the context patch, px
CONTEXT_EXTENT = 2.8  # the context patch spans this many times the quad's larger extent
# short over long side of the pieces of each kind (King's Breakfast cards 57 × 89 mm; Dice King's
# 1 : 1.40 are close enough for the canvas; Café tiles are square)
PIECE_ASPECTS: dict[str, float] = {"card": 57 / 89, "tile": 1.0}


def canvas_rect(quad: np.ndarray, aspect: float) -> np.ndarray:
    """The canvas rectangle (clockwise from the top-left) that `quad` (clockwise from the
    top-left) is warped onto: `aspect` (short over long side) kept, the long side `LONG` px,
    upright or lying as the quad's own sides are."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    across = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
    down = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
    short = LONG * min(max(float(aspect), 0.2), 1.0)
    w, h = (short, LONG) if across <= down else (LONG, short)
    x0, y0 = (CANVAS - w) / 2, (CANVAS - h) / 2
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float64)


@dataclass(frozen=True)
class CornerRefinerConfig:
    """Corner refiner settings.

    Attributes:
        rounds: how many times a quad is refined (each from the last one's corners).
        max_move: a refined corner that moved more than this fraction of the piece's size (the
            rough quad's larger extent) from the rough one makes the refinement unused.
        max_side_ratio: a refined quad whose opposite sides differ more than this in length is
            not used: a card or tile the size of a few per cent of the frame is seen almost as a
            parallelogram, and a corner that jumped to a neighbouring piece's corner breaks it.
        batch: most pieces per model call.
        threads: onnxruntime's intra-op threads (the live app uses 1, as for the detector).
    """

    rounds: int = 2
    max_move: float = 0.6
    max_side_ratio: float = 1.35
    batch: int = 64
    threads: int = 2


def context_patch(frame: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The frame around `quad`, scaled so the quad spans ``CONTEXT_SIZE / CONTEXT_EXTENT`` px.

    Args:
        frame: uint8 BGR (H, W, 3); not modified.
        quad: (4, 2) corners in frame pixels.

    Returns:
        (patch (CONTEXT_SIZE, CONTEXT_SIZE, 3) uint8, 2 × 3 affine frame → patch). Parts outside
        the frame repeat its border pixels.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    centre = (q.min(axis=0) + q.max(axis=0)) / 2
    extent = max(float((q.max(axis=0) - q.min(axis=0)).max()), 4.0) * CONTEXT_EXTENT
    x0, y0 = int(np.floor(centre[0] - extent / 2)), int(np.floor(centre[1] - extent / 2))
    side = int(np.ceil(extent)) + 1
    h, w = frame.shape[:2]
    # the square region, padded where it leaves the frame (border pixels repeated)
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x0 + side, w), min(y0 + side, h)
    region: np.ndarray
    if cx1 <= cx0 or cy1 <= cy0:
        region = np.zeros((side, side, 3), np.uint8)
    elif (cx0, cy0, cx1, cy1) == (x0, y0, x0 + side, y0 + side):
        region = frame[y0 : y0 + side, x0 : x0 + side]  # inside the frame: a view, no copy
    else:
        region = cv2.copyMakeBorder(
            frame[cy0:cy1, cx0:cx1],
            cy0 - y0,
            y0 + side - cy1,
            cx0 - x0,
            x0 + side - cx1,
            cv2.BORDER_REPLICATE,
        )
    scale = CONTEXT_SIZE / side
    patch = _shrink(region, CONTEXT_SIZE)
    affine = np.array([[scale, 0.0, -x0 * scale], [0.0, scale, -y0 * scale]], np.float64)
    return patch, affine


def _shrink(region: np.ndarray, size: int) -> np.ndarray:
    """`region` (square) resized to `size` px: averaged over whole-pixel blocks first (fast),
    then interpolated (OpenCV's area resize at a fractional ratio costs 4–20 times as much)."""
    factor = region.shape[0] // size
    if factor >= 2:
        small = region.shape[0] // factor
        region = cv2.resize(
            region[: small * factor, : small * factor], (small, small), interpolation=cv2.INTER_AREA
        )
    return cv2.resize(region, (size, size), interpolation=cv2.INTER_LINEAR)


def canonical_warp(
    patch: np.ndarray, quad: np.ndarray, aspect: float
) -> tuple[np.ndarray, np.ndarray]:
    """Warp `patch` so that `quad` (clockwise, in patch pixels) becomes its `canvas_rect`.

    Returns:
        (canvas (CANVAS, CANVAS, 3) uint8, 3 × 3 homography patch → canvas).
    """
    homography = cv2.getPerspectiveTransform(
        np.asarray(quad, np.float32).reshape(4, 2), canvas_rect(quad, aspect).astype(np.float32)
    )
    canvas = cv2.warpPerspective(
        patch, homography, (CANVAS, CANVAS), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return canvas, homography


def _apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    return pts[:, :2] / pts[:, 2:3]


def _side_ratio(quad: np.ndarray) -> float:
    """The larger of the two ratios of opposite sides' lengths (1 for a parallelogram)."""
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    pairs = ((sides[0], sides[2]), (sides[1], sides[3]))
    return max(max(a, b) / max(min(a, b), 1e-6) for a, b in pairs)


def _affine3(affine: np.ndarray) -> np.ndarray:
    return np.vstack([affine, [0.0, 0.0, 1.0]])


class CornerRefiner:
    """Refines card and tile quads with the ONNX corner refiner (loaded once).

    Raises:
        ModelError: the model file is missing or unreadable.
    """

    def __init__(
        self, model_path: str | Path | None = None, config: CornerRefinerConfig | None = None
    ) -> None:
        self.config = config or CornerRefinerConfig()
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        self._session = load_session(
            path, "corner refiner", threads=self.config.threads, log_severity=3
        )
        self._input = self._session.get_inputs()[0].name

    def _positions(self, canvases: np.ndarray) -> np.ndarray:
        out = []
        for start in range(0, len(canvases), self.config.batch):
            x = canvases[start : start + self.config.batch].astype(np.float32) / 255.0
            out.append(self._session.run(None, {self._input: x.transpose(0, 3, 1, 2)})[0])
        return np.concatenate(out).reshape(-1, 4, 2).astype(np.float64)

    def refine_once(
        self, frame: np.ndarray, quads: np.ndarray, aspects: float | Sequence[float] = 1.0
    ) -> np.ndarray:
        """One round: (n, 4, 2) quads → (n, 4, 2) refined quads (clockwise from the top-left).

        Args:
            frame: uint8 BGR (H, W, 3); not modified.
            quads: rough corners in frame pixels.
            aspects: each piece's short over long side (one for all, or one per quad).

        Quads with a NaN, and refinements that fail the checks, come back unchanged.
        """
        quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        ratios = np.broadcast_to(np.asarray(aspects, np.float64), (len(quads),))
        out = quads.copy()
        rows = [i for i in range(len(quads)) if np.isfinite(quads[i]).all()]
        if not rows:
            return out
        canvases = np.empty((len(rows), CANVAS, CANVAS, 3), np.uint8)
        to_canvas = []
        rough = []
        for k, i in enumerate(rows):
            quad = order_corners_clockwise(quads[i])
            patch, affine = context_patch(frame, quad)
            canvases[k], homography = canonical_warp(
                patch, _apply(_affine3(affine), quad), float(ratios[i])
            )
            to_canvas.append(homography @ _affine3(affine))
            rough.append(quad)
        positions = self._positions(canvases)
        for k, i in enumerate(rows):
            refined = _apply(np.linalg.inv(to_canvas[k]), positions[k] * CANVAS)
            size = float((rough[k].max(axis=0) - rough[k].min(axis=0)).max())
            shift = np.linalg.norm(refined - rough[k], axis=1).max()
            if (
                np.isfinite(refined).all()
                and shift <= self.config.max_move * max(size, 1.0)
                and is_convex_clockwise(refined)
                and _side_ratio(refined) <= self.config.max_side_ratio
            ):
                out[i] = order_corners_clockwise(refined)
            else:
                out[i] = rough[k]
        return out

    def refine(
        self, frame: np.ndarray, quads: np.ndarray, aspects: float | Sequence[float] = 1.0
    ) -> np.ndarray:
        """`rounds` rounds of `refine_once`."""
        out = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        for _ in range(self.config.rounds):
            out = self.refine_once(frame, out, aspects)
        return out


__all__ = [
    "CANVAS",
    "CONTEXT_EXTENT",
    "CONTEXT_SIZE",
    "LONG",
    "PIECE_ASPECTS",
    "CornerRefiner",
    "CornerRefinerConfig",
    "canonical_warp",
    "canvas_rect",
    "context_patch",
]
