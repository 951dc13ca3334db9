"""The real Kivy window, offscreen, in subprocesses (one Kivy window per process).

1. A tour: the app opens on a demo game, visits every screen and saves a screenshot of each;
   none may be blank, the screens must differ, and switching to Finnish changes the table.
   Then simulated touches on the Table's buttons play steps, each autosaved.
2. Never lose a game: the app is killed (SIGKILL) mid-game; the autosaved record replays to
   its own state and resumes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from companion_app.storage import GameStore
from companion_app.viewmodels.scoring import SCAN_NAMED_BGR
from companion_app.viewmodels.session import GameSession

SCREENS = ("home", "table", "scoring", "history", "settings")
TIMEOUT_S = 90


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["TABLE_COMPANION_HOME"] = str(home)
    env.pop("KIVY_HOME", None)
    # no detector: these tests are about the window (recognition has its own tests); loading
    # the models would only slow every start
    env["TABLE_COMPANION_DETECTOR"] = str(home / "no-detector.onnx")
    return env


def test_every_screen_renders_in_a_real_window(tmp_path: Path) -> None:
    code = (
        "import sys; from companion_app.app import tour; "
        f"sys.exit(tour({str(tmp_path / 'shots')!r}, 'kings-breakfast'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    images = {}
    for name in SCREENS:
        image = cv2.imread(str(tmp_path / "shots" / f"{name}.png"))
        assert image is not None, f"no screenshot of {name}"
        assert image.shape[:2] == (800, 1280)
        assert float(image.std()) > 20.0, f"{name} looks blank"
        images[name] = image.astype(np.int16)
    for a in SCREENS:
        for b in SCREENS:
            if a < b:
                assert np.abs(images[a] - images[b]).mean() > 3.0, f"{a} and {b} look the same"
    finnish = cv2.imread(str(tmp_path / "shots" / "table_fi.png"))
    assert finnish is not None, "no screenshot after switching to Finnish"
    assert np.abs(finnish.astype(np.int16) - images["table"]).mean() > 1.0  # switched at run time
    taps = json.loads((tmp_path / "shots" / "taps.json").read_text(encoding="utf-8"))
    assert taps["steps_after"] == taps["steps_before"] + taps["taps"] > taps["taps"]
    [saved] = GameStore(tmp_path / "home").list()  # every step was autosaved
    assert saved.game == "kings-breakfast" and saved.steps == taps["steps_after"]


def test_killed_mid_game_loses_nothing_saved(tmp_path: Path) -> None:
    """Autosave is atomic: after SIGKILL the record is whole and resumes to its own state."""
    code = (
        "import sys; from companion_app.app import launch; "
        "sys.exit(launch(game='dice-king', demo=True, exit_after=60))"
    )
    home = tmp_path / "home"
    child = subprocess.Popen([sys.executable, "-c", code], env=_env(home))
    store_folder = home / "games"
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            infos = GameStore(home).list() if store_folder.exists() else []
            if infos and infos[0].steps >= 12:
                break
            assert child.poll() is None, "the app ended before it was killed"
            time.sleep(0.1)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    [info] = GameStore(home).list()
    record = json.loads(info.path.read_text(encoding="utf-8"))
    resumed = GameSession.from_record(record)
    assert len(resumed.history.actions) == len(record["actions"]) >= 12  # the log replays
    assert resumed.rules.state_to_json(resumed.state) == record["state"]


def _run_app(code: str, home: Path) -> None:
    """Run `code` (a scripted app) in a Python subprocess of its own; it must exit 0."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def _not_blank(image: np.ndarray) -> bool:
    return float(image.std()) > 20.0


def test_whole_game_by_touches_ends_on_scoring_with_the_right_scores(tmp_path: Path) -> None:
    """Simulated touches play a whole Dice King game on the Table, then tap Scoring: the
    screen shows the engine's scores of the saved game, replayed from its record."""
    _run_app(
        "import sys; from companion_app.app import play_whole_game; "
        f"sys.exit(play_whole_game({str(tmp_path / 'play')!r}, 'dice-king'))",
        tmp_path / "home",
    )
    result = json.loads((tmp_path / "play" / "result.json").read_text(encoding="utf-8"))
    assert result["screen"] == "scoring" and result["over"]
    [info] = GameStore(tmp_path / "home").list()
    record = json.loads(info.path.read_text(encoding="utf-8"))
    replayed = GameSession.from_record(record)
    assert len(replayed.history.actions) == result["steps"]
    assert result["shown"] == result["engine_scores"] == replayed.scores()
    shot = cv2.imread(str(tmp_path / "play" / "scoring.png"))
    assert shot is not None and _not_blank(shot)


