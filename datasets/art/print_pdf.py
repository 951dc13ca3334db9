"""Print-and-play PDFs: every piece of a game at real size on A4 pages, with cut marks.

A game's PDF holds the whole set of physical pieces (the quantities below), laid out on a grid with
a small gutter and crop marks in the margins, then one page of backs (print it on the reverse of
each sheet: its columns are mirrored for long-edge duplex), and for Café International the board at
a scale where every chair fits a tile, split over several pages to cut and tape together.

Quantities (rules `KB-1`, `CI-2`, `DK-2`…`DK-4`): King's Breakfast 15 of each food and 5 Emeralds;
Café International 4 women and 4 men of each nationality and 2 + 2 jokers; Dice King one of each
card in the companion deck.

`plan` returns the placement plan that `make_pdf` draws, so tests and previews can check sizes
without parsing the PDF; `page_preview` draws one planned page as an image.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

import datasets.art as art
from datasets.art import cafe_international as _ci

if TYPE_CHECKING:
    from fpdf import FPDF

PAGE_MM: tuple[float, float] = (210.0, 297.0)  # A4 portrait
MARGIN_MM = 7.0
GUTTER_MM = 2.0
PRINT_DPI = 300
BOARD_DPI = 150
_BOARD_CHAIR_CLEARANCE_MM = 2.0  # a chair place is this much wider than a tile …
_BOARD_CHAIR_MIN_CLEARANCE_MM = 1.0  # … or down to this much when it saves board pages
GAME_TITLES: dict[str, str] = {
    "kings-breakfast": "King's Breakfast",
    "cafe-international": "Cafe International",
    "dice-king": "Dice King",
}


@dataclass(frozen=True)
class Placement:
    """One image on a page: what (a piece identity, ``back:<game>`` or ``board:<row>,<col>``) and
    where (top-left corner and size in millimetres from the page's top-left corner)."""

    what: str
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float


@dataclass(frozen=True)
class Page:
    """One planned page: its size (portrait or landscape A4), placements and crop-mark cuts."""

    width_mm: float
    height_mm: float
    placements: tuple[Placement, ...]
    cuts_x_mm: tuple[float, ...] = ()
    cuts_y_mm: tuple[float, ...] = ()
    title: str = ""


def copies(game: str) -> list[str]:
    """Every physical piece of `game` (identities repeated by their counts in the set)."""
    if game == "kings-breakfast":
        return [i for i in art.identities(game) if not i.endswith("emerald") for _ in range(15)] + [
            "kings-breakfast/emerald"
        ] * 5
    if game == "cafe-international":
        return [i for i in art.identities(game) for _ in range(2 if "/joker/" in i else 4)]
    return art.identities(game)


def _size(
    game: str, identity: str, card_size_mm: tuple[float, float] | None, tile_size_mm: float | None
) -> tuple[float, float]:
    w, h = art.piece_size_mm(identity)
    if game == "cafe-international" and tile_size_mm is not None:
        return (float(tile_size_mm), float(tile_size_mm) * h / w)
    if game != "cafe-international" and card_size_mm is not None:
        return (float(card_size_mm[0]), float(card_size_mm[1]))
    return (w, h)


def _grid(piece_w: float, piece_h: float) -> tuple[int, int, float]:
    """Columns, rows and gutter for pieces on a portrait page (the gutter drops to 0 if needed)."""
    usable_w, usable_h = PAGE_MM[0] - 2 * MARGIN_MM, PAGE_MM[1] - 2 * MARGIN_MM - 6.0
    for gutter in (GUTTER_MM, 0.0):
        cols = int((usable_w + gutter) // (piece_w + gutter))
        rows = int((usable_h + gutter) // (piece_h + gutter))
        if cols >= 1 and rows >= 1:
            return cols, rows, gutter
    raise ValueError(f"piece size {piece_w:g}x{piece_h:g} mm does not fit on an a4 page")


def _grid_pages(
    items: list[str], piece_w: float, piece_h: float, title: str, mirror: bool = False
) -> list[Page]:
    cols, rows, gutter = _grid(piece_w, piece_h)
    grid_w = cols * piece_w + (cols - 1) * gutter
    grid_h = rows * piece_h + (rows - 1) * gutter
    x0 = (PAGE_MM[0] - grid_w) / 2
    y0 = (PAGE_MM[1] - grid_h) / 2 + 3.0
    cuts_x = sorted(
        {round(x0 + c * (piece_w + gutter) + d, 3) for c in range(cols) for d in (0.0, piece_w)}
    )
    cuts_y = sorted(
        {round(y0 + r * (piece_h + gutter) + d, 3) for r in range(rows) for d in (0.0, piece_h)}
    )
    per_page = cols * rows
    pages = []
    for start in range(0, len(items), per_page):
        chunk = items[start : start + per_page]
        placements = []
        for k, what in enumerate(chunk):
            r, c = divmod(k, cols)
            if mirror:
                c = cols - 1 - c
            placements.append(
                Placement(
                    what, x0 + c * (piece_w + gutter), y0 + r * (piece_h + gutter), piece_w, piece_h
                )
            )
        pages.append(
            Page(PAGE_MM[0], PAGE_MM[1], tuple(placements), tuple(cuts_x), tuple(cuts_y), title)
        )
    return pages


def _board_page_grid(board_w: float, board_h: float) -> tuple[float, float, int, int]:
    """The page size and columns × rows (fewest pages) for a board of the given size in mm."""
    best: tuple[float, float, int, int] | None = None
    for page_w, page_h in (PAGE_MM, PAGE_MM[::-1]):
        usable_w, usable_h = page_w - 2 * MARGIN_MM, page_h - 2 * MARGIN_MM - 6.0
        cols, rows = math.ceil(board_w / usable_w - 1e-9), math.ceil(board_h / usable_h - 1e-9)
        if best is None or cols * rows < best[2] * best[3]:
            best = (page_w, page_h, cols, rows)
    assert best is not None
    return best


def board_mm_per_unit(layout: dict, tile_size_mm: float) -> float:
    """Board millimetres per layout unit: each chair place is 1–2 mm wider than a tile, the
    larger when that does not take more pages."""
    geo = _ci._geometry(layout)
    probe = art.board(layout, 1.0)  # the drawn extent in units
    units_w, units_h = probe.image.shape[1], probe.image.shape[0]
    roomy = (tile_size_mm + _BOARD_CHAIR_CLEARANCE_MM) / geo.chair_side
    snug = (tile_size_mm + _BOARD_CHAIR_MIN_CLEARANCE_MM) / geo.chair_side
    page_w, page_h, cols, rows = _board_page_grid(units_w * roomy, units_h * roomy)
    best_scale, best_pages = roomy, cols * rows
    for page_w, page_h in (PAGE_MM, PAGE_MM[::-1]):
        usable_w, usable_h = page_w - 2 * MARGIN_MM, page_h - 2 * MARGIN_MM - 6.0
        for c in range(1, cols + 2):
            for r in range(1, rows + 2):
                fit = min(c * usable_w / units_w, r * usable_h / units_h, roomy)
                if fit >= snug and (
                    c * r < best_pages or (c * r == best_pages and fit > best_scale)
                ):
                    best_scale, best_pages = fit, c * r
    return best_scale


def _board_pages(tile_mm: float, title: str) -> list[Page]:
    layout = art.default_layout()
    mm_per_unit = board_mm_per_unit(layout, tile_mm)
    probe = art.board(layout, 1.0)  # the drawn extent in units
    board_w = probe.image.shape[1] * mm_per_unit
    board_h = probe.image.shape[0] * mm_per_unit
    page_w, page_h, cols, rows = _board_page_grid(board_w, board_h)
    usable_w, usable_h = page_w - 2 * MARGIN_MM, page_h - 2 * MARGIN_MM - 6.0
    pages = []
    for r in range(rows):
        for c in range(cols):
            # each page shows one cell of the board; the cell's top-left is at the margin
            x = MARGIN_MM - c * usable_w
            y = MARGIN_MM + 6.0 - r * usable_h
            clip = Placement(f"board:{r},{c}", x, y, board_w, board_h)
            pages.append(
                Page(
                    page_w,
                    page_h,
                    (clip,),
                    (MARGIN_MM, page_w - MARGIN_MM),
                    (MARGIN_MM + 6.0, page_h - MARGIN_MM),
                    f"{title} - board part row {r + 1} column {c + 1} of {rows}x{cols}",
                )
            )
    return pages


def plan(
    game: str, *, card_size_mm: tuple[float, float] | None = None, tile_size_mm: float | None = None
) -> list[Page]:
    """The pages of `game`'s print-and-play PDF.

    Raises:
        ValueError: unknown game or a piece size that does not fit on A4 or is not positive.
    """
    if game not in art.GAMES:
        raise ValueError(f"unknown game {game!r}")
    if card_size_mm is not None and not (card_size_mm[0] > 0 and card_size_mm[1] > 0):
        raise ValueError(f"bad card size {card_size_mm!r}")
    if tile_size_mm is not None and not tile_size_mm > 0:
        raise ValueError(f"bad tile size {tile_size_mm!r}")
    items = copies(game)
    w, h = _size(game, items[0], card_size_mm, tile_size_mm)
    title = GAME_TITLES[game]
    pages = _grid_pages(items, w, h, f"{title} - {w:g} x {h:g} mm")
    cols, rows, _ = _grid(w, h)
    backs = [f"back:{game}"] * min(len(items), cols * rows)
    pages += _grid_pages(backs, w, h, f"{title} - backs (print on the reverse)", mirror=True)
    if game == "cafe-international":
        pages += _board_pages(w, title)
    return pages


def _image_for(what: str, w_mm: float, dpi: int, board_cache: dict) -> np.ndarray:
    width_px = max(8, int(round(w_mm / 25.4 * dpi)))
    if what.startswith("back:"):
        return art.back(what.partition(":")[2], width_px)
    if what.startswith("board:"):
        raise AssertionError("boards are drawn by _board_image")
    return art.face(what, width_px)


def _board_image(tile_mm: float, dpi: int, cache: dict) -> np.ndarray:
    key = (tile_mm, dpi)
    if key not in cache:
        layout = art.default_layout()
        mm_per_unit = board_mm_per_unit(layout, tile_mm)
        cache[key] = art.board(layout, mm_per_unit / 25.4 * dpi).image
    return cache[key]


def _png(img: np.ndarray) -> io.BytesIO:
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return io.BytesIO(buf.tobytes())


def make_pdf(
    game: str,
    out_path: str | Path,
    *,
    card_size_mm: tuple[float, float] | None = None,
    tile_size_mm: float | None = None,
) -> int:
    """Write `game`'s pieces at real size to an A4 PDF at `out_path`; return the page count.

    Print at 100 % ("actual size"): each page has a 50 mm ruler to check the scale.

    Raises:
        ValueError: unknown game or a size that does not fit.
    """
    from fpdf import FPDF

    pages = plan(game, card_size_mm=card_size_mm, tile_size_mm=tile_size_mm)
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_creator("table-companion")
    pdf.set_title(f"{GAME_TITLES[game]} - print and play")
    images: dict[tuple[str, float], io.BytesIO] = {}
    board_cache: dict = {}
    tile_mm = _size(game, copies(game)[0], card_size_mm, tile_size_mm)[0]
    for number, page in enumerate(pages, start=1):
        pdf.add_page(orientation="P" if page.width_mm < page.height_mm else "L")
        for p in page.placements:
            if p.what.startswith("board:"):
                big = _board_image(tile_mm, BOARD_DPI, board_cache)
                part = _board_part(big, page, p)
                key = (p.what, page.width_mm)
                images[key] = _png(part)
                usable = _usable(page)
                pdf.image(
                    images[key],
                    x=usable[0],
                    y=usable[1],
                    w=part.shape[1] / BOARD_DPI * 25.4,
                    h=part.shape[0] / BOARD_DPI * 25.4,
                )
                continue
            key = (p.what, round(p.w_mm, 3))
            if key not in images:
                images[key] = _png(_image_for(p.what, p.w_mm, PRINT_DPI, board_cache))
            images[key].seek(0)
            pdf.image(images[key], x=p.x_mm, y=p.y_mm, w=p.w_mm, h=p.h_mm)
        _marks(pdf, page)
        pdf.set_font("helvetica", size=7)
        pdf.set_text_color(90, 90, 90)
        pdf.set_xy(MARGIN_MM, 2.5)
        pdf.cell(
            0,
            3.5,
            f"Table Companion - {page.title} - page {number}/{len(pages)} - "
            "print at 100% (actual size)",
        )
        # a 50 mm ruler to check the printed scale
        y = page.height_mm - 4.0
        pdf.set_draw_color(60, 60, 60)
        pdf.set_line_width(0.2)
        pdf.line(MARGIN_MM, y, MARGIN_MM + 50.0, y)
        for k in range(6):
            pdf.line(MARGIN_MM + 10.0 * k, y - 1.2, MARGIN_MM + 10.0 * k, y)
        pdf.set_xy(MARGIN_MM + 52.0, y - 2.2)
        pdf.cell(0, 3.0, "50 mm")
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(out_path))
    return len(pages)


def _usable(page: Page) -> tuple[float, float, float, float]:
    return (
        MARGIN_MM,
        MARGIN_MM + 6.0,
        page.width_mm - 2 * MARGIN_MM,
        page.height_mm - 2 * MARGIN_MM - 6.0,
    )


def _board_part(big: np.ndarray, page: Page, p: Placement) -> np.ndarray:
    """The pixels of the board visible in the page's usable area."""
    ux, uy, uw, uh = _usable(page)
    px_per_mm = big.shape[1] / p.w_mm
    x0 = int(round((ux - p.x_mm) * px_per_mm))
    y0 = int(round((uy - p.y_mm) * px_per_mm))
    x1 = min(big.shape[1], x0 + int(round(uw * px_per_mm)))
    y1 = min(big.shape[0], y0 + int(round(uh * px_per_mm)))
    return big[y0:y1, x0:x1]


def _marks(pdf: FPDF, page: Page) -> None:
    """Crop marks: short lines in the margins at every cut position."""
    pdf.set_draw_color(120, 120, 120)
    pdf.set_line_width(0.15)
    top, bottom = MARGIN_MM + 6.0, page.height_mm - MARGIN_MM
    if page.placements:
        top = (
            min(p.y_mm for p in page.placements)
            if not page.placements[0].what.startswith("board:")
            else top
        )
        bottom = (
            max(p.y_mm + p.h_mm for p in page.placements)
            if not page.placements[0].what.startswith("board:")
            else bottom
        )
    left = min(page.cuts_x_mm) if page.cuts_x_mm else MARGIN_MM
    right = max(page.cuts_x_mm) if page.cuts_x_mm else page.width_mm - MARGIN_MM
    for x in page.cuts_x_mm:
        pdf.line(x, max(0.0, top - 5.0), x, top - 1.0)
        pdf.line(x, bottom + 1.0, x, min(page.height_mm, bottom + 5.0))
    for y in page.cuts_y_mm:
        pdf.line(max(0.0, left - 5.0), y, left - 1.0, y)
        pdf.line(right + 1.0, y, min(page.width_mm, right + 5.0), y)


def page_preview(
    game: str,
    page_index: int,
    *,
    dpi: int = 40,
    card_size_mm: tuple[float, float] | None = None,
    tile_size_mm: float | None = None,
) -> np.ndarray:
    """Draw planned page `page_index` of `game` as a BGR image at `dpi` (to check a page by eye).

    Raises:
        ValueError: unknown game or page.
    """
    pages = plan(game, card_size_mm=card_size_mm, tile_size_mm=tile_size_mm)
    if not 0 <= page_index < len(pages):
        raise ValueError(f"unknown page {page_index!r} (0..{len(pages) - 1})")
    page = pages[page_index]
    k = dpi / 25.4
    img = np.full((int(round(page.height_mm * k)), int(round(page.width_mm * k)), 3), 255, np.uint8)
    tile_mm = _size(game, copies(game)[0], card_size_mm, tile_size_mm)[0]
    cache: dict = {}
    for p in page.placements:
        if p.what.startswith("board:"):
            part = _board_part(_board_image(tile_mm, dpi, cache), page, p)
            ux, uy, _, _ = _usable(page)
            x0, y0 = int(round(ux * k)), int(round(uy * k))
        else:
            part = _image_for(p.what, p.w_mm, dpi, cache)
            part = cv2.resize(
                part, (int(round(p.w_mm * k)), int(round(p.h_mm * k))), interpolation=cv2.INTER_AREA
            )
            x0, y0 = int(round(p.x_mm * k)), int(round(p.y_mm * k))
        h = min(part.shape[0], img.shape[0] - y0)
        w = min(part.shape[1], img.shape[1] - x0)
        img[y0 : y0 + h, x0 : x0 + w] = part[:h, :w]
    return img


def main(argv: list[str] | None = None) -> int:
    """``python -m datasets.art.print_pdf GAME --out FILE.pdf [--preview PAGE.png]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m datasets.art.print_pdf")
    parser.add_argument("game", choices=art.GAMES)
    parser.add_argument("--out", required=True, help="the PDF to write")
    parser.add_argument("--preview", help="also draw the first page as this PNG (100 dpi)")
    args = parser.parse_args(argv)
    pages = make_pdf(args.game, args.out)
    print(f"{args.out}: {pages} pages")
    if args.preview:
        cv2.imwrite(args.preview, page_preview(args.game, 0, dpi=100))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
