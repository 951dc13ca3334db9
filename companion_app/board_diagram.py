"""Draw a Café International board layout as a clear diagram (a BGR image, saved as PNG).

Tables are circles striped in flag-ish colours with their nationality and id; chairs are small
squares joined to their table by a line; a shared chair (between two tables, CI-3) is a larger
diamond split in its two tables' colours; the bar's stools show their value and number (CI-4,
CI-5). Layouts without positions are drawn on an automatic grid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from engines.cafe_international.catalogue import DISPLAY_NAMES
from engines.cafe_international.layout import Layout

Point = tuple[float, float]
Colour = tuple[int, int, int]


def _bgr(red: int, green: int, blue: int) -> Colour:
    return (blue, green, red)


WHITE = _bgr(255, 255, 255)
BLACK = _bgr(0, 0, 0)
# (stripes, vertical?) per nationality, in RGB read as BGR by _bgr
FLAGS: dict[str, tuple[tuple[Colour, ...], bool]] = {
    "africa": ((_bgr(0, 122, 61), _bgr(252, 209, 22), _bgr(206, 17, 38)), False),
    "china": ((_bgr(222, 41, 16), _bgr(222, 41, 16), _bgr(255, 222, 0)), False),
    "cuba": ((_bgr(0, 42, 143), WHITE, _bgr(0, 42, 143)), False),
    "france": ((_bgr(0, 85, 164), WHITE, _bgr(239, 65, 53)), True),
    "germany": ((BLACK, _bgr(221, 0, 0), _bgr(255, 206, 0)), False),
    "india": ((_bgr(255, 153, 51), WHITE, _bgr(19, 136, 8)), False),
    "italy": ((_bgr(0, 146, 70), WHITE, _bgr(206, 43, 55)), True),
    "russia": ((WHITE, _bgr(0, 57, 166), _bgr(213, 43, 30)), False),
    "spain": ((_bgr(170, 21, 27), _bgr(241, 191, 0), _bgr(170, 21, 27)), False),
    "turkey": ((_bgr(227, 10, 23), WHITE, _bgr(227, 10, 23)), True),
    "uk": ((_bgr(1, 33, 105), _bgr(200, 16, 46), _bgr(1, 33, 105)), False),
    "usa": ((_bgr(178, 34, 52), WHITE, _bgr(60, 59, 110)), False),
}
MAIN_COLOUR: dict[str, Colour] = {
    "africa": _bgr(0, 122, 61),
    "china": _bgr(222, 41, 16),
    "cuba": _bgr(0, 42, 143),
    "france": _bgr(0, 85, 164),
    "germany": _bgr(255, 206, 0),
    "india": _bgr(255, 153, 51),
    "italy": _bgr(0, 146, 70),
    "russia": _bgr(0, 57, 166),
    "spain": _bgr(241, 191, 0),
    "turkey": _bgr(227, 10, 23),
    "uk": _bgr(1, 33, 105),
    "usa": _bgr(178, 34, 52),
}
BACKGROUND = _bgr(236, 228, 210)
LINK = _bgr(150, 140, 125)
FONT = cv2.FONT_HERSHEY_SIMPLEX
CELL = 120.0  # the spacing used for layouts without positions, in board units


def auto_positions(layout: Layout) -> tuple[list[Point], list[Point]]:
    """Table and chair centres for a layout (its own where given, else a grid)."""
    count = len(layout.tables)
    columns = max(1, math.ceil(math.sqrt(count)))
    tables: list[Point] = []
    for index, table in enumerate(layout.tables):
        if table.center is not None:
            tables.append(table.center)
        else:
            row, column = divmod(index, columns)
            tables.append((CELL + column * CELL * 1.6, CELL + row * CELL * 1.6))
    chairs: list[Point] = []
    ring: dict[int, int] = {}
    for chair_index, chair in enumerate(layout.chairs):
        if chair.center is not None:
            chairs.append(chair.center)
            continue
        owners = layout.chair_tables[chair_index]
        if len(owners) == 2:
            (ax, ay), (bx, by) = tables[owners[0]], tables[owners[1]]
            chairs.append(((ax + bx) / 2, (ay + by) / 2))
        else:
            slot = ring.get(owners[0], 0)
            ring[owners[0]] = slot + 1
            angle = math.pi / 4 + slot * math.pi / 2
            x, y = tables[owners[0]]
            chairs.append((x + 0.5 * CELL * math.cos(angle), y + 0.5 * CELL * math.sin(angle)))
    return tables, chairs


def _stool_positions(layout: Layout, bottom: float, left: float) -> list[Point]:
    if layout.stools is not None:
        return list(layout.stools)
    count = len(layout.bar_values)
    return [(left + 40 + i * 40.0, bottom + 70) for i in range(count)]


def _text(
    image: np.ndarray,
    text: str,
    center: tuple[int, int],
    scale: float,
    colour: Colour = BLACK,
    thickness: int = 1,
    box: Colour | None = None,
) -> None:
    (width, height), baseline = cv2.getTextSize(text, FONT, scale, thickness)
    x = int(center[0] - width / 2)
    y = int(center[1] + height / 2)
    if box is not None:
        pad = max(2, int(3 * scale))
        cv2.rectangle(
            image, (x - pad, y - height - pad), (x + width + pad, y + baseline), box, cv2.FILLED
        )
    cv2.putText(image, text, (x, y), FONT, scale, colour, thickness, cv2.LINE_AA)


def _striped_circle(
    image: np.ndarray, center: tuple[int, int], radius: int, nationality: str
) -> None:
    stripes, vertical = FLAGS[nationality]
    x0, y0 = center[0] - radius, center[1] - radius
    size = 2 * radius + 1
    patch = np.zeros((size, size, 3), np.uint8)
    edges = np.linspace(0, size, len(stripes) + 1).astype(int)
    for colour, start, stop in zip(stripes, edges[:-1], edges[1:], strict=True):
        if vertical:
            patch[:, start:stop] = colour
        else:
            patch[start:stop, :] = colour
    mask = np.zeros((size, size), np.uint8)
    cv2.circle(mask, (radius, radius), radius, 255, cv2.FILLED, cv2.LINE_AA)
    region = image[y0 : y0 + size, x0 : x0 + size]
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    region[:] = (patch * alpha + region * (1 - alpha)).astype(np.uint8)
    cv2.circle(image, center, radius, BLACK, 2, cv2.LINE_AA)


def _diamond(
    image: np.ndarray, center: tuple[int, int], size: int, colours: Sequence[Colour]
) -> None:
    x, y = center
    left = np.array([[x, y - size], [x - size, y], [x, y + size]], np.int32)
    right = np.array([[x, y - size], [x + size, y], [x, y + size]], np.int32)
    cv2.fillConvexPoly(image, left, colours[0], cv2.LINE_AA)
    cv2.fillConvexPoly(image, right, colours[-1], cv2.LINE_AA)
    outline = np.array([[x, y - size], [x + size, y], [x, y + size], [x - size, y]], np.int32)
    cv2.polylines(image, [outline], True, BLACK, 2, cv2.LINE_AA)


def draw_layout(layout: Layout, *, width_px: int = 1400) -> np.ndarray:
    """Draw `layout`; return a new uint8 BGR image of shape (H, `width_px`, 3)."""
    tables, chairs = auto_positions(layout)
    xs = [p[0] for p in tables + chairs]
    ys = [p[1] for p in tables + chairs]
    stools = _stool_positions(layout, max(ys), min(xs))
    xs += [p[0] for p in stools]
    ys += [p[1] for p in stools]
    margin = 70.0
    min_x, max_x = min(xs) - margin, max(xs) + margin
    min_y, max_y = min(ys) - margin, max(ys) + margin
    scale = width_px / (max_x - min_x)
    header, footer = 70, 90
    height_px = int((max_y - min_y) * scale) + header + footer
    image = np.full((height_px, width_px, 3), BACKGROUND, np.uint8)

    def px(point: Point) -> tuple[int, int]:
        return (
            int(round((point[0] - min_x) * scale)),
            int(round((point[1] - min_y) * scale)) + header,
        )

    unit = scale * CELL / 120.0  # pixels per board unit, relative to the reference spacing
    table_radius = max(14, int(30 * unit))
    chair_half = max(6, int(10 * unit))
    font = max(0.35, 0.45 * unit)
    # links first, so that tables and chairs sit on top of them
    for chair_index, point in enumerate(chairs):
        for owner in layout.chair_tables[chair_index]:
            cv2.line(image, px(point), px(tables[owner]), LINK, max(1, int(2 * unit)), cv2.LINE_AA)
    # the bar counter
    if stools:
        sx = [px(p)[0] for p in stools]
        sy = [px(p)[1] for p in stools]
        inset = int(22 * unit)
        top_left = (min(sx) + inset, min(sy) + inset)
        bottom_right = (max(sx) - inset, max(sy) - inset)
        if bottom_right[0] > top_left[0] + 10 and bottom_right[1] > top_left[1] + 10:
            cv2.rectangle(image, top_left, bottom_right, _bgr(120, 78, 40), cv2.FILLED)
            cv2.rectangle(image, top_left, bottom_right, BLACK, 2)
            middle = ((top_left[0] + bottom_right[0]) // 2, (top_left[1] + bottom_right[1]) // 2)
            _text(image, "BAR", (middle[0], middle[1] - int(14 * unit)), 0.9 * unit, WHITE, 2)
            _text(image, layout.bar_reading, (middle[0], middle[1] + int(16 * unit)), font, WHITE)
    ring_centre = (
        sum(px(p)[0] for p in stools) / max(1, len(stools)),
        sum(px(p)[1] for p in stools) / max(1, len(stools)),
    )
    for number, (point, value) in enumerate(zip(stools, layout.bar_values, strict=False), 1):
        centre = px(point)
        fill = _bgr(200, 235, 200) if value > 0 else _bgr(250, 205, 200)
        radius = max(10, int(15 * unit))
        cv2.circle(image, centre, radius, fill, cv2.FILLED, cv2.LINE_AA)
        cv2.circle(image, centre, radius, BLACK, 1, cv2.LINE_AA)
        _text(image, f"{value:+d}", centre, 0.85 * font, BLACK, 1)
        # the stool number goes outside the ring, away from the counter
        dx, dy = centre[0] - ring_centre[0], centre[1] - ring_centre[1]
        away = radius + int(9 * unit)
        if layout.stools is None or abs(dy) * 1.2 >= abs(dx):
            spot = (centre[0], centre[1] + (away if dy > 0 else -away))
        else:
            spot = (centre[0] + (away if dx > 0 else -away), centre[1])
        _text(image, str(number), spot, 0.7 * font, _bgr(70, 40, 20), 1)
    # tables
    for table, point in zip(layout.tables, tables, strict=True):
        centre = px(point)
        _striped_circle(image, centre, table_radius, table.nationality)
        name = DISPLAY_NAMES[table.nationality]
        _text(image, name, (centre[0], centre[1] + 2), font, BLACK, 1, box=WHITE)
        _text(
            image,
            table.id,
            (centre[0], centre[1] - int(table_radius * 0.62)),
            0.8 * font,
            BLACK,
            1,
            box=_bgr(255, 255, 225),
        )
    # chairs
    for chair_index, (chair, point) in enumerate(zip(layout.chairs, chairs, strict=True)):
        centre = px(point)
        owners = layout.chair_tables[chair_index]
        colours = [MAIN_COLOUR[layout.table_nationality[t]] for t in owners]
        if len(owners) == 2:
            _diamond(image, centre, int(chair_half * 1.6), colours)
        else:
            x, y = centre
            cv2.rectangle(
                image,
                (x - chair_half, y - chair_half),
                (x + chair_half, y + chair_half),
                _bgr(250, 250, 250),
                cv2.FILLED,
            )
            cv2.rectangle(
                image,
                (x - chair_half, y - chair_half),
                (x + chair_half, y + chair_half),
                colours[0],
                2,
            )
        # the id goes on the side away from the links
        link_dx = sum(tables[t][0] - point[0] for t in owners)
        link_dy = sum(tables[t][1] - point[1] for t in owners)
        gap = int(chair_half * (1.6 if len(owners) == 2 else 1.0)) + int(6 * unit)
        if len(owners) == 2:
            ax, ay = tables[owners[0]]
            bx, by = tables[owners[1]]
            if abs(ay - by) > abs(ax - bx):
                spot = (centre[0] + gap + int(10 * unit), centre[1])
            else:
                spot = (centre[0], centre[1] + gap + int(6 * unit))
        elif abs(link_dy) > abs(link_dx):
            spot = (centre[0] + gap + int(12 * unit), centre[1])
        else:
            spot = (centre[0], centre[1] + gap + int(6 * unit))
        _text(image, chair.id, spot, 0.6 * font, _bgr(60, 60, 60), 1, box=BACKGROUND)
    # header and legend
    shared = sum(chair.is_shared for chair in layout.chairs)
    title = (
        f"Cafe International layout '{layout.name}': {len(layout.tables)} tables, "
        f"{len(layout.chairs)} chairs ({shared} shared), bar: {layout.bar_reading}"
    )
    _text(image, title, (width_px // 2, header // 2), 0.8, BLACK, 2)
    y = height_px - footer // 2
    x = 40
    cv2.rectangle(image, (x, y - 9), (x + 18, y + 9), _bgr(250, 250, 250), cv2.FILLED)
    cv2.rectangle(image, (x, y - 9), (x + 18, y + 9), LINK, 2)
    cv2.putText(image, "chair of one table", (x + 28, y + 7), FONT, 0.6, BLACK, 1, cv2.LINE_AA)
    x += 260
    _diamond(image, (x + 9, y), 14, (_bgr(0, 146, 70), _bgr(0, 85, 164)))
    cv2.putText(
        image,
        "chair shared by two tables (split in their colours)",
        (x + 30, y + 7),
        FONT,
        0.6,
        BLACK,
        1,
        cv2.LINE_AA,
    )
    x += 560
    cv2.circle(image, (x + 9, y), 13, _bgr(200, 235, 200), cv2.FILLED)
    cv2.circle(image, (x + 9, y), 13, BLACK, 1)
    cv2.putText(
        image,
        "bar stool: value inside, number outside",
        (x + 30, y + 7),
        FONT,
        0.6,
        BLACK,
        1,
        cv2.LINE_AA,
    )
    return image


def save_layout_png(layout: Layout, path: str, *, width_px: int = 1400) -> None:
    """Draw `layout` and write it as a PNG to `path`.

    Raises:
        OSError: the image cannot be written.
    """
    image = draw_layout(layout, width_px=width_px)
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise OSError(f"cannot encode the diagram for {path!r}")
    from pathlib import Path

    Path(path).write_bytes(encoded.tobytes())


__all__ = ["FLAGS", "auto_positions", "draw_layout", "save_layout_png"]