def test_scan_on_scoring_reads_the_camera_picture_into_a_players_row(tmp_path: Path) -> None:
    """DK-25: with a photo of a kingdom pile as the camera's picture, Scan on the Scoring
    screen fills the first player's row with that pile's parts (the photo read off the UI
    thread by the scoring-photo pipeline, as `score dice-king` reads it)."""
    from datasets.state_render import render_spread
    from engines.dice_king.catalogue import companion_deck
    from engines.dice_king.scoring import score_kingdom

    deck = companion_deck()
    pile = [card.id for card in deck.cards[:5]]
    frame, _ = render_spread([f"dice-king/{c}" for c in pile], 51)
    camera = tmp_path / "camera"
    camera.mkdir()
    cv2.imwrite(str(camera / "pile.png"), frame)
    _run_app(
        "import sys; from companion_app.app import scan_photo; "
        f"sys.exit(scan_photo({str(tmp_path / 'scan')!r}, 'dice-king', {str(camera)!r}))",
        tmp_path / "home",
    )
    result = json.loads((tmp_path / "scan" / "scan.json").read_text(encoding="utf-8"))
    assert result["row"] and not result["scanning"]
    assert "taken from the photo" in result["message"], result["message"]
    expected = score_kingdom(deck, pile)
    assert result["counts"] == {part: getattr(expected, part) for part in result["counts"]}
    assert result["counts"]["inhabitants"] == expected.inhabitants > 0
    shot = cv2.imread(str(tmp_path / "scan" / "scoring.png"))
    assert shot is not None and _not_blank(shot)
    # a tap on the picture shows it large: the window changes, and the boxes' green is in it
    large = cv2.imread(str(tmp_path / "scan" / "picture.png"))
    assert large is not None and np.abs(large.astype(int) - shot.astype(int)).mean() > 10
    green = (np.abs(large.astype(int) - SCAN_NAMED_BGR).sum(axis=2) < 60).sum()
    assert green > 500  # pixels of the boxes drawn round the named cards


def test_scan_refuses_the_demo_recording(tmp_path: Path) -> None:
    """The demo's camera is a recording of the whole table: Scan says so and fills nothing
    (read as one spread, every card on the table would be counted as one player's)."""
    _run_app(
        "import sys; from companion_app.app import scan_photo; "
        f"sys.exit(scan_photo({str(tmp_path / 'scan')!r}, 'dice-king', None))",
        tmp_path / "home",
    )
    result = json.loads((tmp_path / "scan" / "scan.json").read_text(encoding="utf-8"))
    assert "whole table" in result["message"], result["message"]
    assert result["counts"] and result["counts"] == result["game_counts"]  # the game's, as before


def test_demo_plays_the_bundled_clip_and_says_what_it_recognises(tmp_path: Path) -> None:
    """`table-companion demo` shows the bundled clip in the camera area; without a detector
    model the panel follows the recording and the Table says so."""
    from datasets.demo_clips import load_manifest
    from engines import game_rules

    game = "cafe-international"
    env = _env(tmp_path / "home")  # no detector model
    shot = tmp_path / "demo.png"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion_app.cli",
            "demo",
            "--game",
            game,
            "--screenshot",
            str(shot),
            "--exit-after",
            "5",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = [x for x in done.stderr.splitlines() if x.startswith("live: ")]
    assert f"demo clip {game}.mp4" in line and "recognition off: no detector model" in line
    image = cv2.imread(str(shot))
    assert image is not None and image.shape[:2] == (800, 1280) and _not_blank(image)
    camera = image[220:690, 20:720]  # the preview area of the Table
    assert float(camera.mean()) > 30.0 and float(camera.std()) > 10.0, "no picture"
    [info] = GameStore(tmp_path / "home").list()
    record = json.loads(info.path.read_text(encoding="utf-8"))
    rules = game_rules(game)
    state = rules.state_to_json(GameSession.from_record(record).state)
    assert state in [s["state"] for s in load_manifest(game)["segments"]]  # the recording


_RECORDED_DEMO = """
import sys
from pathlib import Path
from companion_app.app import prepare_kivy_environment
prepare_kivy_environment()
from companion_app.app.main import TableCompanionApp
from companion_app.viewmodels.recognition import Recognition, _reader_for
from datasets.demo_clips import RecordedDetector
from vision.readers.zones import default_zones
game = "dice-king"
def factory(session, corrections):
    n = len(session.players)
    read = _reader_for(game, n, zones=default_zones(game, n_players=n))
    detector = RecordedDetector(game, with_identities=True)
    return Recognition(game, session.state, n, process=detector, identify=None, read=read,
                       corrections=corrections)
app = TableCompanionApp(game=game, demo=True, screenshot=Path(sys.argv[1]), exit_after=9.0,
                        recognition_factory=factory)
app.run()
sys.exit(app.exit_status)
"""


def test_demo_loop_applies_recognised_changes_to_the_session(tmp_path: Path) -> None:
    """The app's whole loop on the demo clip with a perfect detector (the clip's recorded
    pieces): the worker's tracker explains table changes, the app applies them to the session
    (autosaved) and counts them; the overlay outlines the pieces."""
    from companion_app.viewmodels.recognition import table_key
    from datasets.demo_clips import load_manifest
    from engines import game_rules

    shot = tmp_path / "demo.png"
    done = subprocess.run(
        [sys.executable, "-c", _RECORDED_DEMO, str(shot)],
        env=_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = [x for x in done.stderr.splitlines() if x.startswith("live: ")]
    assert "recognition on" in line
    recognised, changes = (
        int(v) for v in line.split("demo changes recognised ")[1].split(";")[0].split("/")
    )
    assert changes >= 1 and recognised >= 1, line
    [info] = GameStore(tmp_path / "home").list()
    record = json.loads(info.path.read_text(encoding="utf-8"))
    rules = game_rules("dice-king")
    now = table_key("dice-king", GameSession.from_record(record).state)
    recorded = [
        table_key("dice-king", rules.state_from_json(s["state"]))
        for s in load_manifest("dice-king")["segments"]
    ]
    assert now in recorded  # never a state the recording did not have
    image = cv2.imread(str(shot))
    assert image is not None and _not_blank(image)
