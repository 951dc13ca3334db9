"""Rectify, fine: each corner of a refined quad snapped onto the piece's true corner.

The corner refiner (`vision.corner_refiner`) sees a whole piece on a 96 px canvas, so a corner is
placed to a few per cent of the piece's size at best (median 0.044 on rendered eval scenes), and
identification needs better: with the true corners it names 0.98 of the cards, with the refined
ones 0.71 (`benchmarks/corner_refinement.py`). This stage looks at one corner at a time, close
up: the frame around the corner is cut out (`corner_crop`: a square `CROP_EXTENT` of the quad's
mean edge each way, resampled to `CROP` px, smoothed first where that shrinks it), then warped
onto a `CANVAS` px canvas centred on the corner with the side towards the next corner along +x
and the side towards the previous one along +y (`corner_view`: the piece lies in the lower
right quarter, whichever corner it is), `VIEW_EXTENT` of the mean edge each way. The network
(`models.architectures.CornerSnapNet`) says where on that canvas the true corner lies: where the
two straight sides would meet (rounded corners are cut off inside it). Every corner is looked at
alone and the result is a quad again; a snapped quad that is not convex, or that moved a corner
by more than `max_move` of the mean edge, is not used (the given quad is kept).

Trained on rendered scenes only (`models/corner_snapper.md`): ``python -m models.train
corner-snap``.

Public names: `CornerSnapper`, `CornerSnapConfig`, `corner_crop`, `corner_view`, `view_canvas`,
`CANVAS`, `CROP`, `CROP_EXTENT`, `VIEW_EXTENT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import in_corner_order_of, is_convex_clockwise, order_corners_clockwise
from vision.sessions import load_session

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "corner_snapper.onnx"

CANVAS = 32  # side of the network's input, px
VIEW_EXTENT = 0.15  # the canvas reaches this fraction of the quad's mean edge each way
MIN_VIEW_PX = 3.0  # ... and at least this many frame pixels
CROP = 64  # side of the corner crop, px
CROP_EXTENT = 0.4  # the crop reaches this fraction of the mean edge each way (room to turn)


def mean_edge(quad: np.ndarray) -> float:
    """Mean side length of a (4, 2) quad."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    return float(np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1).mean())


