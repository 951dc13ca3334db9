"""The scene mixes models train on (`models.data.render_training_scene`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.data import CLOSE_DICE_CAMERA, MIXES, render_training_scene


def test_the_default_mix_alternates_dice_scenes_and_game_tables() -> None:
    _, even = render_training_scene(5, 0)
    _, odd = render_training_scene(5, 1)
    assert even["scene"] == "dice"
    assert odd["scene"] == "table"


def test_the_close_dice_mix_shows_dice_from_close_oblique_cameras() -> None:
    widths = []
    for index in range(4):
        _, truth = render_training_scene(5, index, mix="dice-close")
        assert truth["scene"] == "dice-close"
        camera = truth["params"]["camera"]
        low, high = CLOSE_DICE_CAMERA.distance_mm
        assert low <= camera["distance_mm"] <= high
        assert camera["tilt_deg"] <= CLOSE_DICE_CAMERA.tilt_deg[1]
        widths += [
            o["box"][2] - o["box"][0]
            for o in truth["objects"]
            if o["kind"] == "die" and o.get("target")
        ]
    assert widths, "close dice scenes hold dice"
    # closer than the default cameras ever come (180 mm: about 50 px for a 16 mm die)
    assert max(widths) > 60


def test_the_spreads_mix_photographs_one_games_pieces_spread_out() -> None:
    """Scoring photos (KB-19 hands laid out, CI-22 tiles left in hand, DK-25 kingdom piles):
    each scene holds the pieces of one game, cycling over the three, every one a target."""
    games = []
    for index in range(3):
        jpeg, truth = render_training_scene(5, index, mix="spreads")
        assert jpeg[:2] == b"\xff\xd8"  # a JPEG
        assert truth["scene"] == "spread" and truth["split"] == "train"
        games.append(truth["game"])
        pieces = [o for o in truth["objects"] if o["kind"] in ("card", "tile")]
        assert pieces and all(o["identity"].startswith(truth["game"] + "/") for o in pieces)
        assert all(o["target"] for o in pieces)  # spread pieces are at least half visible
        kinds = {o["kind"] for o in pieces}
        assert kinds == ({"tile"} if truth["game"] == "cafe-international" else {"card"})
    assert sorted(games) == ["cafe-international", "dice-king", "kings-breakfast"]


def test_the_states_mix_shows_live_tables_of_game_positions() -> None:
    """Live tables (`render_state`): a position of one game as players lay it out (KB-10's
    king's area in columns), half of them King's Breakfast, the camera varied about the
    tablet's pose; covered stack cards are not targets."""
    from datasets.state_render import TABLE_CAMERAS

    games = []
    for index in range(4):
        jpeg, truth = render_training_scene(5, index, mix="states")
        assert jpeg[:2] == b"\xff\xd8"
        assert truth["scene"] == "state" and truth["split"] == "train"
        games.append(truth["game"])
        pieces = [o for o in truth["objects"] if o["kind"] in ("card", "tile")]
        assert pieces and all(o["identity"].startswith(truth["game"] + "/") for o in pieces)
        pose = TABLE_CAMERAS[truth["game"]]
        camera = truth["params"]["camera"]
        assert 0.8 * pose.distance_mm <= camera["distance_mm"] <= 1.15 * pose.distance_mm
    assert games == ["kings-breakfast", "kings-breakfast", "cafe-international", "dice-king"]
    # King's Breakfast columns overlap: some target cards' centres lie close in the frame
    _, truth = render_training_scene(5, 0, mix="states")
    centres = np.array([np.mean(o["corners"], axis=0) for o in truth["objects"] if o["target"]])
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() < 30


def test_an_unknown_mix_is_refused_by_name() -> None:
    assert "dice-close" in MIXES
    with pytest.raises(ValueError, match="unknown scene mix 'dice-far'"):
        render_training_scene(5, 0, mix="dice-far")


def test_top_face_samples_mark_each_dies_top_face(tmp_path: Path) -> None:
    from models.data import build_scene_cache, extract_top_faces

    folder = build_scene_cache(tmp_path / "close", 4, seed=3, mix="dice-close", progress=False)
    data = extract_top_faces([folder], seed=1, progress=False)
    dice = data["values"] > 0
    assert dice.sum() >= 4 and (~dice).sum() >= 1
    fractions = (data["masks"] >= 128).mean(axis=(1, 2))
    # a die's top face is a good part of its crop, never all of it (the sides and table show)
    assert ((fractions[dice] > 0.03) & (fractions[dice] < 0.7)).all()
    assert (fractions[~dice] == 0).all() and (data["colours"][~dice] == 0).all()
    # the marked pixels are the die's lit top face: brighter on average than the crop's rest
    pairs = list(zip(data["crops"][dice], data["masks"][dice], strict=True))
    marked = [c[m >= 128].mean() for c, m in pairs]
    rest = [c[m < 128].mean() for c, m in pairs]
    assert np.mean(np.array(marked) > np.array(rest)) > 0.6
    assert data["faces"].shape[1:] == (32, 32, 3)


def test_the_kingdoms_mix_photographs_dice_king_piles_heavy_with_penalty_cards() -> None:
    """Dice King kingdom piles (DK-25: penalty cards are subtracted by their number) for the
    penalty reader: one game, and across scenes many penalty cards."""
    penalties, others = 0, 0
    for index in range(4):
        _, truth = render_training_scene(6, index, mix="kingdoms")
        assert truth["game"] == "dice-king" and truth["scene"] == "spread"
        ids = [o["identity"] for o in truth["objects"] if o["kind"] == "card"]
        assert ids and all(i.startswith("dice-king/") for i in ids)
        penalties += sum("/penalty-" in i for i in ids)
        others += sum("/penalty-" not in i for i in ids)
    # 10 of the deck's 65 cards are penalties; here 30-80 % of a pile
    assert penalties >= 0.25 * (penalties + others)


def test_a_false_piece_lies_off_every_recorded_object() -> None:
    """`models.data.off_objects`: mined "no piece" boxes lie on no recorded object; a box on
    part of a card, or around a small one, is left out (neither a face nor no piece)."""
    import numpy as np

    from models.data import off_objects

    card = np.array([[100.0, 100.0, 160.0, 190.0]])
    assert off_objects(np.array([200.0, 100.0, 260.0, 190.0]), card)  # beside it
    assert off_objects(np.array([145.0, 100.0, 205.0, 190.0]), card)  # astride its edge: 1/4 on
    assert not off_objects(np.array([120.0, 100.0, 180.0, 190.0]), card)  # centred on it
    assert not off_objects(np.array([132.0, 100.0, 192.0, 190.0]), card)  # IoU 0.36: a loose box
    assert not off_objects(np.array([0.0, 0.0, 400.0, 400.0]), card)  # holds the whole card
    assert off_objects(np.array([0.0, 0.0, 10.0, 10.0]), np.zeros((0, 4)))  # nothing recorded


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "usage: python -m models.data"),
        (["OUT", "ten", "3"], "COUNT and SEED are whole numbers"),
        (["OUT", "2", "3", "test"], "SPLIT is one of train, eval"),
        (["OUT", "2", "3", "train", "bogus"], "unknown scene mix 'bogus'"),
    ],
)
def test_scene_cache_command_rejects_bad_arguments_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """`python -m models.data` with missing or wrong arguments: a one-line reason, no
    traceback, exit status 1."""
    import subprocess
    import sys

    argv = [str(tmp_path / "cache") if a == "OUT" else a for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "models.data", *argv],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=120,
    )
    assert done.returncode == 1
    assert message in done.stderr
    assert "Traceback" not in done.stderr
