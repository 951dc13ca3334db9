"""Every onnxruntime session of the pipeline lets its idle threads sleep.

The pipeline runs four models one after another on a 2-core machine; with onnxruntime's default
(idle threads spin for a while after each run) one model's spinning threads took the cores from
the next, and `benchmarks/detect_speed.py` measured 150 ms instead of 73–90 ms for a frame.
"""

from __future__ import annotations

from typing import Any

from vision.corner_refiner import CornerRefiner
from vision.detector import Detector
from vision.dice_reader import DiceReader
from vision.top_face import TopFaceReader


def _spinning(session: Any) -> str:
    return str(
        session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning")
    )


def test_no_model_session_spins() -> None:
    top_face = TopFaceReader()
    sessions = [
        Detector()._session,
        DiceReader()._session,
        CornerRefiner()._session,
        top_face._locator,
        top_face._reader,
    ]
    assert [_spinning(s) for s in sessions] == ["0"] * len(sessions)
