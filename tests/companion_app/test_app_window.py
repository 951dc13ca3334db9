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
from companion_app.viewmodels.session import GameSession

SCREENS = ("home", "table", "scoring", "history", "settings")
TIMEOUT_S = 90


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["TABLE_COMPANION_HOME"] = str(home)
    env.pop("KIVY_HOME", None)
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
