"""Readable, translated text for engine values: actions, chance outcomes, piece ids.

An action's JSON object names its kind in ``type`` (or ``kind``); the catalogue key
``action.<game>.<type>`` holds a template filled from the action's fields. Piece ids (foods,
nationalities, ...) inside the fields are translated through ``piece.<id>`` keys. An action with no
template is shown as its kind and fields, so a new engine action is never invisible.
"""

from __future__ import annotations

from typing import Any

from companion_app.i18n import Translator

_KIND_KEYS = ("type", "kind", "action")


def action_kind(data: dict[str, Any]) -> str:
    """The kind of an action's JSON object (``"?"`` when it has none)."""
    return str(next((data[key] for key in _KIND_KEYS if key in data), "?"))


_GENDERS = {"w": "♀", "m": "♂"}


def _piece(tr: Translator, value: str) -> str:
    key = f"piece.{value}"
    return tr.t(key) if tr.has(key) else value


def describe_tile(tr: Translator, tile: str) -> str:
    """A Café tile id as text: ``italy/w`` → ``Italy ♀``, ``joker/m@italy`` → ``joker ♂ → Italy``
    (nationality and gender sign, and a seated joker's declared nationality).
    """
    base, _, declared = tile.partition("@")
    nationality, _, gender = base.partition("/")
    text = f"{_piece(tr, nationality)} {_GENDERS.get(gender, gender)}".strip()
    return f"{text} → {_piece(tr, declared)}" if declared else text


def describe_value(tr: Translator, value: Any) -> str:
    """A field value as text: piece ids translated, lists and dicts spelled out."""
    if isinstance(value, str):
        if len(value) == 2 and value[0] in "123456" and value[1] in "rgb":  # a die: 5r
            return f"{value[0]} {_piece(tr, value[1])}"
        if "/" in value and not value.startswith(("/", ".")):
            return describe_tile(tr, value)
        return _piece(tr, value)
    if isinstance(value, list | tuple):
        if not value:
            return tr.t("describe.none")
        return ", ".join(describe_value(tr, item) for item in value)
    if isinstance(value, dict) and "tile" in value and "chair" in value:
        tile = describe_value(tr, value["tile"])
        declared = value.get("as")
        if declared and str(value["tile"]).startswith("joker/"):
            tile += f" ({_piece(tr, str(declared))})"
        return f"{tile} → {value['chair']}"
    if isinstance(value, dict):
        return ", ".join(
            f"{describe_value(tr, k)} {describe_value(tr, v)}" for k, v in value.items()
        )
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def describe_action(tr: Translator, game: str, data: dict[str, Any]) -> str:
    """One line describing an action (or chance outcome) given as its JSON object."""
    kind = action_kind(data)
    fields = {key: describe_value(tr, value) for key, value in data.items()}
    key = f"action.{game}.{kind}"
    if tr.has(key):
        return tr.t(key, **fields)
    rest = " ".join(f"{k}={v}" for k, v in fields.items() if k not in _KIND_KEYS)
    return f"{kind.replace('_', ' ')} {rest}".strip()


def identity_text(tr: Translator, identity: str) -> str:
    """A recognised piece's identity as text: ``kings-breakfast/cheese`` → ``cheese``,
    ``cafe-international/italy/w`` → ``Italy ♀``, a die ``5r`` → ``5 red``."""
    game, _, piece = identity.partition("/")
    if not piece:
        value, colour = identity[:-1], identity[-1:]
        return f"{value} {_piece(tr, colour)}" if value.isdigit() else identity
    return describe_value(tr, piece)


def game_name(tr: Translator, game: str) -> str:
    """The game's name in the current language (its local edition's name)."""
    return tr.t(f"game.{game}")


__all__ = [
    "action_kind",
    "describe_action",
    "describe_tile",
    "describe_value",
    "game_name",
    "identity_text",
]
