"""``python -m datasets.art --out sheet.png [--game G] [--width PX]``: a contact sheet of the art.

Draws every face and the back of each game (or of one game), then, for all games, a row of dice
(the six Dice King dice and generic train and eval dice) and a row of foreign cards and tiles, so
the whole look of the companion art can be checked at a glance.
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

import datasets.art as art

_GAP = 6
_GREY = 96


def _row(images: list[np.ndarray], height: int) -> np.ndarray:
    scaled = []
    for img in images:
        w = max(1, int(round(img.shape[1] * height / img.shape[0])))
        scaled.append(cv2.resize(img, (w, height), interpolation=cv2.INTER_AREA))
        scaled.append(np.full((height, _GAP, 3), _GREY, np.uint8))
    return np.hstack(scaled)


def _stack(rows: list[np.ndarray]) -> np.ndarray:
    width = max(r.shape[1] for r in rows)
    out = []
    for r in rows:
        pad = np.full((r.shape[0], width - r.shape[1], 3), _GREY, np.uint8)
        out += [np.hstack([r, pad]), np.full((_GAP, width, 3), _GREY, np.uint8)]
    return np.vstack(out)


def contact_sheet(
    games: tuple[str, ...] = art.GAMES, width_px: int = 120, per_row: int = 14
) -> np.ndarray:
    """The contact sheet image (BGR) of `games`' faces and backs, dice and foreign pieces."""
    rows: list[np.ndarray] = []
    for game in games:
        images = [art.face(i, width_px) for i in art.identities(game)] + [art.back(game, width_px)]
        height = images[0].shape[0]
        for start in range(0, len(images), per_row):
            rows.append(_row(images[start : start + per_row], height))
    rng = np.random.default_rng(0)
    styles = [art.dice_king_style(i) for i in range(6)]
    styles += [art.random_die_style(rng, "train") for _ in range(4)]
    styles += [art.random_die_style(rng, "eval") for _ in range(4)]
    size = width_px // 2
    dice_rows = [np.hstack([art.die_face(v, s, size) for v in range(1, 7)]) for s in styles]
    rows.append(_row(dice_rows[:7], size))
    rows.append(_row(dice_rows[7:], size))
    foreign = [art.foreign_face("card", rng, width_px, 1.4) for _ in range(per_row // 2)]
    foreign += [art.foreign_face("tile", rng, width_px, 1.0) for _ in range(per_row // 2)]
    rows.append(_row(foreign, int(width_px * 1.4)))
    return _stack(rows)


def main(argv: list[str] | None = None) -> int:
    """Write the contact sheet."""
    parser = argparse.ArgumentParser(prog="python -m datasets.art")
    parser.add_argument("--out", required=True, help="PNG to write")
    parser.add_argument("--game", choices=art.GAMES, help="only this game's pieces")
    parser.add_argument("--width", type=int, default=120, help="face width in pixels")
    args = parser.parse_args(argv)
    games = (args.game,) if args.game else art.GAMES
    cv2.imwrite(args.out, contact_sheet(games, args.width))
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
