"""`table-companion run`: bad input ends with exit 2 and one line, before any window opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_app.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--source", "/no/such/place"], "no camera, video or folder at '/no/such/place'"),
        (["run", "--source", "97"], "camera 97 not found"),
        (["run", "--exit-after", "0"], "--exit-after must be more than 0 seconds, got 0.0"),
    ],
)
def test_run_rejects_bad_input_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith(message) and err.count("\n") == 1


def test_run_rejects_an_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--source", str(tmp_path)]) == 2
    assert "no image in folder" in capsys.readouterr().err


def test_run_rejects_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--game", "chess"])
    assert exit_info.value.code == 2
