"""The thresholds of every tracing stage (`TraceConfig`) and the one error family (`TraceError`).

Both are shared by all stages of `vision.layout_trace`, so they live apart from any one stage.
"""

from __future__ import annotations

from dataclasses import dataclass


class TraceError(ValueError):
    """No board layout can be traced from the photo (no board outline, no tables, bad corners)."""


@dataclass(frozen=True)
class TraceConfig:
    """Thresholds of the tracing stages (defaults tuned on synthetic photos of the companion board
    and of hand-drawn boards; see ``tests/vision/test_layout_trace.py``).

    Attributes:
        detect_px: long side of the photo when searching for the board's outline.
        min_board_fraction: smallest board outline, as a fraction of the photo's area.
        work_px: long side of the rectified top-down board.
        table_radius_range: smallest and largest table radius, as fractions of the long side.
        circle_perfectness: Hough (``HOUGH_GRADIENT_ALT``) circle perfectness, 0–1.
        min_outline: smallest fraction of a table's circumference seen as an edge.
        outline_vs_others: smallest outline fraction of a table relative to the tables' median.
        min_plain_rim: smallest fraction of the band inside a table's rim in the cloth's colour.
        same_size: circles within this radius ratio are one family.
        chair_size_range: chair side, as multiples of the table radius.
        chair_squareness: smallest area / bounding-rectangle area of a chair outline (a circle
            has 0.785).
        chair_reach: a chair's centre lies within this many table radii of a table centre.
        touch_gap: a chair touches a table when the gap between them is at most this many chair
            sides.
        stool_radius_range: bar stool radius, as multiples of the table radius.
        unsure_margin: a flag guess is unsure when the runner-up's distance is within this of
            the best one's (distances: % of pixels of another colour name + mean ΔE / 5).
        unsure_distance: a flag guess is unsure when its distance exceeds this.
    """

    detect_px: int = 1000
    min_board_fraction: float = 0.15
    work_px: int = 1400
    table_radius_range: tuple[float, float] = (0.02, 0.14)
    circle_perfectness: float = 0.8
    min_outline: float = 0.4
    min_plain_rim: float = 0.55
    outline_vs_others: float = 0.6
    same_size: float = 1.2
    chair_size_range: tuple[float, float] = (0.3, 1.3)
    chair_squareness: float = 0.86
    chair_reach: float = 2.5
    touch_gap: float = 0.2
    stool_radius_range: tuple[float, float] = (0.15, 0.65)
    unsure_margin: float = 8.0
    unsure_distance: float = 70.0
