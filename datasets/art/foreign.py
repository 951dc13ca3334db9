"""Foreign pieces: cards and tiles whose art is not ours, so a detector learns shapes and edges.

Players own decks and tiles that look nothing like the companion art. `foreign_face` composes a
face from independent random layers: a background (flat, gradients, stripes, checks, dots, waves,
sunbursts, cells, photo-like smooth noise and blurred blobs), content (a big symbol, playing-card
corner indices and pip grids, random text, a picture box with a caption, a big number or letter,
domino halves, brush strokes) and a border (none/full-bleed, white, black, coloured, inset lines,
rounded frames, dotted ornaments).
"""

from __future__ import annotations

import math
import string

import cv2
import numpy as np

from datasets.art.pictograms import BGR, Canvas, lighter, regular_polygon, star

KINDS: tuple[str, ...] = ("card", "tile")
_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX, cv2.FONT_HERSHEY_PLAIN,
)  # fmt: skip


# -- random colours -------------------------------------------------------------------------------
def _colour(rng: np.random.Generator) -> BGR:
    hsv = np.array(
        [[[rng.integers(0, 180), rng.integers(40, 256), rng.integers(40, 256)]]], np.uint8
    )
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return (int(b), int(g), int(r))


def _palette(rng: np.random.Generator, n: int) -> list[BGR]:
    if rng.random() < 0.2:  # muted/greyscale decks exist too
        base = int(rng.integers(20, 236))
        return [(v, v, v) for v in np.clip(base + rng.integers(-120, 120, n), 0, 255).tolist()]
    return [_colour(rng) for _ in range(n)]


def _contrasting(rng: np.random.Generator, bg: np.ndarray) -> BGR:
    luma = float(bg.reshape(-1, 3).mean(axis=0) @ np.array([0.114, 0.587, 0.299]))
    c = _colour(rng)
    if luma > 140:
        return (int(c[0] * 0.45), int(c[1] * 0.45), int(c[2] * 0.45))
    return lighter(c, 0.6)


