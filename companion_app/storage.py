"""The user data folder: settings, saved games and exported results, all written atomically.

The folder is the platform's user data folder (via `platformdirs`), or the folder named by the
environment variable ``TABLE_COMPANION_HOME`` when it is set (tests and scripts use this). Every
write goes to a temporary file in the same folder, is flushed and fsync'ed, and then renamed over
the target, so a crash or a kill at any moment leaves either the old file or the new one — never
half of one.

A saved game is one JSON file per game under ``games/``: a plain dict the view model builds (the
engine state as JSON, the actions, the players). This module does not know the engines.

Public names: `HOME_ENV`, `data_home`, `atomic_write_bytes`, `atomic_write_text`,
`atomic_write_json`, `read_json`, `SavedGameInfo`, `GameStore`, `load_settings`, `save_settings`,
`results_to_rows`, `export_results`, `StorageError`.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

HOME_ENV = "TABLE_COMPANION_HOME"
APP_NAME = "table-companion"
_GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")
_TEMP_PREFIX = ".tmp-"


class StorageError(ValueError):
    """A user data file cannot be read or does not hold what it should."""


def data_home() -> Path:
    """The user data folder (created if missing): ``$TABLE_COMPANION_HOME`` or the platform's."""
    override = os.environ.get(HOME_ENV, "").strip()
    home = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME))
    home.mkdir(parents=True, exist_ok=True)
    return home


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` atomically: temp file in the same folder, fsync, rename.

    A failure at any point (including a kill between the write and the rename) leaves the old
    file, if any, unchanged.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)
    return path


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write utf-8 `text` to `path` atomically (see `atomic_write_bytes`)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, value: Any) -> Path:
    """Write `value` as indented utf-8 JSON to `path` atomically."""
    return atomic_write_text(path, json.dumps(value, ensure_ascii=False, indent=1) + "\n")


def read_json(path: str | Path) -> Any:
    """Read a JSON file.

    Raises:
        StorageError: the file is missing, unreadable or not JSON (one line naming it).
    """
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StorageError(f"file '{path}' not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise StorageError(f"cannot read '{path}': {error}") from None
    except json.JSONDecodeError as error:
        raise StorageError(
            f"malformed json in '{path}': {error.msg} at line {error.lineno}"
        ) from None


# ---- settings ----------------------------------------------------------------------------------


def load_settings(home: Path | None = None) -> dict[str, Any]:
    """The saved settings dict (empty when none was saved or the file is unreadable)."""
    path = (home or data_home()) / "settings.json"
    if not path.exists():
        return {}
    try:
        value = read_json(path)
    except StorageError:
        return {}
    return value if isinstance(value, dict) else {}


def save_settings(settings: dict[str, Any], home: Path | None = None) -> Path:
    """Save the settings dict atomically; returns the file's path."""
    return atomic_write_json((home or data_home()) / "settings.json", settings)


# ---- saved games -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedGameInfo:
    """What the Home screen lists about a saved game (read from the file's header fields)."""

    game_id: str
    game: str
    players: tuple[str, ...]
    updated: str
    steps: int
    finished: bool
    path: Path


def now_iso() -> str:
    """The current UTC time as an ISO-8601 string with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_game_id(game: str) -> str:
    """A fresh, sortable, file-name-safe id for a game of `game`."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    return f"{stamp}-{game}"


class GameStore:
    """Saved games, one JSON file each, in ``<home>/games``."""

    def __init__(self, home: Path | None = None) -> None:
        self.folder = (home or data_home()) / "games"
        self.folder.mkdir(parents=True, exist_ok=True)

    def path_of(self, game_id: str) -> Path:
        """The file of game `game_id`.

        Raises:
            StorageError: the id is not a plain file-name-safe token.
        """
        if not _GAME_ID.match(game_id):
            raise StorageError(f"bad saved game id {game_id!r}")
        return self.folder / f"{game_id}.json"

    def save(self, record: dict[str, Any]) -> Path:
        """Write `record` (which must carry ``id`` and ``game``) atomically; stamps ``updated``."""
        game_id = record.get("id")
        if not isinstance(game_id, str):
            raise StorageError(f"saved game needs a string id, got {game_id!r}")
        record = {**record, "updated": now_iso()}
        return atomic_write_json(self.path_of(game_id), record)

    def load(self, game_id: str) -> dict[str, Any]:
        """The record of game `game_id`.

        Raises:
            StorageError: no such game, or its file is damaged.
        """
        value = read_json(self.path_of(game_id))
        if not isinstance(value, dict) or value.get("id") != game_id:
            raise StorageError(f"saved game '{game_id}' is damaged")
        return value

    def delete(self, game_id: str) -> None:
        """Remove the saved game (no error if it is already gone)."""
        self.path_of(game_id).unlink(missing_ok=True)

    def list(self) -> list[SavedGameInfo]:
        """Every readable saved game, most recently updated first; damaged files are skipped."""
        infos: list[SavedGameInfo] = []
        for path in self.folder.glob("*.json"):
            if path.name.startswith(_TEMP_PREFIX):
                continue
            try:
                record = read_json(path)
                infos.append(
                    SavedGameInfo(
                        game_id=str(record["id"]),
                        game=str(record["game"]),
                        players=tuple(str(p["name"]) for p in record.get("players", [])),
                        updated=str(record.get("updated", "")),
                        steps=len(record.get("actions", [])),
                        finished=bool(record.get("finished", False)),
                        path=path,
                    )
                )
            except (StorageError, KeyError, TypeError):
                continue
        infos.sort(key=lambda info: (info.updated, info.game_id), reverse=True)
        return infos

    def latest_unfinished(self) -> SavedGameInfo | None:
        """The most recent game that has not finished, if any (what "resume" offers first)."""
        return next((info for info in self.list() if not info.finished), None)

    def clean_temporaries(self) -> int:
        """Remove temp files a crash left behind; returns how many."""
        count = 0
        for path in self.folder.glob(f"{_TEMP_PREFIX}*"):
            path.unlink(missing_ok=True)
            count += 1
        return count


# ---- exported results --------------------------------------------------------------------------


def _flatten(prefix: str, value: Any, row: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, row)
    elif isinstance(value, list | tuple):
        row[prefix] = " ".join(str(item) for item in value)
    else:
        row[prefix] = value


def results_to_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per player from a results dict (the `score` JSON shape plus ``game``).

    Each row has ``player``, ``rank`` (1-based, from ``ranking``), ``winner`` and every field of
    the player's entry, nested dicts flattened with dots (``by_food.cheese``).
    """
    players = results.get("players", {})
    if not isinstance(players, dict):
        raise StorageError("results.players must be an object of player name to scores")
    ranking = list(results.get("ranking", players))
    winners = set(results.get("winners", []))
    rows: list[dict[str, Any]] = []
    for name in sorted(players, key=lambda n: ranking.index(n) if n in ranking else len(ranking)):
        row: dict[str, Any] = {
            "player": name,
            "rank": ranking.index(name) + 1 if name in ranking else "",
            "winner": name in winners,
        }
        entry = players[name]
        _flatten("", entry if isinstance(entry, dict) else {"total": entry}, row)
        rows.append(row)
    return rows


def results_to_csv(results: dict[str, Any]) -> str:
    """The results as CSV text: one header line, one line per player."""
    rows = results_to_rows(results)
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def export_results(
    results: dict[str, Any], stem: str, folder: Path | None = None
) -> tuple[Path, Path]:
    """Write `results` as ``<stem>.json`` and ``<stem>.csv`` (in ``<home>/exports`` by default).

    Returns the two paths.
    """
    folder = folder or data_home() / "exports"
    json_path = atomic_write_json(folder / f"{stem}.json", results)
    csv_path = atomic_write_text(folder / f"{stem}.csv", results_to_csv(results))
    return json_path, csv_path


__all__ = [
    "HOME_ENV",
    "GameStore",
    "SavedGameInfo",
    "StorageError",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "data_home",
    "export_results",
    "load_settings",
    "new_game_id",
    "now_iso",
    "read_json",
    "results_to_csv",
    "results_to_rows",
    "save_settings",
]
