"""Every UI string exists in English, Finnish, Hungarian and Lithuanian, with the same fields."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

import companion_app
from companion_app.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator, load_catalog

APP_ROOT = Path(companion_app.__file__).resolve().parent
# Literal keys passed to a lookup in the app and the view models: t("x.y"), tr("x.y", ...).
_KEY_USE = re.compile(r"""\b(?:t|tr|has)\(\s*["']([a-z_]+\.[a-z0-9_.-]+)["']""")


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_key_exists_in_every_language(language: str) -> None:
    reference = load_catalog(DEFAULT_LANGUAGE)
    catalogue = load_catalog(language)
    assert sorted(set(reference) - set(catalogue)) == []
    assert sorted(set(catalogue) - set(reference)) == []
    for key, text in catalogue.items():
        assert text.strip(), f"{language}: empty text for {key}"
        assert _fields(text) == _fields(reference[key]), f"{language}: fields differ in {key}"


@pytest.mark.parametrize("language", ["fi", "hu", "lt"])
def test_translations_are_translated(language: str) -> None:
    """Most strings differ from English (names such as "Café International" may not)."""
    reference = load_catalog(DEFAULT_LANGUAGE)
    same = [key for key, text in load_catalog(language).items() if text == reference[key]]
    assert len(same) < 0.1 * len(reference), same


def test_every_key_the_app_uses_exists() -> None:
    reference = load_catalog(DEFAULT_LANGUAGE)
    used: set[str] = set()
    for path in [*APP_ROOT.rglob("*.py"), *APP_ROOT.rglob("*.kv")]:
        used.update(_KEY_USE.findall(path.read_text(encoding="utf-8")))
    used = {key for key in used if not key.endswith(".")}
    assert used, "the pattern should find the keys the app uses"
    assert sorted(used - set(reference)) == []


def test_local_game_names_follow_the_rule_texts() -> None:
    tr = Translator("fi")
    assert tr.t("game.kings-breakfast") == "Kuninkaan aamiainen"  # seeds/kings-breakfast.fi.txt
    assert tr.t("game.kings-breakfast", language="hu") == "A király reggelije"
    assert tr.t("game.dice-king", language="lt") == "Kauliukų karalius"  # seeds/dice-king.lt.txt
    assert tr.t("piece.emerald", language="hu") == "Smaragdocska"


def test_switching_language_at_run_time_tells_listeners() -> None:
    tr = Translator()
    heard: list[str] = []
    tr.bind(heard.append)
    assert tr.t("nav.settings") == "Settings"
    tr.set_language("lt")
    assert tr.t("nav.settings") == "Nustatymai"
    tr.set_language("lt")  # no change, no call
    assert heard == ["lt"]
    with pytest.raises(ValueError, match="unknown language 'xx'"):
        tr.set_language("xx")


def test_missing_key_and_missing_field_fall_back() -> None:
    tr = Translator("hu")
    assert tr.t("no.such.key") == "no.such.key"
    assert tr.t("home.players", low=3) == load_catalog("hu")["home.players"]  # not a crash
    assert tr.t("home.players", low=3, high=5) == "Játékosok (3–5) ülésrendben"
