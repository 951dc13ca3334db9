"""How fast the companion art draws: faces (uncached), backs, die faces, foreign faces, the board.

Run: ``.venv/bin/python benchmarks/art_speed.py``. Prints one line per item with items per second
(single process). The scene renderer caches faces, so uncached face speed matters only for the first
use of each (identity, width); foreign faces and die faces are drawn per scene.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import datasets.art as art


def _rate(label: str, fn: Callable[[int], object], n: int) -> None:
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    elapsed = time.perf_counter() - start
    print(f"{label:<44} {n / elapsed:9.1f} /s   ({n} in {elapsed:.2f} s)")


def main() -> None:
    """Print the rates."""
    ids = [i for g in art.GAMES for i in art.identities(g)]

    def uncached_face(width: int) -> Callable[[int], object]:
        def draw(i: int) -> object:
            art._cached_face.cache_clear()
            return art.face(ids[i % len(ids)], width)

        return draw

    _rate("face, uncached, 128 px wide", uncached_face(128), 200)
    _rate("face, uncached, 400 px wide", uncached_face(400), 100)
    _rate("face, cached, 128 px wide", lambda i: art.face(ids[i % len(ids)], 128), 2000)
    rng = np.random.default_rng(0)
    _rate("foreign card, 160 px wide", lambda i: art.foreign_face("card", rng, 160, 1.4), 200)
    _rate("foreign tile, 64 px wide", lambda i: art.foreign_face("tile", rng, 64, 1.0), 300)
    styles = [art.random_die_style(rng) for _ in range(50)]
    _rate("die face, 48 px", lambda i: art.die_face(i % 6 + 1, styles[i % 50], 48), 600)
    _rate("dice king die face, 48 px", lambda i: art.die_face(i % 6 + 1, art.dice_king_style(i % 6),
                                                              48), 600)  # fmt: skip
    layout = art.default_layout()
    _rate("reference board, 1 px per unit", lambda i: art.board(layout, 1.0), 5)


if __name__ == "__main__":
    main()
