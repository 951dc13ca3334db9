"""The Settings screen's view model: where frames come from, game data files, language.

Settings are a small typed value (`Settings`) saved as JSON in the user data folder. Every field
is validated on the way in; a bad value raises `ValueError` naming the field and the value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from companion_app import storage
from companion_app.i18n import LANGUAGES

SOURCE_KINDS = ("camera", "video", "folder")
# CI-5: the two readings of the bar's stools 11–20 (the engine's data files hold the numbers).
BAR_VALUES = ("default", "alternative")
MAX_CAMERA_INDEX = 9


@dataclass(frozen=True)
class Settings:
    """Everything the user can set; defaults work on a tablet with one camera."""

    source_kind: str = "camera"
    camera_index: int = 0
    video_path: str = ""
    folder_path: str = ""
    layout: str = "reference"
    bar_values: str = "default"
    deck: str = "companion"
    language: str = "en"

    def source_spec(self) -> str:
        """What `vision.frames.open_source` should open for these settings."""
        if self.source_kind == "video":
            return self.video_path
        if self.source_kind == "folder":
            return self.folder_path
        return str(self.camera_index)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        """Settings from a saved dict; unknown keys are ignored, bad values fall back."""
        settings = cls()
        for field in fields(cls):
            if field.name in data:
                try:
                    settings = validated(settings, field.name, data[field.name])
                except ValueError:
                    continue
        return settings

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON object."""
        return asdict(self)


def validated(settings: Settings, name: str, value: Any) -> Settings:
    """`settings` with field `name` set to `value`, after checking it.

    Raises:
        ValueError: unknown field or a bad value (one line naming both).
    """
    if name == "source_kind" and value not in SOURCE_KINDS:
        raise ValueError(f"unknown source kind {value!r} in settings.source_kind")
    if name == "camera_index":
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"bad camera index {value!r} in settings.camera_index")
        try:
            value = int(value)
        except ValueError:
            raise ValueError(f"bad camera index {value!r} in settings.camera_index") from None
        if not 0 <= value <= MAX_CAMERA_INDEX:
            raise ValueError(f"camera index {value} out of 0–{MAX_CAMERA_INDEX}")
    if name == "bar_values" and value not in BAR_VALUES:
        raise ValueError(f"unknown bar values {value!r} in settings.bar_values")
    if name == "language" and value not in LANGUAGES:
        raise ValueError(f"unknown language {value!r} in settings.language")
    if name in ("video_path", "folder_path", "layout", "deck"):
        if not isinstance(value, str):
            raise ValueError(f"bad path {value!r} in settings.{name}")
        value = value.strip()
    if name not in {field.name for field in fields(Settings)}:
        raise ValueError(f"unknown setting {name!r}")
    return replace(settings, **{name: value})


def game_options(game: str, settings: Settings) -> dict[str, Any]:
    """The engine's `new_game` options that the settings decide (board layout, bar, deck).

    Raises:
        ValueError: the layout or deck file cannot be read or is not valid (engine's message).
    """
    if game == "cafe-international":
        from engines.cafe_international import layout_from_json, reference_layout

        if settings.layout in ("", "reference"):
            return {"layout": reference_layout(settings.bar_values)}
        data = storage.read_json(Path(settings.layout).expanduser())
        return {"layout": layout_from_json(data, bar=settings.bar_values)}
    if game == "dice-king" and settings.deck not in ("", "companion"):
        return {"deck": settings.deck}
    return {}


def layout_json(settings: Settings) -> dict[str, Any] | None:
    """The Café board layout's JSON (positions of tables, chairs and stools) when the settings
    name a layout file; None for the reference layout (the readers load it themselves).

    Raises:
        ValueError: the layout file cannot be read (storage's message).
    """
    if settings.layout in ("", "reference"):
        return None
    data = storage.read_json(Path(settings.layout).expanduser())
    if not isinstance(data, dict):
        raise ValueError(f"layout file {settings.layout} does not hold a JSON object")
    return data


class SettingsViewModel:
    """Holds the settings, validates edits, saves them atomically after every change."""

    def __init__(self, home: Path | None = None, autosave: bool = True) -> None:
        self.home = home
        self.autosave = autosave
        loaded = storage.load_settings(home) if autosave else {}
        self.settings = Settings.from_json(loaded)
        self.error: str | None = None
        self._listeners: list[Callable[[Settings], None]] = []

    def add_listener(self, listener: Callable[[Settings], None]) -> None:
        """Call `listener(settings)` after every accepted change."""
        self._listeners.append(listener)

    def set(self, name: str, value: Any) -> bool:
        """Try to set one field; returns whether it was accepted (else `error` says why)."""
        try:
            self.settings = validated(self.settings, name, value)
        except ValueError as error:
            self.error = str(error)
            return False
        self.error = None
        if self.autosave:
            storage.save_settings(self.settings.to_json(), self.home)
        for listener in list(self._listeners):
            listener(self.settings)
        return True

    def step_camera(self, delta: int) -> None:
        """Next or previous camera index (kept within range), and switch to the camera."""
        index = min(MAX_CAMERA_INDEX, max(0, self.settings.camera_index + delta))
        self.set("camera_index", index)
        self.set("source_kind", "camera")

    def path_problem(self) -> str | None:
        """Why the chosen video file or folder cannot be used (None when it looks fine)."""
        kind = self.settings.source_kind
        if kind == "video":
            path = self.settings.video_path
            if not path or not Path(path).is_file():
                return "settings.problem.no_video"
        if kind == "folder":
            path = self.settings.folder_path
            if not path or not Path(path).is_dir():
                return "settings.problem.no_folder"
        return None


__all__ = [
    "BAR_VALUES",
    "SOURCE_KINDS",
    "Settings",
    "SettingsViewModel",
    "game_options",
    "validated",
]
