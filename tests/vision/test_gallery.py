"""The gallery: companion art as default references, enrolled faces stored atomically, bad files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets import art
from vision import gallery as g
from vision.identify import Identifier


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(g.HOME_ENV, str(tmp_path))
    return tmp_path


def test_default_gallery_has_every_piece_and_each_back() -> None:
    gallery = g.default_gallery()
    labels = [r.label for r in gallery.references]
    for game in g.GAME_KINDS:
        for identity in art.identities(game):
            assert identity in labels
        assert g.back_label(game) in labels
    backs = [r for r in gallery.references if r.identity is None]
    assert len(backs) == 3
    assert {r.source for r in gallery.references} == {"companion"}


def test_reference_faces_have_the_piece_aspect() -> None:
    for ref in g.default_gallery(["kings-breakfast", "cafe-international"]).references:
        h, w = ref.face.shape[:2]
        if ref.identity is None:
            continue
        width_mm, height_mm = art.piece_size_mm(ref.identity)
        assert h / w == pytest.approx(height_mm / width_mm, abs=0.02)
        assert ref.face.dtype == np.uint8


def test_piece_keys_round_trip_for_every_piece() -> None:
    for game in g.GAME_KINDS:
        for identity in art.identities(game):
            assert g.identity_from_key(game, g.piece_key(identity)) == identity
    assert g.piece_key("cafe-international/italy/w") == "italy_w"
    assert g.identity_from_key("dice-king", "snob-1") == "dice-king/snob-1"


def test_unknown_piece_key_names_it() -> None:
    with pytest.raises(ValueError, match="unknown piece 'pizza' for kings-breakfast"):
        g.identity_from_key("kings-breakfast", "pizza")
    with pytest.raises(ValueError, match="unknown game"):
        g.identity_from_key("chess", "pawn")


def test_home_environment_variable_replaces_the_user_data_folder(home: Path) -> None:
    assert g.user_data_home() == home
    assert g.gallery_folder("dice-king") == home / "gallery" / "dice-king"


def test_saved_face_is_loaded_as_enrolled_and_no_temp_file_is_left(home: Path) -> None:
    face = np.full((140, 90, 3), 77, np.uint8)
    path = g.save_enrolled("kings-breakfast/cheese", face)
    assert path == home / "gallery" / "kings-breakfast" / "cheese.png"
    assert sorted(p.name for p in path.parent.iterdir()) == ["cheese.png"]
    loaded = g.load_enrolled(["kings-breakfast"])
    assert loaded.problems == ()
    (ref,) = loaded.references
    assert ref.identity == "kings-breakfast/cheese" and ref.source == "enrolled"
    assert np.array_equal(ref.face, face)


def test_enrolled_references_come_before_the_companion_art(home: Path) -> None:
    g.save_enrolled("cafe-international/italy/w", np.zeros((50, 50, 3), np.uint8))
    gallery = g.load_gallery(["cafe-international"])
    assert gallery.references[0].source == "enrolled"
    assert gallery.references[-1].source == "companion"


def test_corrupt_gallery_file_is_reported_by_name_and_ignored(home: Path) -> None:
    g.save_enrolled("kings-breakfast/ham", np.full((89, 57, 3), 200, np.uint8))
    folder = home / "gallery" / "kings-breakfast"
    (folder / "cheese.png").write_bytes(b"\x89PNG this is not an image")
    (folder / "bread.png").write_bytes(b"")
    loaded = g.load_enrolled(["kings-breakfast"])
    assert [r.identity for r in loaded.references] == ["kings-breakfast/ham"]
    assert len(loaded.problems) == 2
    assert any("cheese.png" in p and "corrupt" in p for p in loaded.problems)
    assert any("bread.png" in p for p in loaded.problems)


def test_file_named_after_no_piece_is_reported_and_ignored(home: Path) -> None:
    folder = home / "gallery" / "dice-king"
    folder.mkdir(parents=True)
    g.save_enrolled("dice-king/snob-1", np.full((88, 63, 3), 90, np.uint8))
    (folder / "unicorn-7.png").write_bytes((folder / "snob-1.png").read_bytes())
    loaded = g.load_enrolled(["dice-king"])
    assert [r.identity for r in loaded.references] == ["dice-king/snob-1"]
    assert "unicorn-7.png" in loaded.problems[0] and "unknown piece" in loaded.problems[0]


def test_identifier_starts_despite_a_corrupt_file_and_says_which(home: Path) -> None:
    folder = home / "gallery" / "kings-breakfast"
    folder.mkdir(parents=True)
    (folder / "wine.png").write_bytes(b"garbage")
    identifier = Identifier(g.load_gallery(["kings-breakfast"]))
    assert any("wine.png" in p for p in identifier.problems)


def test_save_refuses_unknown_piece_and_bad_image(home: Path) -> None:
    with pytest.raises(ValueError, match="unknown piece"):
        g.save_enrolled("kings-breakfast/pizza", np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        g.save_enrolled("kings-breakfast/ham", np.zeros((10, 10), np.float32))
