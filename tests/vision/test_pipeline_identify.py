"""The pipeline's identification stage: cards and tiles go to the identifier, restricted to the
game being played; frames with only dice, or a pipeline told not to identify, skip it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_detections import make
from vision.detections import Detections
from vision.pipeline import Perception

MODELS = Path(__file__).resolve().parents[2] / "models"


class RecordingIdentifier:
    """Names every card and tile 'kings-breakfast/cheese' and remembers how it was called."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...] | None] = []

    def identify(
        self, frame: np.ndarray, detections: Detections, games: Sequence[str] | None = None
    ) -> Detections:
        self.calls.append(None if games is None else tuple(games))
        named = np.where(detections.kinds == "die", None, "kings-breakfast/cheese")
        return detections.with_fields(identities=named.astype(object))


needs_models = pytest.mark.skipif(
    not (MODELS / "detector.onnx").is_file(), reason="no committed detector model"
)


@needs_models
def test_cards_are_identified_among_the_games_pieces() -> None:
    identifier = RecordingIdentifier()
    perception = Perception(identifier=identifier, games=["kings-breakfast"])  # type: ignore[arg-type]
    frame = np.zeros((64, 64, 3), np.uint8)
    result = perception.identify(frame, make(["card", "die"]))
    assert identifier.calls == [("kings-breakfast",)]
    assert list(result.identities) == ["kings-breakfast/cheese", None]


@needs_models
@pytest.mark.parametrize(("kinds", "enabled"), [(["die", "die"], True), (["card"], False)])
def test_identification_is_skipped_without_cards_or_when_disabled(
    kinds: list[str], enabled: bool
) -> None:
    identifier = RecordingIdentifier()
    perception = Perception(identifier=identifier, identify=enabled)  # type: ignore[arg-type]
    detections = make(kinds)
    result = perception.identify(np.zeros((64, 64, 3), np.uint8), detections)
    assert identifier.calls == []
    assert result is detections
