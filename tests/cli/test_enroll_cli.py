"""`table-companion enroll`: teach the app another edition from photos, refuse bad photos."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_app.cli import main
from companion_app.cli.enroll import display_name, find_pieces
from datasets import art
from tests.vision.restyle import piece_photo, restyle
from vision.detections import Detections
from vision.gallery import load_gallery, piece_key
from vision.identify import Identifier

KB = "kings-breakfast"


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("TABLE_COMPANION_HOME", str(folder))
    return folder


def restyled(identity: str, width: int = 200) -> np.ndarray:
    return restyle(art.face(identity, width), identity)


def write_photos(folder: Path, game: str, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for identity in art.identities(game):
        photo = piece_photo([restyled(identity)], rng, (640, 480))
        cv2.imwrite(str(folder / f"{piece_key(identity)}.jpg"), photo)


def test_folder_enrolment_teaches_a_new_edition(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photos = tmp_path / "photos"
    write_photos(photos, KB)
    assert main(["enroll", KB, "--source", str(photos), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["enrolled"]) == 8 and report["refused"] == [] and report["missing"] == []
    stored = sorted(p.name for p in (home / "gallery" / KB).iterdir())
    assert stored == sorted(f"{piece_key(i)}.png" for i in art.identities(KB))

    # a new photo of the restyled cheese, lying upside down, is identified by its enrolled face
    identifier = Identifier(load_gallery([KB]))
    cheese = np.ascontiguousarray(np.rot90(restyled("kings-breakfast/cheese"), 2))
    photo = piece_photo([cheese], np.random.default_rng(9), (640, 480))
    (quad,) = find_pieces(photo)
    detections = Detections.from_boxes(
        np.zeros((1, 4), np.float32),
        np.ones(1, np.float32),
        ["card"],
        quad[None].astype(np.float32),
    )
    (match,) = identifier.match(photo, detections, [KB])
    assert match is not None
    assert match.identity == "kings-breakfast/cheese" and match.source == "enrolled"


def test_enrolled_face_is_stored_upright(home: Path, tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    face = art.face("dice-king/snob-3", 200)
    sideways = np.ascontiguousarray(np.rot90(face, 1))
    cv2.imwrite(str(photos / "snob-3.png"), piece_photo([sideways], np.random.default_rng(2)))
    assert main(["enroll", "dice-king", "--source", str(photos)]) == 0  # missing pieces are fine
    stored = cv2.imread(str(home / "gallery" / "dice-king" / "snob-3.png"))
    assert stored is not None
    expected = cv2.resize(face, (stored.shape[1], stored.shape[0]), interpolation=cv2.INTER_AREA)
    inner = (slice(12, -12), slice(12, -12))
    assert stored.shape[0] > stored.shape[1]
    assert np.abs(stored[inner].astype(int) - expected[inner].astype(int)).mean() < 25


def test_photos_without_a_piece_or_with_two_or_unknown_names_are_refused(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(4)
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "ham.jpg"), piece_photo([restyled("kings-breakfast/ham")], rng))
    cv2.imwrite(str(photos / "cheese.jpg"), piece_photo([], rng))
    two = [restyled("kings-breakfast/wine"), restyled("kings-breakfast/cake")]
    cv2.imwrite(str(photos / "wine.jpg"), piece_photo(two, rng))
    cv2.imwrite(str(photos / "pizza.jpg"), piece_photo([restyled("kings-breakfast/fruit")], rng))
    assert main(["enroll", KB, "--source", str(photos), "--json"]) == 2
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [e["piece"] for e in report["enrolled"]] == ["ham"]
    reasons = {r["file"]: r["reason"] for r in report["refused"]}
    assert "no piece found" in reasons["cheese.jpg"]
    assert "2 pieces found" in reasons["wine.jpg"]
    assert "unknown piece name 'pizza'" in reasons["pizza.jpg"]
    lines = captured.err.strip().splitlines()
    assert len(lines) == 3 and all(
        line.startswith("table-companion enroll: refused") for line in lines
    )
    assert sorted(p.name for p in (home / "gallery" / KB).iterdir()) == ["ham.png"]


def write_video(video: Path, identities: list[str], seed: int) -> Path:
    """A clip showing each piece (restyled) still for a while, the empty surface between."""
    rng = np.random.default_rng(seed)
    size = (320, 240)
    empty = piece_photo([], rng, size)
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, size)
    for identity in identities:
        shown = piece_photo([restyled(identity, 120)], rng, size)
        for frame in [empty] * 3 + [shown] * 8:
            writer.write(frame)
    writer.release()
    return video


def test_video_enrolment_walks_through_the_pieces(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = write_video(tmp_path / "show.avi", ["kings-breakfast/ham", "kings-breakfast/cheese"], 6)
    status = main(["enroll", KB, "--source", str(video), "--frames-per-piece", "25"])
    out = capsys.readouterr().out
    assert status == 0
    assert "show Ham" in out and "show Cheese" in out
    assert sorted(p.name for p in (home / "gallery" / KB).iterdir()) == ["cheese.png", "ham.png"]
    assert "not enrolled: bread" in out


def test_missing_source_is_one_line_exit_2(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["enroll", KB, "--source", str(tmp_path / "nowhere.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nowhere.mp4" in err


def test_unknown_game_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["enroll", "chess", "--source", "0"])
    assert exit_info.value.code == 2


def test_prompts_name_pieces_as_players_do() -> None:
    assert display_name("kings-breakfast/cheese") == "Cheese"
    assert display_name("cafe-international/italy/w") == "Italy ♀"
    assert display_name("cafe-international/uk/m") == "UK ♂"


def test_copies_of_one_card_are_shown_once() -> None:
    """DK-3: Dice King's penalty cards of equal value are copies of one card: enrolment asks
    for each such card once (59 prompts for 65 cards), every piece in exactly one group."""
    from companion_app.cli.enroll import enrolment_groups

    groups = enrolment_groups("dice-king")
    assert len(groups) == 59
    assert sorted(i for g in groups for i in g) == sorted(art.identities("dice-king"))
    threes = ("dice-king/penalty-6", "dice-king/penalty-7", "dice-king/penalty-8")
    assert threes in groups and ("dice-king/penalty-9", "dice-king/penalty-10") in groups
    assert all(len(g) == 1 for g in enrolment_groups(KB))


def test_a_folder_photo_of_a_card_enrols_its_copies(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A photo of Penalty 6 also teaches Penalty 7 and 8 (the same card, DK-3): their faces are
    stored from it, and they are not reported missing."""
    rng = np.random.default_rng(2)
    folder = tmp_path / "photos"
    folder.mkdir()
    for identity in ("dice-king/penalty-6", "dice-king/orc-2"):
        photo = piece_photo([restyled(identity)], rng, (640, 480))
        cv2.imwrite(str(folder / f"{piece_key(identity)}.jpg"), photo)
    assert main(["enroll", "dice-king", "--source", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    copies = {e["piece"]: e.get("copy_of") for e in report["enrolled"]}
    assert copies == {
        "penalty-6": None,
        "orc-2": None,
        "penalty-7": "penalty-6",
        "penalty-8": "penalty-6",
    }
    assert "penalty-7" not in report["missing"] and "penalty-9" in report["missing"]
    stored = sorted(p.name for p in (home / "gallery" / "dice-king").iterdir())
    assert stored == ["orc-2.png", "penalty-6.png", "penalty-7.png", "penalty-8.png"]


def test_video_enrolment_shows_a_card_with_copies_once(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a camera or video, a card with copies is asked for once and enrolled for each."""
    import companion_app.cli.enroll as enroll

    threes = ("dice-king/penalty-6", "dice-king/penalty-7", "dice-king/penalty-8")
    monkeypatch.setattr(enroll, "enrolment_groups", lambda game: [threes, ("dice-king/orc-2",)])
    video = write_video(tmp_path / "show.avi", ["dice-king/penalty-6", "dice-king/orc-2"], 7)
    status = main(["enroll", "dice-king", "--source", str(video), "--frames-per-piece", "25"])
    out = capsys.readouterr().out
    assert status == 0
    assert "show Penalty 6 (also Penalty 7, Penalty 8: copies of one card)" in out
    assert "show Orc 2" in out and "show Penalty 7" not in out
    stored = sorted(p.name for p in (home / "gallery" / "dice-king").iterdir())
    assert stored == ["orc-2.png", "penalty-6.png", "penalty-7.png", "penalty-8.png"]
