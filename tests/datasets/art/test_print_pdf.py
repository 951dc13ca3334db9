"""Print-and-play PDFs: page counts, pieces at their real size, on A4, inside the page."""

from __future__ import annotations

import contextlib
import re
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import datasets.art as art
from datasets.art import print_pdf

PT_TO_MM = 25.4 / 72.0


def _drawn_images_mm(pdf_bytes: bytes) -> list[tuple[float, float, float, float]]:
    """(x, y_from_bottom, w, h) in mm of every image the PDF draws (the `cm` before each `Do`)."""
    out = []
    for match in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf_bytes, re.S):
        data = match.group(1)
        with contextlib.suppress(zlib.error):
            data = zlib.decompress(data)
        for m in re.finditer(rb"([-\d.]+) 0 0 ([-\d.]+) ([-\d.]+) ([-\d.]+) cm\s*/I\w+ Do", data):
            w, h, x, y = (float(v) * PT_TO_MM for v in m.groups())
            out.append((x, y, w, h))
    return out


def _page_count(pdf_bytes: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", pdf_bytes))


@pytest.mark.parametrize(
    ("game", "pieces"),
    [("kings-breakfast", 110), ("dice-king", len(art.identities("dice-king")))],
)
def test_card_pdf_has_every_card_at_its_real_size(tmp_path: Path, game: str, pieces: int) -> None:
    """KB-1 (110 cards) and DK-2..DK-4 (the companion deck): every card printed once per copy."""
    out = tmp_path / f"{game}.pdf"
    pages = print_pdf.make_pdf(game, out)
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and _page_count(data) == pages
    planned = print_pdf.plan(game)
    assert len(planned) == pages
    faces = [p for page in planned for p in page.placements if not p.what.startswith("back:")]
    assert len(faces) == pieces
    assert Counter(p.what for p in faces) == Counter(print_pdf.copies(game))
    w_mm, h_mm = art.piece_size_mm(faces[0].what)
    drawn = _drawn_images_mm(data)
    assert len(drawn) == sum(len(p.placements) for p in planned)
    for _x, _y, w, h in drawn:
        assert w == pytest.approx(w_mm, abs=0.05) and h == pytest.approx(h_mm, abs=0.05)


def test_kings_breakfast_pdf_has_15_of_each_food_and_5_emeralds() -> None:
    """KB-1: 105 food cards (7 × 15) and 5 Emerald cards."""
    counts = Counter(print_pdf.copies("kings-breakfast"))
    assert counts["kings-breakfast/emerald"] == 5
    assert all(counts[f"kings-breakfast/{f}"] == 15 for f in
               ("ham", "cheese", "bread", "cake", "wine", "fruit", "chicken"))  # fmt: skip


def test_cafe_pdf_has_100_tiles_a_backs_page_and_the_board(tmp_path: Path) -> None:
    """CI-2: 96 guests and 4 jokers; the board split over pages, chairs wider than a tile."""
    out = tmp_path / "cafe.pdf"
    pages = print_pdf.make_pdf("cafe-international", out, tile_size_mm=22.0)
    planned = print_pdf.plan("cafe-international", tile_size_mm=22.0)
    assert pages == len(planned) == _page_count(out.read_bytes())
    tiles = [p for page in planned for p in page.placements
             if p.what.startswith("cafe-international/")]  # fmt: skip
    assert len(tiles) == 100
    assert Counter(t.what for t in tiles)["cafe-international/joker/w"] == 2
    assert all(t.w_mm == 22.0 and t.h_mm == 22.0 for t in tiles)
    board_pages = [pg for pg in planned if pg.placements[0].what.startswith("board:")]
    assert board_pages
    layout = art.default_layout()
    chair_mm = print_pdf._ci._geometry(layout).chair_side * print_pdf.board_mm_per_unit(layout, 22)
    assert 22.0 + 1.0 - 1e-9 <= chair_mm <= 22.0 + 2.0 + 1e-9


def test_card_size_override_and_every_piece_inside_the_page(tmp_path: Path) -> None:
    planned = print_pdf.plan("kings-breakfast", card_size_mm=(63.0, 88.0))
    for page in planned:
        for p in page.placements:
            assert (p.w_mm, p.h_mm) == (63.0, 88.0)
            assert p.x_mm >= 5.0 and p.y_mm >= 5.0
            assert p.x_mm + p.w_mm <= page.width_mm - 5.0
            assert p.y_mm + p.h_mm <= page.height_mm - 5.0
        # no two pieces overlap
        for a in page.placements:
            for b in page.placements:
                if a is not b:
                    assert (a.x_mm + a.w_mm <= b.x_mm + 1e-6 or b.x_mm + b.w_mm <= a.x_mm + 1e-6
                            or a.y_mm + a.h_mm <= b.y_mm + 1e-6
                            or b.y_mm + b.h_mm <= a.y_mm + 1e-6)  # fmt: skip


def test_backs_page_mirrors_the_face_grid_for_duplex_printing() -> None:
    planned = print_pdf.plan("dice-king")
    front = planned[0].placements
    backs = next(pg for pg in planned if pg.placements[0].what.startswith("back:")).placements
    width = planned[0].width_mm
    for f, b in zip(front, backs, strict=False):
        assert b.y_mm == pytest.approx(f.y_mm)
        assert b.x_mm == pytest.approx(width - f.x_mm - f.w_mm)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"card_size_mm": (250.0, 80.0)}, "does not fit on an a4 page"),
        ({"card_size_mm": (0.0, 80.0)}, "bad card size"),
        ({"tile_size_mm": -3.0}, "bad tile size"),
    ],
)
def test_bad_sizes_are_refused(kwargs: dict, message: str) -> None:
    game = "cafe-international" if "tile_size_mm" in kwargs else "kings-breakfast"
    with pytest.raises(ValueError, match=message):
        print_pdf.plan(game, **kwargs)


def test_unknown_game_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        print_pdf.make_pdf("chess", tmp_path / "x.pdf")


def test_page_preview_draws_the_pieces_at_their_planned_size() -> None:
    dpi = 30
    img = print_pdf.page_preview("kings-breakfast", 0, dpi=dpi)
    assert img.shape[:2] == (round(297 * dpi / 25.4), round(210 * dpi / 25.4))
    first = print_pdf.plan("kings-breakfast")[0].placements[0]
    k = dpi / 25.4
    x0, y0 = round(first.x_mm * k), round(first.y_mm * k)
    x1, y1 = round((first.x_mm + first.w_mm) * k), round((first.y_mm + first.h_mm) * k)
    inside = img[y0 + 5 : y1 - 5, x0 + 5 : x1 - 5]
    assert (inside.reshape(-1, 3) < 200).any(axis=1).mean() > 0.5  # the coloured card
    assert np.all(img[2 : y0 - 12, :] >= 250)  # paper above the grid (the header is in the margin)