def corner_crop(frame: np.ndarray, point: np.ndarray, half: float) -> tuple[np.ndarray, np.ndarray]:
    """The square of frame around `point` reaching `half` px each way, as a `CROP` px image.

    Args:
        frame: uint8 BGR (H, W, 3); not modified.
        point: (x, y) in frame pixels (pixel centres at integers).
        half: half the square's side, frame pixels.

    Returns:
        (crop (CROP, CROP, 3) uint8, 2 × 3 affine frame → crop). Crop pixel j samples frame
        x0 + j · step: smoothed first when a crop pixel spans more than one frame pixel;
        beyond the frame, its border pixels are repeated.
    """
    half = max(float(half), 1.0)
    step = 2.0 * half / CROP
    x0, y0 = float(point[0]) - half, float(point[1]) - half
    # only the frame region the crop reads (plus the blur's reach) is copied and smoothed
    pad = int(np.ceil(3 * step)) + 2
    h, w = frame.shape[:2]
    xa, ya = max(0, int(np.floor(x0)) - pad), max(0, int(np.floor(y0)) - pad)
    xb = min(w, int(np.ceil(x0 + 2 * half)) + pad + 1)
    yb = min(h, int(np.ceil(y0 + 2 * half)) + pad + 1)
    to_crop = np.array([[1.0 / step, 0.0, -x0 / step], [0.0, 1.0 / step, -y0 / step]])
    if xb <= xa or yb <= ya:
        return np.zeros((CROP, CROP, 3), np.uint8), to_crop
    region = frame[ya:yb, xa:xb]
    if step > 1.2:
        sigma = 0.5 * float(np.sqrt(step * step - 1.0))
        region = cv2.GaussianBlur(region, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    # crop pixel (j, i) reads region pixel ((x0 - xa) + j · step, (y0 - ya) + i · step)
    to_region = np.array([[step, 0.0, x0 - xa], [0.0, step, y0 - ya]])
    crop = cv2.warpAffine(
        region,
        to_region,
        (CROP, CROP),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return crop, to_crop


def corner_view(quad: np.ndarray, k: int) -> np.ndarray:
    """The 2 × 3 affine canvas → frame of corner `k` of a clockwise quad: the corner at the
    canvas centre, its side towards corner k + 1 along +x, towards corner k − 1 along +y,
    `VIEW_EXTENT` of the mean edge (at least `MIN_VIEW_PX`) from the centre to each canvas side."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    corner = q[k]
    along = q[(k + 1) % 4] - corner
    down = q[(k - 1) % 4] - corner
    along = along / max(float(np.linalg.norm(along)), 1e-9)
    down = down / max(float(np.linalg.norm(down)), 1e-9)
    scale = 2.0 * max(VIEW_EXTENT * mean_edge(q), MIN_VIEW_PX) / CANVAS
    centre = CANVAS / 2.0
    linear = np.column_stack([along, down]) * scale
    return np.column_stack([linear, corner - linear @ np.array([centre, centre])])


def _then(second: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The 2 × 3 affine `second` ∘ `first`."""
    return second[:, :2] @ np.column_stack([first[:, :2], first[:, 2]]) + np.column_stack(
        [np.zeros((2, 2)), second[:, 2]]
    )


def view_canvas(crop: np.ndarray, to_crop: np.ndarray, view: np.ndarray) -> np.ndarray:
    """The (CANVAS, CANVAS, 3) canvas of `view` (canvas → frame) read from a corner crop
    (`to_crop`: frame → crop)."""
    canvas_to_crop = _then(to_crop, view)
    return cv2.warpAffine(
        crop,
        canvas_to_crop,
        (CANVAS, CANVAS),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def to_canvas(view: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Frame points → canvas points of a `corner_view`."""
    linear, offset = view[:, :2], view[:, 2]
    return (np.asarray(points, np.float64).reshape(-1, 2) - offset) @ np.linalg.inv(linear).T


def to_frame(view: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Canvas points → frame points of a `corner_view`."""
    return np.asarray(points, np.float64).reshape(-1, 2) @ view[:, :2].T + view[:, 2]


@dataclass(frozen=True)
class CornerSnapConfig:
    """Corner snapper settings.

    Attributes:
        rounds: how many times a quad is snapped (each from the last one's corners).
        max_move: a corner snapped further than this fraction of the quad's mean edge makes the
            snap unused (the canvas reaches `VIEW_EXTENT` of it: beyond, the network was not
            looking at the true corner).
        min_edge_px: quads with a smaller mean edge are left as they are.
        batch: most corners per model call.
        threads: onnxruntime's intra-op threads.
    """

    rounds: int = 1
    max_move: float = 0.13
    min_edge_px: float = 8.0
    batch: int = 256
    threads: int = 2


class CornerSnapper:
    """Snaps card and tile corners with the ONNX corner snapper (loaded once).

    Raises:
        ModelError: the model file is missing or unreadable.
    """

    def __init__(
        self, model_path: str | Path | None = None, config: CornerSnapConfig | None = None
    ) -> None:
        self.config = config or CornerSnapConfig()
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        self._session = load_session(
            path, "corner snapper", threads=self.config.threads, log_severity=3
        )
        self._input = self._session.get_inputs()[0].name

    def _positions(self, canvases: np.ndarray) -> np.ndarray:
        out = []
        for start in range(0, len(canvases), self.config.batch):
            x = canvases[start : start + self.config.batch].astype(np.float32) / 255.0
            out.append(self._session.run(None, {self._input: x.transpose(0, 3, 1, 2)})[0])
        return np.concatenate(out).reshape(-1, 2).astype(np.float64) * CANVAS

    def snap_once(self, frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """One round: (n, 4, 2) quads → (n, 4, 2) snapped quads, each in its given corner
        order. Quads with a NaN, too small or not convex ones, and snaps that fail the checks
        come back as given."""
        quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        out = quads.copy()
        rows = [
            i
            for i in range(len(quads))
            if np.isfinite(quads[i]).all()
            and mean_edge(quads[i]) >= self.config.min_edge_px
            and (is_convex_clockwise(quads[i]) or is_convex_clockwise(quads[i][::-1]))
        ]
        if not rows:
            return out
        canvases = np.empty((4 * len(rows), CANVAS, CANVAS, 3), np.uint8)
        views: list[np.ndarray] = []
        given: list[np.ndarray] = []
        for r, i in enumerate(rows):
            quad = order_corners_clockwise(quads[i])
            given.append(quad)
            half = CROP_EXTENT * mean_edge(quad)
            for k in range(4):
                view = corner_view(quad, k)
                crop, crop_affine = corner_crop(frame, quad[k], half)
                canvases[4 * r + k] = view_canvas(crop, crop_affine, view)
                views.append(view)
        positions = self._positions(canvases)
        for r, i in enumerate(rows):
            quad = given[r]
            snapped = np.vstack(
                [to_frame(views[4 * r + k], positions[4 * r + k]) for k in range(4)]
            )
            moved = np.linalg.norm(snapped - quad, axis=1).max()
            if (
                np.isfinite(snapped).all()
                and moved <= self.config.max_move * mean_edge(quad)
                and is_convex_clockwise(snapped)
            ):
                out[i] = in_corner_order_of(snapped, quads[i])
        return out

    def snap(self, frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """`rounds` rounds of `snap_once`."""
        out = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        for _ in range(self.config.rounds):
            out = self.snap_once(frame, out)
        return out


__all__ = [
    "CANVAS",
    "CROP",
    "CROP_EXTENT",
    "VIEW_EXTENT",
    "CornerSnapConfig",
    "CornerSnapper",
    "corner_crop",
    "corner_view",
    "mean_edge",
    "to_canvas",
    "to_frame",
    "view_canvas",
]