# -- backgrounds ----------------------------------------------------------------------------------
def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    cells_y = max(2, int(round(cells * h / max(w, 1))))
    grid = rng.random((cells_y, cells)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _colour_map(t: np.ndarray, colours: list[BGR]) -> np.ndarray:
    """Map t in [0, 1] through a piecewise linear ramp of `colours`."""
    cols = np.array(colours, np.float32)
    pos = np.clip(t, 0, 1) * (len(cols) - 1)
    i0 = np.floor(pos).astype(np.int32).clip(0, len(cols) - 2)
    f = (pos - i0)[..., None]
    return cols[i0] * (1 - f) + cols[i0 + 1] * f


def _background(rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, str]:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / max(w, 1), yy / max(w, 1)
    img: np.ndarray
    style = str(
        rng.choice(
            [
                "flat",
                "linear",
                "radial",
                "stripes",
                "checks",
                "dots",
                "noise",
                "blobs",
                "waves",
                "sunburst",
                "cells",
                "noise",
            ]
        )
    )
    cols = _palette(rng, 4)
    if style == "flat":
        img = np.empty((h, w, 3), np.float32)
        img[:] = cols[0]
    elif style == "linear":
        a = rng.uniform(0, 2 * math.pi)
        t = xn * math.cos(a) + yn * math.sin(a)
        t = (t - t.min()) / max(float(np.ptp(t)), 1e-6)
        img = _colour_map(t, cols[:2])
    elif style == "radial":
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8) * h / max(w, 1)
        t = np.sqrt((xn - cx) ** 2 + (yn - cy) ** 2) * rng.uniform(1.0, 2.5)
        img = _colour_map(np.clip(t, 0, 1), cols[:3])
    elif style == "stripes":
        a = rng.uniform(0, math.pi)
        freq = rng.uniform(3, 20)
        t = (xn * math.cos(a) + yn * math.sin(a)) * freq
        k = int(rng.integers(2, 4))
        idx = np.floor(t).astype(np.int64) % k
        img = np.array(cols[:k], np.float32)[idx]
    elif style == "checks":
        n = rng.uniform(3, 14)
        a = rng.choice([0.0, math.pi / 4])
        u = xn * math.cos(a) + yn * math.sin(a)
        v = -xn * math.sin(a) + yn * math.cos(a)
        idx = (np.floor(u * n) + np.floor(v * n)).astype(np.int64) % 2
        img = np.array(cols[:2], np.float32)[idx]
    elif style == "dots":
        n = rng.uniform(4, 14)
        r = rng.uniform(0.15, 0.4)
        u, v = (xn * n) % 1.0 - 0.5, (yn * n) % 1.0 - 0.5
        inside = (u * u + v * v) < r * r
        img = np.where(
            inside[..., None], np.array(cols[1], np.float32), np.array(cols[0], np.float32)
        )
    elif style == "waves":
        f1, f2 = rng.uniform(2, 12, 2)
        t = (
            0.5
            + 0.25 * np.sin(xn * f1 * 2 * math.pi + 3 * np.sin(yn * f2))
            + 0.25 * np.sin(yn * f2 * 2 * math.pi)
        )
        img = _colour_map(t, cols[:3])
    elif style == "sunburst":
        cx, cy = w / 2, h / 2
        ang = np.arctan2(yy - cy, xx - cx)
        n = int(rng.integers(6, 24))
        idx = (np.floor((ang + math.pi) / (2 * math.pi) * n)).astype(np.int64) % 2
        img = np.array(cols[:2], np.float32)[idx]
    elif style == "cells":
        n = int(rng.integers(5, 30))
        pts = rng.random((n, 2)).astype(np.float32) * np.array([w, h], np.float32)
        d = (xx[..., None] - pts[:, 0]) ** 2 + (yy[..., None] - pts[:, 1]) ** 2
        idx = d.argmin(axis=-1)
        cell_cols = np.array(_palette(rng, n), np.float32)
        img = cell_cols[idx]
    elif style == "blobs":
        img = np.empty((h, w, 3), np.float32)
        img[:] = cols[0]
        for _ in range(int(rng.integers(4, 14))):
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            ax = (
                int(rng.integers(w // 12 + 1, w // 2 + 2)),
                int(rng.integers(h // 12 + 1, h // 2 + 2)),
            )
            cv2.ellipse(img, c, ax, float(rng.uniform(0, 180)), 0, 360, _colour(rng), -1)
        k = max(3, (w // 8) | 1)
        img = cv2.GaussianBlur(img, (k, k), 0)
    elif style == "scene":  # a landscape: sky gradient, a sun, layered hills
        t = np.clip(yy / max(h, 1), 0, 1)
        img = _colour_map(t, [_colour(rng), lighter(_colour(rng), 0.5)])
        sun = (int(rng.integers(0, w)), int(rng.integers(0, h // 2 + 1)))
        cv2.circle(
            img,
            sun,
            int(rng.integers(w // 12 + 1, w // 5 + 2)),
            lighter(_colour(rng), 0.6),
            -1,
            cv2.LINE_AA,
        )
        layers = int(rng.integers(2, 5))
        for k in range(layers):
            base = h * (0.45 + 0.5 * (k + 1) / (layers + 1))
            xs = np.linspace(0, w, 24)
            ys = base + np.cumsum(rng.normal(0, h * 0.03, 24))
            pts = np.array([[0, h], *zip(xs, ys, strict=True), [w, h]], np.float32)
            shade = tuple(int(v * (0.9 - 0.15 * k)) for v in _colour(rng))
            cv2.fillPoly(img, [np.round(pts).astype(np.int32)], shade, cv2.LINE_AA)
        img = cv2.GaussianBlur(img, (3, 3), 0)
    elif style == "lattice":  # a classic card-back lattice of diamonds with dots
        n = rng.uniform(5, 16)
        u = (xn + yn) * n
        v = (xn - yn) * n
        du, dv = np.abs((u % 1.0) - 0.5), np.abs((v % 1.0) - 0.5)
        line = np.minimum(du, dv) < rng.uniform(0.05, 0.15)
        dot = (du - 0.5) ** 2 + (dv - 0.5) ** 2 < 0.02
        img = np.empty((h, w, 3), np.float32)
        img[:] = cols[0]
        img[line] = cols[1]
        img[dot] = cols[2]
    elif style == "mandala":  # rings of petals around the centre
        cx, cy = w / 2, h / 2
        r = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / max(w, 1)
        a = np.arctan2(yy - cy, xx - cx)
        petals = int(rng.integers(5, 16))
        t = 0.5 + 0.5 * np.cos(a * petals) * np.cos(r * rng.uniform(15, 45))
        img = _colour_map(t, cols[:3])
    else:  # photo-like multi-scale noise
        t = (
            _smooth_noise(rng, h, w, 3) * 0.55
            + _smooth_noise(rng, h, w, 9) * 0.3
            + _smooth_noise(rng, h, w, 40) * 0.15
        )
        img = _colour_map(t, cols[:3])
    if rng.random() < 0.3:  # paper/print grain
        img = img + rng.normal(0, rng.uniform(2, 10), img.shape[:2])[..., None]
    return np.clip(img, 0, 255).astype(np.uint8), style


# -- content --------------------------------------------------------------------------------------
def _suit(cv: Canvas, suit: str, c: tuple[float, float], s: float, colour: BGR) -> None:
    x, y = c
    if suit == "heart":
        cv.circle((x - s * 0.22, y - s * 0.12), s * 0.25, colour)
        cv.circle((x + s * 0.22, y - s * 0.12), s * 0.25, colour)
        cv.poly(
            [(x - s * 0.46, y - s * 0.04), (x + s * 0.46, y - s * 0.04), (x, y + s * 0.45)], colour
        )
    elif suit == "diamond":
        cv.poly([(x, y - s * 0.5), (x + s * 0.35, y), (x, y + s * 0.5), (x - s * 0.35, y)], colour)
    elif suit == "club":
        for dx, dy in ((0, -0.22), (-0.22, 0.06), (0.22, 0.06)):
            cv.circle((x + dx * s, y + dy * s), s * 0.2, colour)
        cv.poly([(x, y), (x + s * 0.15, y + s * 0.45), (x - s * 0.15, y + s * 0.45)], colour)
    else:  # spade
        cv.circle((x - s * 0.2, y + s * 0.08), s * 0.22, colour)
        cv.circle((x + s * 0.2, y + s * 0.08), s * 0.22, colour)
        cv.poly(
            [(x - s * 0.42, y + s * 0.02), (x + s * 0.42, y + s * 0.02), (x, y - s * 0.48)], colour
        )
        cv.poly(
            [(x, y + s * 0.1), (x + s * 0.15, y + s * 0.48), (x - s * 0.15, y + s * 0.48)], colour
        )


def _word(rng: np.random.Generator, n: int) -> str:
    letters = string.ascii_uppercase if rng.random() < 0.6 else string.ascii_letters
    return "".join(rng.choice(list(letters), n))


def _text(
    cv: Canvas,
    rng: np.random.Generator,
    s: str,
    c: tuple[float, float],
    h: float,
    colour: BGR,
    max_width: float,
) -> None:
    font = int(rng.choice(_FONTS))
    cv.text(s, c, h, colour, font=font, weight=float(rng.uniform(0.06, 0.18)), max_width=max_width)


def _content(cv: Canvas, rng: np.random.Generator, kind: str, bg: np.ndarray) -> list[str]:
    w, h = cv.width_mm, cv.height_mm
    ink = _contrasting(rng, bg)
    options = (
        ["symbol", "corners", "pips", "text", "picture", "number", "strokes", "none"]
        if kind == "card"
        else ["symbol", "number", "letter", "domino", "strokes", "text", "none"]
    )
    chosen = list(rng.choice(options, size=int(rng.integers(1, 3)), replace=False))
    for what in chosen:
        if what == "symbol":
            c = (w * rng.uniform(0.35, 0.65), h * rng.uniform(0.35, 0.65))
            s = min(w, h) * rng.uniform(0.3, 0.8)
            shape = rng.choice(["heart", "diamond", "club", "spade", "star", "circle", "polygon"])
            if shape == "star":
                cv.poly(star(c, s / 2, s / 4.5, int(rng.integers(4, 9))), ink)
            elif shape == "circle":
                cv.circle(c, s / 2, ink, -1 if rng.random() < 0.5 else s * 0.08)
            elif shape == "polygon":
                cv.poly(
                    regular_polygon(c, s / 2, int(rng.integers(3, 9)), float(rng.uniform(0, 360))),
                    ink,
                )
            else:
                _suit(cv, str(shape), c, s, ink)
        elif what == "corners":
            ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
            rank = str(rng.choice(ranks))
            suit = str(rng.choice(["heart", "diamond", "club", "spade"]))
            col = (30, 30, 200) if suit in ("heart", "diamond") else (25, 25, 25)
            if rng.random() < 0.4:
                col = ink
            s = w * 0.12
            # the index is drawn once as a mask, then blended top left and, turned, bottom right
            mask = Canvas(
                w * 0.25, h * 0.08 + s * 2.2, max(2, int(round(w * 0.25 * cv.scale))), (0, 0, 0)
            )
            mask.text(rank, (w * 0.12, h * 0.08), s, (255, 255, 255), max_width=w * 0.18)
            _suit(mask, suit, (w * 0.12, h * 0.08 + s * 1.5), s * 0.9, (255, 255, 255))
            alpha = mask.image[..., :1].astype(np.float32) / 255.0
            ph, pw = alpha.shape[:2]
            ph, pw = min(ph, cv.image.shape[0]), min(pw, cv.image.shape[1])
            ink_arr = np.array(col, np.float32)
            for region, a in (
                (cv.image[:ph, :pw], alpha[:ph, :pw]),
                (cv.image[cv.image.shape[0] - ph :, cv.image.shape[1] - pw :],
                 alpha[::-1, ::-1][-ph:, -pw:]),
            ):  # fmt: skip
                region[:] = (region * (1 - a) + ink_arr * a).astype(np.uint8)
        elif what == "pips":
            suit = str(rng.choice(["heart", "diamond", "club", "spade"]))
            n = int(rng.integers(2, 11))
            cols = 2 if n > 3 else 1
            rows = int(math.ceil(n / cols))
            for i in range(n):
                cx = w * (0.5 if cols == 1 else (0.33 if i % cols == 0 else 0.67))
                cy = h * (0.2 + 0.6 * ((i // cols) + 0.5) / rows)
                _suit(cv, suit, (cx, cy), min(w, h) * 0.16, ink)
        elif what == "text":
            lines = int(rng.integers(1, 6))
            th = h * rng.uniform(0.03, 0.09)
            y = h * rng.uniform(0.15, 0.6)
            for _ in range(lines):
                words = " ".join(_word(rng, int(rng.integers(2, 8))) for _ in range(3))
                _text(cv, rng, words, (w / 2, y), th, ink, w * 0.85)
                y += th * 1.8
        elif what == "picture":
            x0, y0 = w * 0.1, h * rng.uniform(0.08, 0.2)
            x1, y1 = w * 0.9, y0 + h * rng.uniform(0.3, 0.5)
            box = [int(round(v * cv.scale)) for v in (x0, y0, x1, y1)]
            sub_h, sub_w = max(1, box[3] - box[1]), max(1, box[2] - box[0])
            pic, _ = _background(rng, sub_h, sub_w)
            cv.image[box[1] : box[1] + sub_h, box[0] : box[0] + sub_w] = pic
            cv.rect(x0, y0, x1, y1, ink, w * 0.01)
            _text(
                cv,
                rng,
                _word(rng, int(rng.integers(4, 10))),
                (w / 2, y1 + h * 0.07),
                h * 0.05,
                ink,
                w * 0.8,
            )
        elif what == "number":
            num = str(int(rng.integers(0, 100 if kind == "card" else 14)))
            _text(
                cv,
                rng,
                num,
                (w / 2, h * rng.uniform(0.4, 0.6)),
                h * rng.uniform(0.25, 0.5),
                _colour(rng) if rng.random() < 0.5 else ink,
                w * 0.8,
            )
            if rng.random() < 0.5:
                cv.circle((w / 2, h * 0.82), min(w, h) * 0.07, ink)
        elif what == "letter":
            _text(
                cv,
                rng,
                str(rng.choice(list(string.ascii_uppercase))),
                (w / 2, h / 2),
                h * 0.5,
                ink,
                w * 0.7,
            )
            cv.text(str(int(rng.integers(1, 11))), (w * 0.82, h * 0.82), h * 0.14, ink)
        elif what == "domino":
            vertical = h >= w
            if vertical:
                cv.line((w * 0.1, h / 2), (w * 0.9, h / 2), ink, min(w, h) * 0.03)
            else:
                cv.line((w / 2, h * 0.1), (w / 2, h * 0.9), ink, min(w, h) * 0.03)
            for half in range(2):
                n = int(rng.integers(0, 7))
                for i in range(n):
                    u, v = (i % 3 + 0.5) / 3, (i // 3 + 0.5) / 3
                    if vertical:
                        p = (w * (0.15 + 0.7 * u), h * (0.5 * half + 0.1 + 0.3 * v))
                    else:
                        p = (w * (0.5 * half + 0.1 + 0.3 * u), h * (0.15 + 0.7 * v))
                    cv.circle(p, min(w, h) * 0.06, ink)
        elif what == "strokes":
            for _ in range(int(rng.integers(2, 8))):
                p0 = (w * rng.uniform(0.2, 0.8), h * rng.uniform(0.2, 0.8))
                p1 = (p0[0] + w * rng.uniform(-0.3, 0.3), p0[1] + h * rng.uniform(-0.3, 0.3))
                cv.line(p0, p1, ink, min(w, h) * rng.uniform(0.02, 0.07))
    return [str(c) for c in chosen]


# -- borders --------------------------------------------------------------------------------------
def _border(cv: Canvas, rng: np.random.Generator, kind: str) -> str:
    w, h = cv.width_mm, cv.height_mm
    style = str(
        rng.choice(
            ["none", "white", "white", "black", "colour", "inset", "rounded", "dotted", "double"]
        )
    )
    m = min(w, h) * rng.uniform(0.02, 0.09)
    if style in ("white", "black", "colour"):
        col: BGR = {"white": (250, 250, 250), "black": (20, 20, 20)}.get(style, _colour(rng))
        if style == "white" and rng.random() < 0.5:
            grey = int(rng.integers(225, 256))
            col = (grey, grey, grey)
        cv.rect(0, 0, w, m, col)
        cv.rect(0, h - m, w, h, col)
        cv.rect(0, 0, m, h, col)
        cv.rect(w - m, 0, w, h, col)
    elif style == "inset":
        cv.rect(m, m, w - m, h - m, _colour(rng), min(w, h) * rng.uniform(0.005, 0.02))
    elif style == "rounded":
        col = _colour(rng)
        thick = min(w, h) * rng.uniform(0.01, 0.04)
        cv.rect(m, m, w - m, h - m, col, thick, radius=min(w, h) * 0.08)
    elif style == "dotted":
        col = _colour(rng)
        step = min(w, h) * rng.uniform(0.04, 0.08)
        r = step * 0.3
        x = m
        while x <= w - m:
            cv.circle((x, m), r, col)
            cv.circle((x, h - m), r, col)
            x += step
        y = m
        while y <= h - m:
            cv.circle((m, y), r, col)
            cv.circle((w - m, y), r, col)
            y += step
    elif style == "double":
        col = _colour(rng)
        t = min(w, h) * 0.01
        cv.rect(m, m, w - m, h - m, col, t)
        cv.rect(m * 1.6, m * 1.6, w - m * 1.6, h - m * 1.6, col, t)
    return style


def foreign_face(kind: str, rng: np.random.Generator, width_px: int, aspect: float) -> np.ndarray:
    """A face of a card or tile that is not ours, `width_px` wide and ``width_px * aspect`` tall.

    Args:
        kind: ``"card"`` or ``"tile"`` (tiles favour numbers, letters, dominoes; cards favour
            suits, corner indices, pictures and text).
        rng: the random source; the same state gives the same face.
        width_px: image width.
        aspect: height divided by width.

    Raises:
        ValueError: unknown `kind`, or a non-positive size or aspect.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown foreign kind {kind!r}")
    if width_px < 4 or not aspect > 0:
        raise ValueError(f"bad foreign face size: width {width_px!r}, aspect {aspect!r}")
    h = max(4, int(round(width_px * aspect)))
    bg, _style = _background(rng, h, width_px)
    cv = Canvas(float(width_px), float(h), width_px, (0, 0, 0))
    cv.image = bg
    _content(cv, rng, kind, bg)
    _border(cv, rng, kind)
    return cv.image
