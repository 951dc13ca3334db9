"""`table-companion demo`: the app window with `--screenshot`, the terminal without a screen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from companion_app.cli.demo import has_screen


@pytest.mark.parametrize("game", ["kings-breakfast", "cafe-international", "dice-king"])
def test_demo_screenshot_shows_the_game_panel(game: str, tmp_path: Path) -> None:
    """The demo opens the real app window offscreen, plays by itself and saves a screenshot."""
    shot = tmp_path / f"{game}.png"
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"), TABLE_COMPANION_HOME=str(tmp_path))
    command = [sys.executable, "-m", "companion_app.cli", "demo", "--game", game]
    command += ["--screenshot", str(shot), "--exit-after", "3"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    image = cv2.imread(str(shot))
    assert image is not None and image.shape[0] >= 400 and image.shape[1] >= 600
    assert float(image.std()) > 20.0, "the screenshot is blank"


def test_demo_without_a_screen_plays_in_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not has_screen()
    monkeypatch.setenv("DISPLAY", ":0")
    assert has_screen()
