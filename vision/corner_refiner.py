"""Rectify, learned: a card's or tile's rough quad → its corners, by a small ONNX network.

The detector's corner head regresses corners from the piece's centre cell and is its weakest
part (median corner error about a fifth of the piece's side, `models/detector.md`). This stage
looks at each piece on its own: the frame around the rough quad is cut out at a fixed scale
(`context_patch`: the quad's extent times `CONTEXT_EXTENT`, resized with area averaging to
`CONTEXT_SIZE` px, so a 400 px card and a 40 px one look alike), then warped so that the rough
quad becomes the square `PIECE` px wide in the middle of a `CANVAS` px canvas
(`canonical_warp`). The network (`models.architectures.CornerRefinerNet`) outputs, for each
rough corner, where the true corner lies on that canvas (an offset in units of `PIECE`); the
inverse warp takes it back to the frame. The canvas removes the question of which corner is
which (each rough corner is moved to the true corner nearest it), so the network never has to
decide the piece's orientation. Two rounds: the second starts from the first's corners.

A refined quad that is not convex, or that moved a corner by more than `max_move` of the
piece's size, is not used (the rough quad is kept). Trained on rendered scenes only
(`models/corner_refiner.md`): ``python -m models.train corners``.

Public names: `CornerRefiner`, `CornerRefinerConfig`, `context_patch`, `canonical_warp`,
`CANVAS`, `PIECE`, `CONTEXT_SIZE`, `CONTEXT_EXTENT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ModelError
from vision.geometry import is_convex_clockwise, order_corners_clockwise

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "corner_refiner.onnx"

CANVAS = 96  # side of the network's input, px
PIECE = 48  # side of the square the rough quad is warped onto, px
MARGIN = (CANVAS - PIECE) / 2
CONTEXT_SIZE = 144  # side of the context patch, px
CONTEXT_EXTENT = 2.8  # the context patch spans this many times the quad's larger extent
SQUARE = np.array(
    [
        [MARGIN, MARGIN],
        [MARGIN + PIECE, MARGIN],
        [MARGIN + PIECE, MARGIN + PIECE],
        [MARGIN, MARGIN + PIECE],
    ],
    np.float64,
)


@dataclass(frozen=True)
class CornerRefinerConfig:
    """Corner refiner settings.

    Attributes:
        rounds: how many times a quad is refined (each from the last one's corners).
        max_move: a refined corner that moved more than this fraction of the piece's size (the
            rough quad's larger extent) from the rough one makes the refinement unused.
        batch: most pieces per model call.
        threads: onnxruntime's intra-op threads (the live app uses 1, as for the detector).
    """

    rounds: int = 2
    max_move: float = 0.6
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


def canonical_warp(patch: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Warp `patch` so that `quad` (clockwise, in patch pixels) becomes the canvas's square.

    Returns:
        (canvas (CANVAS, CANVAS, 3) uint8, 3 × 3 homography patch → canvas).
    """
    homography = cv2.getPerspectiveTransform(
        np.asarray(quad, np.float32).reshape(4, 2), SQUARE.astype(np.float32)
    )
    canvas = cv2.warpPerspective(
        patch, homography, (CANVAS, CANVAS), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return canvas, homography


def _apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    return pts[:, :2] / pts[:, 2:3]


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
        import onnxruntime as ort

        self.config = config or CornerRefinerConfig()
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        if not path.is_file():
            raise ModelError(f"corner refiner model not found: {path}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, self.config.threads)
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelError(f"corner refiner model unreadable: {path}: {exc}") from exc
        self._input = self._session.get_inputs()[0].name

    def _offsets(self, canvases: np.ndarray) -> np.ndarray:
        out = []
        for start in range(0, len(canvases), self.config.batch):
            x = canvases[start : start + self.config.batch].astype(np.float32) / 255.0
            out.append(self._session.run(None, {self._input: x.transpose(0, 3, 1, 2)})[0])
        return np.concatenate(out).reshape(-1, 4, 2).astype(np.float64)

    def refine_once(self, frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """One round: (n, 4, 2) quads → (n, 4, 2) refined quads (clockwise from the top-left).

        Quads with a NaN, and refinements that fail the checks, come back unchanged.
        """
        quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
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
            canvases[k], homography = canonical_warp(patch, _apply(_affine3(affine), quad))
            to_canvas.append(homography @ _affine3(affine))
            rough.append(quad)
        offsets = self._offsets(canvases)
        for k, i in enumerate(rows):
            moved = SQUARE + offsets[k] * PIECE
            refined = _apply(np.linalg.inv(to_canvas[k]), moved)
            size = float((rough[k].max(axis=0) - rough[k].min(axis=0)).max())
            shift = np.linalg.norm(refined - rough[k], axis=1).max()
            if (
                np.isfinite(refined).all()
                and shift <= self.config.max_move * max(size, 1.0)
                and is_convex_clockwise(refined)
            ):
                out[i] = order_corners_clockwise(refined)
            else:
                out[i] = rough[k]
        return out

    def refine(self, frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """`rounds` rounds of `refine_once`."""
        out = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        for _ in range(self.config.rounds):
            out = self.refine_once(frame, out)
        return out


__all__ = [
    "CANVAS",
    "CONTEXT_EXTENT",
    "CONTEXT_SIZE",
    "PIECE",
    "CornerRefiner",
    "CornerRefinerConfig",
    "canonical_warp",
    "context_patch",
]
