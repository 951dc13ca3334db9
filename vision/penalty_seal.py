"""A Dice King penalty card's value, read from the seal printed on the companion art.

The companion penalty faces differ in the "−n" printed in a pale seal (and in the number of
cracked crowns and a red that darkens with the value, which lighting blurs). The piece and face
readers, from crops of the detector's box, misread it now and then on cards that show it
plainly: on validation scoring photos a half-covered "−1" read as a 2 at 0.92, a "−2" as a 1 at
0.997. This stage looks at the print itself: it rectifies the card from its corners, finds the
seal (the largest pale, round blob that does not touch the card's edge: a half-covered card's
corners cover only what shows, so the seal's own outline sets the scale), and compares the
digit inside it with the companion art's seals by normalised cross-correlation, in the four
quarter turns and a few pixels of shift.

Only the companion art's faces are known here (`datasets.art`, as `vision.gallery` draws
them); a user's own printing is the gallery's business.

Public names: `SealReading`, `read_seal`, `PENALTY_PREFIX`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.rectify import warp_face

PENALTY_PREFIX = "dice-king/penalty-"

# the rectified card (the companion card's aspect, 63 x 88 mm) and the seal, resampled square
_CARD_PX = (80, 112)
_SEAL_PX = 40
# where the digit lies in the square seal (rows, columns, as shares of its side): the minus
# sign and the ring, common to every value, are left out
_DIGIT = ((0.275, 0.725), (0.425, 0.825))
_SHIFT_PX = 2  # the digit window is searched this far around its place
# the companion seal is 30 mm across on a 63 mm wide card (0.48), centred across it; seen with
# the card's length across the rectified image it is 0.34 of that width
_SEAL_WIDTH = (0.38, 0.6)
_SEAL_OFF_MIDDLE = 0.1


@dataclass(frozen=True)
class SealReading:
    """What the seal of one card says.

    Attributes:
        identities: the companion penalty cards printing the likeliest seal (one value).
        score: that seal's correlation with the card's (in [-1, 1]).
        margin: its lead over the next likeliest seal's (another value).
    """

    identities: tuple[str, ...]
    score: float
    margin: float


def _seal_box(face: np.ndarray) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) of the seal on a rectified card: the largest pale (little red), round
    blob clear of the card's edge, where a seal lies; None when there is none."""
    pixels = face.astype(np.float32)
    redness = pixels[:, :, 2] - np.maximum(pixels[:, :, 0], pixels[:, :, 1])
    pale = pixels.mean(axis=2) - 1.5 * redness
    norm = cv2.normalize(pale, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    threshold, _ = cv2.threshold(norm[4:-4, 4:-4], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx((norm > threshold).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3)))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    height, width = face.shape[:2]
    best: tuple[int, int, int, int, int] | None = None
    for x, y, w, h, area in stats[1:count]:
        if w < 0.25 * width or h < 0.12 * height or w > 0.9 * width:
            continue
        if x <= 1 or y <= 1 or x + w >= width - 1 or y + h >= height - 1:
            continue  # cut by the card's edge (or by a card on top): not a whole seal
        if area / (w * h) < 0.55:  # a disc fills 0.79 of its box; frames and text far less
            continue
        if best is None or area > best[4]:
            best = (int(x), int(y), int(w), int(h), int(area))
    if best is None:
        return None
    x, y, w, h, _ = best
    # on the card's middle line, as wide as the card's seal: not a seal of a card beside it
    # (corners spanning two cards) nor one seen across a squashed card
    if abs((x + w / 2) / width - 0.5) > _SEAL_OFF_MIDDLE or not (
        _SEAL_WIDTH[0] <= w / width <= _SEAL_WIDTH[1]
    ):
        return None
    return x, y, x + w, y + h


def _seal(face: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = box
    square = cv2.resize(face[y0:y1, x0:x1], (_SEAL_PX, _SEAL_PX), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(square, cv2.COLOR_BGR2GRAY).astype(np.float32)


def _digit_window(shift: int) -> tuple[slice, slice]:
    (r0, r1), (c0, c1) = _DIGIT
    n = _SEAL_PX
    return (
        slice(round(r0 * n) - shift, round(r1 * n) + shift),
        slice(round(c0 * n) - shift, round(c1 * n) + shift),
    )


@lru_cache(maxsize=1)
def _templates() -> tuple[tuple[tuple[str, ...], np.ndarray], ...]:
    """The companion art's seal digits, one per printed value: (identities printing it,
    digit window)."""
    from datasets import art  # the companion art, as `vision.gallery` draws it

    groups: list[tuple[list[str], np.ndarray]] = []
    for identity in art.identities("dice-king"):
        if not identity.startswith(PENALTY_PREFIX):
            continue
        big = art.face(identity, _CARD_PX[0] * 4)
        face = cv2.resize(big, _CARD_PX, interpolation=cv2.INTER_AREA)
        box = _seal_box(face)
        if box is None:  # the art changed: nothing to compare with, so nothing is read
            continue
        digit = _seal(face, box)[_digit_window(0)]
        for members, known in groups:
            if np.abs(known - digit).max() < 1.0:  # the same print
                members.append(identity)
                break
        else:
            groups.append(([identity], digit))
    return tuple((tuple(members), digit) for members, digit in groups)


def read_seal(frame: np.ndarray, corners: np.ndarray) -> SealReading | None:
    """The seal of the card whose corners (4 × 2, clockwise) are given, compared with the
    companion penalty seals; None when no whole seal shows or no seal is known."""
    templates = _templates()
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    if len(templates) < 2 or not np.all(np.isfinite(quad)):
        return None
    seal = None
    for turn in (0, 1):  # the corners may start on a long side: the seal is then squashed
        face = warp_face(frame, np.roll(quad, -turn, axis=0), _CARD_PX)
        box = _seal_box(face)
        if box is not None:
            seal = _seal(face, box)
            break
    if seal is None:
        return None
    scores = np.full(len(templates), -1.0)
    for turn in range(4):
        turned = np.ascontiguousarray(np.rot90(seal, turn))[_digit_window(_SHIFT_PX)]
        for k, (_, digit) in enumerate(templates):
            found = cv2.matchTemplate(turned, digit, cv2.TM_CCOEFF_NORMED)
            scores[k] = max(scores[k], float(found.max()))
    order = np.argsort(-scores)
    best, second = int(order[0]), int(order[1])
    return SealReading(
        templates[best][0], float(scores[best]), float(scores[best] - scores[second])
    )


__all__ = ["PENALTY_PREFIX", "SealReading", "read_seal"]
