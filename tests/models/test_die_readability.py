"""Which rendered dice count as readable: their size against the camera's blur."""

from __future__ import annotations

from models.data import READABLE_BLUR_FRACTION, die_is_readable


def _die(width: float) -> dict[str, object]:
    return {"kind": "die", "box": [100.0, 100.0, 100.0 + width, 100.0 + width * 0.9]}


def test_a_sharp_die_of_fair_size_is_readable() -> None:
    assert die_is_readable(_die(40), {"defocus_sigma": 0.0, "motion_length": 0.0})
    assert die_is_readable(_die(40), None)


def test_blur_large_next_to_the_die_makes_it_unreadable() -> None:
    width = 40.0
    just_under = READABLE_BLUR_FRACTION * width * 0.95
    just_over = READABLE_BLUR_FRACTION * width * 1.05
    assert die_is_readable(_die(width), {"defocus_sigma": just_under})
    assert not die_is_readable(_die(width), {"defocus_sigma": just_over})
    # the same blur does not hide the pips of a die twice as wide
    assert die_is_readable(_die(2 * width), {"defocus_sigma": just_over})


def test_motion_blur_counts_and_tiny_or_boxless_dice_are_unreadable() -> None:
    assert not die_is_readable(_die(40), {"motion_length": 20.0})
    assert die_is_readable(_die(40), {"motion_length": 3.0})
    assert not die_is_readable(_die(8), None)
    assert not die_is_readable({"kind": "die"}, None)
