"""Every UI string in English, Finnish, Hungarian and Lithuanian, switchable at run time.

The catalogues are JSON files beside this module (``en.json``, ``fi.json``, ``hu.json``,
``lt.json``): flat objects of dotted keys to text with ``{name}`` fields. A `Translator` holds the
current language; looking up a key falls back to English, then to the key itself, so a missing
translation shows up as readable text instead of a crash. Listeners registered with `bind` hear
about language changes (the Kivy app re-renders its texts then).

Public names: `LANGUAGES`, `DEFAULT_LANGUAGE`, `load_catalog`, `Translator`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

# code → the language's own name, as shown on the language buttons.
LANGUAGES: dict[str, str] = {"en": "English", "fi": "Suomi", "hu": "Magyar", "lt": "Lietuvių"}
DEFAULT_LANGUAGE = "en"
_FOLDER = Path(__file__).resolve().parent


@cache
def load_catalog(language: str) -> dict[str, str]:
    """The catalogue of `language` (a code of `LANGUAGES`) as a dict of key to text.

    Raises:
        ValueError: unknown language code.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r} (known: {', '.join(LANGUAGES)})")
    data = json.loads((_FOLDER / f"{language}.json").read_text(encoding="utf-8"))
    return {str(key): str(value) for key, value in data.items()}


class Translator:
    """The current language and lookups in it, with English fallback.

    >>> tr = Translator("fi")
    >>> tr.t("nav.home") != tr.t("nav.home", language="en")
    True
    """

    def __init__(self, language: str = DEFAULT_LANGUAGE) -> None:
        load_catalog(language)  # validates the code
        self._language = language
        self._listeners: list[Callable[[str], None]] = []

    @property
    def language(self) -> str:
        """The current language code."""
        return self._language

    def set_language(self, language: str) -> None:
        """Switch language and tell every listener.

        Raises:
            ValueError: unknown language code.
        """
        load_catalog(language)
        if language == self._language:
            return
        self._language = language
        for listener in list(self._listeners):
            listener(language)

    def bind(self, listener: Callable[[str], None]) -> None:
        """Call `listener(language)` after every language change."""
        self._listeners.append(listener)

    def unbind(self, listener: Callable[[str], None]) -> None:
        """Stop calling `listener`."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def has(self, key: str) -> bool:
        """Whether `key` exists in the English catalogue (the reference)."""
        return key in load_catalog(DEFAULT_LANGUAGE)

    def t(self, key: str, language: str | None = None, **fields: Any) -> str:
        """The text of `key` in the current (or given) language, with `fields` filled in.

        Falls back to English, then to `key` itself; a field missing from `fields` leaves the
        template unfilled rather than failing.
        """
        template = load_catalog(language or self._language).get(key)
        if template is None:
            template = load_catalog(DEFAULT_LANGUAGE).get(key, key)
        if not fields:
            return template
        try:
            return template.format(**fields)
        except (KeyError, IndexError, ValueError):
            return template


__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Translator", "load_catalog"]
