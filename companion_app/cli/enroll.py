"""`table-companion enroll GAME --source 0|VIDEO|FOLDER`: teach the app your own copy of a game.

Each piece's face is found in a photo (a camera frame, a video frame or an image file), warped
upright and stored as an enrolled reference in the user data folder
(`vision.gallery.save_enrolled`; ``$TABLE_COMPANION_HOME`` replaces that folder). From then on
identification matches the enrolled faces first.

Sources:
    FOLDER  each image shows one piece; its file name without extension is the piece's id
            within the game (``cheese.jpg``, ``emerald.png``, ``italy_w.jpg``, ``joker_m.jpg``,
            ``snob-1.png``). Images with no piece, with two pieces or with an unknown name are
            refused with the reason; the others are enrolled. Exit 2 when any was refused.
    0, VIDEO
            the command walks through the game's pieces ("show Cheese", "show Italy ♀") and
            takes each piece when it has been seen alone, in the same place, for a few frames
            in a row. Pieces not taken before the source ends are listed as missing.

Finding the piece: a classical finder (`find_pieces`): the photo's background colour is read at
its border, everything clearly different from it is foreground, and each large foreground region
whose outline is a convex quadrilateral is a piece. Photograph pieces upright (printed top up) on
a plain, contrasting surface; a piece lying sideways is turned so that it reads upright when the
companion art can tell which way is up.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion_app.cli._common import UsageError, print_json, print_lines

GAMES = ("kings-breakfast", "cafe-international", "dice-king")
ENROL_FACE_WIDTH_PX = 160
STILL_FRAMES = 5  # camera/video: a piece is taken after this many still frames alone


@dataclass(frozen=True)
class FinderConfig:
    """Thresholds of the classical piece finder.

    Attributes:
        work_px: the photo is searched at this size of its longer side.
        border_px: width of the border strip whose median colour is taken as the background.
        min_contrast: least Lab distance from the background for a pixel to be foreground
            (Otsu's threshold is used when higher).
        min_area_fraction: a region smaller than this fraction of the photo is not a piece.
        second_piece_fraction: a second region at least this fraction of the largest one's
            area counts as a second piece.
        approx_fraction: polygon simplification tolerance, fraction of the outline's length.
        min_fill: least fraction of its quadrilateral a region must fill (a card is a
            rectangle; two cards touching, or a hand, are not).
    """

    work_px: int = 640
    border_px: int = 6
    min_contrast: float = 18.0
    min_area_fraction: float = 0.02
    second_piece_fraction: float = 0.25
    approx_fraction: float = 0.04
    min_fill: float = 0.85


class EnrolmentError(UsageError):
    """A photo that cannot be enrolled; the message says why in one line."""


def find_pieces(image: np.ndarray, config: FinderConfig | None = None) -> list[np.ndarray]:
    """Quads (4, 2) of the pieces in a photo of pieces on a plain surface, largest first.

    `image` is uint8 BGR (H, W, 3). Corners are clockwise from the top-left-most one, in the
    photo's pixels; each side is a straight line fitted to the region's outline (rounded
    corners do not pull the corners inwards). A large region that does not fill its
    quadrilateral (two touching pieces, a hand) is skipped.
    """
    config = config or FinderConfig()
    h, w = image.shape[:2]
    scale = min(1.0, config.work_px / max(h, w))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 1.2)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    b = config.border_px
    border = np.concatenate(
        [
            lab[:b].reshape(-1, 3),
            lab[-b:].reshape(-1, 3),
            lab[:, :b].reshape(-1, 3),
            lab[:, -b:].reshape(-1, 3),
        ]
    )
    background = np.median(border, axis=0)
    distance = np.linalg.norm(lab - background, axis=2)
    scaled = np.clip(distance * 2, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    threshold = max(config.min_contrast, otsu / 2 * 0.6)
    mask = (distance > threshold).astype(np.uint8) * 255
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_area = config.min_area_fraction * small.shape[0] * small.shape[1]
    found: list[tuple[float, np.ndarray]] = []
    for contour in contours:
        hull = cv2.convexHull(contour)
        area = cv2.contourArea(hull)
        if area < min_area:
            continue
        quad = _quad_of(hull, config)
        if quad is None:
            continue
        fill = cv2.contourArea(contour) / max(cv2.contourArea(quad.astype(np.float32)), 1.0)
        if fill < config.min_fill:
            continue
        found.append((area, _fit_sides(contour, quad) / scale))
    found.sort(key=lambda item: -item[0])
    if not found:
        return []
    largest = found[0][0]
    quads = [q for a, q in found if a >= config.second_piece_fraction * largest]
    return [_clockwise_from_top_left(q) for q in quads]


def _quad_of(hull: np.ndarray, config: FinderConfig) -> np.ndarray | None:
    perimeter = cv2.arcLength(hull, True)
    for factor in (0.5, 1.0, 1.5, 2.0):
        approx = cv2.approxPolyDP(hull, config.approx_fraction * factor * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    box = cv2.boxPoints(cv2.minAreaRect(hull))
    return np.asarray(box, np.float64)


def _fit_sides(contour: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Corners where straight lines fitted to the outline near each side of `quad` meet."""
    points = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        direction = b - a
        length = float(np.linalg.norm(direction))
        if length < 1:
            return quad
        direction /= length
        normal = np.array([-direction[1], direction[0]])
        along = (points - a) @ direction
        across = np.abs((points - a) @ normal)
        near = (along > 0.15 * length) & (along < 0.85 * length) & (across < 0.03 * length + 2)
        if near.sum() < 5:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        d = np.array([float(vx[0]), float(vy[0])])
        p = np.array([float(x0[0]), float(y0[0])])
        n = np.array([-d[1], d[0]])
        lines.append(np.array([n[0], n[1], -float(n @ p)]))
    corners = []
    for k in range(4):
        point = np.cross(lines[k - 1], lines[k])
        if abs(point[2]) < 1e-9:
            return quad
        corners.append(point[:2] / point[2])
    fitted = np.array(corners)
    if np.abs(fitted - quad).max() > 0.1 * np.linalg.norm(quad[2] - quad[0]):
        return quad
    return fitted


def _clockwise_from_top_left(quad: np.ndarray) -> np.ndarray:
    from vision.geometry import order_corners_clockwise

    return order_corners_clockwise(quad)


def the_one_piece(image: np.ndarray, name: str, config: FinderConfig | None = None) -> np.ndarray:
    """The quad of the single piece in a photo.

    Raises:
        EnrolmentError: no piece, or more than one piece, in the photo (`name` names it).
    """
    quads = find_pieces(image, config)
    if not quads:
        raise EnrolmentError(f"no piece found in {name}: show one piece on a plain surface")
    if len(quads) > 1:
        raise EnrolmentError(f"{len(quads)} pieces found in {name}: show one piece at a time")
    return quads[0]


def upright_face(image: np.ndarray, quad: np.ndarray, identity: str) -> np.ndarray:
    """The upright face image of `identity` shown by `quad` (clockwise from the top-left).

    The piece's aspect decides which quad edge is its width; the companion art of the same
    piece, when it resembles the photo, decides which way is up (else: as photographed).
    """
    from datasets import art
    from vision.rectify import face_size, warp_face

    width_mm, height_mm = art.piece_size_mm(identity)
    size = face_size(width_mm, height_mm, ENROL_FACE_WIDTH_PX)
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    portrait_piece = height_mm > width_mm * 1.05
    first_is_short = sides[0] + sides[2] < sides[1] + sides[3]
    start = 0 if (not portrait_piece or first_is_short) else 3  # a sideways card: its left side
    quad = np.roll(quad, -start, axis=0)
    turn = _companion_turn(image, quad, identity)
    if turn is not None:
        quad = np.roll(quad, turn, axis=0)
    return warp_face(image, quad, size)


_IDENTIFIERS: dict[str, Any] = {}
_MIN_ORIENTING_SIMILARITY = 0.5


def _companion_turn(image: np.ndarray, quad: np.ndarray, identity: str) -> int | None:
    """Quarter turns that make the photographed piece match its own companion art, if it does."""
    from vision.detections import Detections
    from vision.gallery import GAME_KINDS, default_gallery
    from vision.identify import Identifier

    game = identity.partition("/")[0]
    if game not in _IDENTIFIERS:
        _IDENTIFIERS[game] = Identifier(default_gallery([game]))
    detections = Detections.from_boxes(
        np.zeros((1, 4), np.float32),
        np.ones(1, np.float32),
        [GAME_KINDS[game]],
        quad.reshape(1, 4, 2).astype(np.float32),
    )
    match = _IDENTIFIERS[game].match(image, detections)[0]
    if match is None or identity not in match.aliases:
        return None
    return match.rotation if match.score >= _MIN_ORIENTING_SIMILARITY else None


def display_name(identity: str) -> str:
    """How a prompt names a piece: ``Cheese``, ``Italy ♀``, ``Snob 1``."""
    game, _, rest = identity.partition("/")
    if game == "cafe-international":
        from engines.cafe_international.catalogue import DISPLAY_NAMES, GENDER_SYMBOLS

        nationality, _, gender = rest.partition("/")
        return f"{DISPLAY_NAMES.get(nationality, nationality)} {GENDER_SYMBOLS.get(gender, gender)}"
    return rest.replace("-", " ").replace("_", " ").capitalize()


# --- the command -----------------------------------------------------------------------------
def configure(parser: argparse.ArgumentParser) -> None:
    """Options of `enroll`."""
    parser.add_argument("game", choices=GAMES, metavar="GAME", help=", ".join(GAMES))
    parser.add_argument(
        "--source",
        required=True,
        metavar="0|VIDEO|FOLDER",
        help="a camera index, a video file, or a folder of photos named after the pieces",
    )
    parser.add_argument(
        "--frames-per-piece",
        type=int,
        default=300,
        metavar="N",
        help="camera/video: give up on a piece after this many frames (default 300)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    """Enrol the pieces shown by the source; 0 when all shown were enrolled, 2 otherwise."""
    from vision.gallery import gallery_folder

    source = str(args.source).strip()
    path = Path(source).expanduser()
    if path.is_dir():
        report = _enrol_folder(args.game, path)
    else:
        report = _enrol_stream(args.game, source, int(args.frames_per_piece), bool(args.json))
    report["game"] = args.game
    report["folder"] = str(gallery_folder(args.game))
    if args.json:
        print_json(report)
    else:
        lines = [
            f"enrolled {len(report['enrolled'])} piece(s) of {args.game} in {report['folder']}"
        ]
        lines += [f"  {e['piece']}: {e['file']}" for e in report["enrolled"]]
        if report.get("missing"):
            lines.append("not enrolled: " + ", ".join(report["missing"]))
        print_lines(lines)
    for refusal in report["refused"]:
        sys.stderr.write(
            f"table-companion enroll: refused {refusal['file']}: {refusal['reason']}\n"
        )
    return 2 if report["refused"] else 0


def enrolment_groups(game: str) -> list[tuple[str, ...]]:
    """`game`'s pieces in catalogue order, copies of one card together (Dice King's penalty
    cards of equal value, DK-3; `vision.identify.companion_twins`): a user shows each card once,
    and its face is enrolled for every copy."""
    from vision.gallery import default_gallery, game_identities
    from vision.identify import companion_twins

    twins = companion_twins(default_gallery([game]).references)
    identities = game_identities(game)
    groups: list[tuple[str, ...]] = []
    placed: set[str] = set()
    for identity in identities:
        if identity in placed:
            continue
        group = tuple(i for i in identities if i in twins.get(identity, {identity}))
        groups.append(group)
        placed.update(group)
    return groups


def _copies_note(group: tuple[str, ...]) -> str:
    """The prompt's note for a card with copies:
    `` (also Penalty 7, Penalty 8: copies of one card)``."""
    if len(group) < 2:
        return ""
    return f" (also {', '.join(display_name(i) for i in group[1:])}: copies of one card)"


def _enrol_folder(game: str, folder: Path) -> dict[str, Any]:
    from vision.frames import IMAGE_SUFFIXES
    from vision.gallery import game_identities, identity_from_key, piece_key, save_enrolled

    files = sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
    )
    if not files:
        raise UsageError(f"no image in folder '{folder}'")
    enrolled: list[dict[str, Any]] = []
    refused: list[dict[str, str]] = []
    faces: dict[str, np.ndarray] = {}
    for file in files:
        try:
            identity = identity_from_key(game, file.stem)
        except ValueError:
            refused.append({"file": file.name, "reason": f"unknown piece name {file.stem!r}"})
            continue
        image = cv2.imread(str(file), cv2.IMREAD_COLOR)
        if image is None:
            refused.append({"file": file.name, "reason": "cannot read the image"})
            continue
        try:
            quad = the_one_piece(image, "the photo")
        except EnrolmentError as error:
            refused.append({"file": file.name, "reason": str(error)})
            continue
        faces[identity] = upright_face(image, quad, identity)
        saved = save_enrolled(identity, faces[identity])
        enrolled.append(
            {
                "piece": piece_key(identity),
                "identity": identity,
                "file": file.name,
                "path": str(saved),
            }
        )
    # a copy of a card without a photo of its own takes the face of the copy that has one
    done = {e["identity"]: e for e in enrolled}
    for group in enrolment_groups(game):
        shown = next((done[i] for i in group if i in done), None)
        if shown is None:
            continue
        for identity in group:
            if identity in done:
                continue
            saved = save_enrolled(identity, faces[shown["identity"]])
            enrolled.append(
                {
                    "piece": piece_key(identity),
                    "identity": identity,
                    "file": shown["file"],
                    "path": str(saved),
                    "copy_of": shown["piece"],
                }
            )
    taken = {e["identity"] for e in enrolled}
    missing = [piece_key(i) for i in game_identities(game) if i not in taken]
    return {"enrolled": enrolled, "refused": refused, "missing": missing}


def _stable_quads(
    frames: Iterator[np.ndarray], needed: int, after: np.ndarray | None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(frame, quad) once one piece has been seen alone and still for `needed` frames.

    With `after` (the previous piece's quad), the piece must first leave or move: the same
    piece lying in the same place is not taken twice.
    """
    previous: np.ndarray | None = None
    streak = 0
    waiting = after is not None
    for frame in frames:
        quads = find_pieces(frame)
        if len(quads) != 1:
            previous, streak, waiting = None, 0, False
            continue
        quad = quads[0]
        size = float(np.linalg.norm(quad[2] - quad[0]))
        if waiting:
            if after is not None and np.abs(quad - after).max() < 0.1 * size:
                continue
            waiting = False
        if previous is not None and np.abs(quad - previous).max() < 0.02 * size:
            streak += 1
        else:
            streak = 1
        previous = quad
        if streak >= needed:
            yield frame, quad
            return


def _enrol_stream(game: str, source: str, frames_per_piece: int, quiet: bool) -> dict[str, Any]:
    from vision.frames import open_source
    from vision.gallery import piece_key, save_enrolled

    enrolled: list[dict[str, Any]] = []
    missing: list[str] = []
    with open_source(source) as stream:
        frames = iter(stream)
        last_quad: np.ndarray | None = None
        for group in enrolment_groups(game):
            identity = group[0]
            prompt = sys.stderr if quiet else sys.stdout  # --json keeps stdout for the report
            prompt.write(f"show {display_name(identity)}{_copies_note(group)}\n")
            prompt.flush()
            taken = False
            budget = _limited(frames, frames_per_piece)
            for frame, quad in _stable_quads(budget, STILL_FRAMES, last_quad):
                face = upright_face(frame, quad, identity)
                for copy in group:
                    entry = {
                        "piece": piece_key(copy),
                        "identity": copy,
                        "file": source,
                        "path": str(save_enrolled(copy, face)),
                    }
                    if copy != identity:
                        entry["copy_of"] = piece_key(identity)
                    enrolled.append(entry)
                last_quad, taken = quad, True
                break
            if not taken:
                missing.extend(piece_key(copy) for copy in group)
    return {"enrolled": enrolled, "refused": [], "missing": missing}


def _limited(frames: Iterator[np.ndarray], count: int) -> Iterator[np.ndarray]:
    for _ in range(max(1, count)):
        frame = next(frames, None)
        if frame is None:
            return
        yield frame


__all__ = [
    "EnrolmentError",
    "FinderConfig",
    "configure",
    "display_name",
    "enrolment_groups",
    "find_pieces",
    "run",
    "the_one_piece",
    "upright_face",
]
