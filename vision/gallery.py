"""Reference faces to identify cards and tiles by: the shipped companion art plus enrolled faces.

A `Reference` is one upright face image (BGR uint8, printed top at the top) with the identity it
shows. A `Gallery` is an ordered collection of references; enrolled references (the user's own
printing, taught with ``table-companion enroll``) come first and are matched first.

The default gallery is drawn in memory, at first use, from the companion art (`datasets.art`):
nothing is downloaded. Each game's card or tile back is included too, as a reference with
``identity=None``: a piece showing its back then matches the back and stays unidentified instead of
being mistaken for a face.

Enrolled references live in the user data folder (``$TABLE_COMPANION_HOME`` when set, else the
platform's user data folder) as one PNG per piece: ``gallery/<game>/<piece key>.png`` where the
piece key is the piece's id within its game with ``/`` written as ``_`` (``cheese``,
``italy_w``, ``joker_m``, ``snob-1``) — the same names the enrolment folder source uses. Files are
written atomically (temporary file, then rename). A file that cannot be read is reported by name
(`Gallery.problems`, and a logged warning) and ignored; it never stops the app.

Public names: `Reference`, `Gallery`, `GAME_KINDS`, `HOME_ENV`, `user_data_home`,
`gallery_folder`, `piece_key`, `identity_from_key`, `game_identities`, `default_gallery`,
`load_enrolled`, `save_enrolled`, `load_gallery`, `back_label`.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

HOME_ENV = "TABLE_COMPANION_HOME"
APP_NAME = "table-companion"
GALLERY_DIR = "gallery"
GAME_KINDS: dict[str, str] = {
    "kings-breakfast": "card",
    "cafe-international": "tile",
    "dice-king": "card",
}
DEFAULT_FACE_WIDTH_PX = 96
_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reference:
    """One reference face.

    Attributes:
        identity: the contract's piece id (``kings-breakfast/cheese``), or None for a back.
        game: the game the piece belongs to.
        kind: ``card`` or ``tile``.
        face: upright face image, BGR uint8 (H, W, 3); its aspect is the piece's.
        source: ``enrolled`` (the user's own pieces) or ``companion`` (shipped art).
        label: what the reference shows: the identity, or ``back:<game>`` for a back.
    """

    identity: str | None
    game: str
    kind: str
    face: np.ndarray = field(repr=False, compare=False)
    source: str = "companion"
    label: str = ""

    def __post_init__(self) -> None:
        image = np.asarray(self.face)
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(
                f"reference.face must be uint8 (H, W, 3), got {image.dtype} {image.shape}"
            )
        if self.kind not in ("card", "tile"):
            raise ValueError(f"reference.kind must be card or tile, got {self.kind!r}")
        if not self.label:
            object.__setattr__(self, "label", self.identity or back_label(self.game))


@dataclass(frozen=True)
class Gallery:
    """An ordered collection of references (enrolled first) and the problems met loading it.

    Attributes:
        references: the references, enrolled ones before companion ones.
        problems: one line per gallery file that was ignored (corrupt, unknown piece…).
    """

    references: tuple[Reference, ...]
    problems: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.references)

    def for_games(self, games: Iterable[str] | None) -> Gallery:
        """The references of some games only (all when `games` is None)."""
        if games is None:
            return self
        wanted = set(games)
        return Gallery(tuple(r for r in self.references if r.game in wanted), self.problems)

    def merged(self, other: Gallery) -> Gallery:
        """This gallery's references followed by `other`'s."""
        return Gallery(self.references + other.references, self.problems + other.problems)


def back_label(game: str) -> str:
    """The label of a game's back reference (its identity is None)."""
    return f"back:{game}"


# --- piece names -------------------------------------------------------------------------------
def _check_game(game: str) -> None:
    if game not in GAME_KINDS:
        raise ValueError(
            f"unknown game {game!r} (kings-breakfast, cafe-international or dice-king)"
        )


@lru_cache(maxsize=8)
def game_identities(game: str) -> tuple[str, ...]:
    """Every piece identity of `game` with a face (from the companion catalogue), in order."""
    _check_game(game)
    from datasets import art

    return tuple(art.identities(game))


def piece_key(identity: str) -> str:
    """The file-name key of a piece: its id within the game, ``/`` as ``_`` (``italy_w``)."""
    game, _, rest = identity.partition("/")
    if game not in GAME_KINDS or not rest:
        raise ValueError(f"unknown piece {identity!r}")
    return rest.replace("/", "_")


def identity_from_key(game: str, key: str) -> str:
    """The identity named by a file-name key within `game` (``italy_w`` → ``…/italy/w``).

    Raises:
        ValueError: unknown game, or no piece of `game` has that key.
    """
    _check_game(game)
    wanted = key.strip().lower()
    for identity in game_identities(game):
        if piece_key(identity) == wanted:
            return identity
    raise ValueError(f"unknown piece {key!r} for {game}")


# --- the user data folder ------------------------------------------------------------------------
def user_data_home() -> Path:
    """The user data folder: ``$TABLE_COMPANION_HOME`` when set, else the platform's one."""
    override = os.environ.get(HOME_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def gallery_folder(game: str, home: Path | None = None) -> Path:
    """The folder of `game`'s enrolled faces (not created)."""
    _check_game(game)
    return (home or user_data_home()) / GALLERY_DIR / game


# --- the companion art -------------------------------------------------------------------------
@lru_cache(maxsize=16)
def _companion(game: str, width_px: int) -> tuple[Reference, ...]:
    from datasets import art

    kind = GAME_KINDS[game]
    refs = [
        Reference(identity, game, kind, _read_only(art.face(identity, width_px)))
        for identity in game_identities(game)
    ]
    refs.append(Reference(None, game, kind, _read_only(art.back(game, width_px))))
    return tuple(refs)


def _read_only(image: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(image[:, :, :3])
    out.setflags(write=False)
    return out


def default_gallery(
    games: Sequence[str] | None = None, width_px: int = DEFAULT_FACE_WIDTH_PX
) -> Gallery:
    """The shipped companion art of `games` (all three by default), faces and backs.

    Drawn in memory at first use and cached for the process (about a second for all games).
    """
    chosen = tuple(games) if games is not None else tuple(GAME_KINDS)
    for game in chosen:
        _check_game(game)
    return Gallery(tuple(r for game in chosen for r in _companion(game, int(width_px))))


# --- enrolled faces ----------------------------------------------------------------------------
def load_enrolled(games: Sequence[str] | None = None, home: Path | None = None) -> Gallery:
    """The enrolled references of `games` (all by default) from the user data folder.

    Never raises for a bad file: an unreadable image or a file named after no piece is left out
    and reported in `Gallery.problems` (and logged as a warning) with its path.
    """
    chosen = tuple(games) if games is not None else tuple(GAME_KINDS)
    refs: list[Reference] = []
    problems: list[str] = []
    for game in chosen:
        folder = gallery_folder(game, home)
        try:
            if not folder.is_dir():
                continue
            paths = sorted(folder.glob("*.png"))
        except OSError as error:
            problems.append(f"ignored gallery folder '{folder}': {error.strerror or error}")
            continue
        for path in paths:
            if path.name.startswith("."):
                continue  # a temporary file of an interrupted write
            try:
                identity = identity_from_key(game, path.stem)
            except ValueError as error:
                problems.append(f"ignored gallery file '{path}': {error}")
                continue
            image = _read_image(path)
            if image is None:
                problems.append(f"ignored corrupt gallery file '{path}': cannot decode image")
                continue
            refs.append(Reference(identity, game, GAME_KINDS[game], image, source="enrolled"))
    for line in problems:
        _LOG.warning("%s", line)
    return Gallery(tuple(refs), tuple(problems))


def _read_image(path: Path) -> np.ndarray | None:
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.ndim != 3 or min(image.shape[:2]) < 4:
        return None
    return _read_only(image)


def save_enrolled(identity: str, face: np.ndarray, home: Path | None = None) -> Path:
    """Store `face` (upright, BGR uint8) as the enrolled reference of `identity`, atomically.

    Returns the written path. Raises ValueError for an unknown piece or a bad image.
    """
    game = identity.partition("/")[0]
    if game not in GAME_KINDS or identity not in game_identities(game):
        raise ValueError(f"unknown piece {identity!r}")
    image = np.asarray(face)
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"face must be uint8 (H, W, 3), got {image.dtype} {image.shape}")
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise ValueError(f"cannot encode the face of {identity}")
    path = gallery_folder(game, home) / f"{piece_key(identity)}.png"
    _atomic_write(path, encoded.tobytes())
    return path


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def load_gallery(
    games: Sequence[str] | None = None,
    home: Path | None = None,
    *,
    include_enrolled: bool = True,
    width_px: int = DEFAULT_FACE_WIDTH_PX,
) -> Gallery:
    """Enrolled references of `games` (first) followed by the companion art of `games`."""
    companion = default_gallery(games, width_px)
    if not include_enrolled:
        return companion
    return load_enrolled(games, home).merged(companion)


__all__ = [
    "GAME_KINDS",
    "HOME_ENV",
    "Gallery",
    "Reference",
    "back_label",
    "default_gallery",
    "gallery_folder",
    "game_identities",
    "identity_from_key",
    "load_enrolled",
    "load_gallery",
    "piece_key",
    "save_enrolled",
    "user_data_home",
]
