"""Table zones: defaults for a tablet at the table's edge, point lookup, saving per user."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.readers.zones import (
    DEFAULT_POSES,
    Zones,
    default_zones,
    load_zones,
    project_table_points,
    save_zones,
    zones_file,
)


def test_projection_puts_the_aim_point_in_the_image_centre() -> None:
    """The tablet looks at its target: that table point is the image centre."""
    pose = DEFAULT_POSES["kings-breakfast"]
    centre = project_table_points(np.array([pose.target_mm]), pose, (800, 600))
    np.testing.assert_allclose(centre[0], (400.0, 300.0), atol=1e-6)


def test_nearer_table_points_appear_lower_in_the_image() -> None:
    """The tablet stands at the near edge: nearer points are lower in the frame."""
    pose = DEFAULT_POSES["kings-breakfast"]
    near, far = project_table_points(np.array([[0.0, -100.0], [0.0, 600.0]]), pose, (800, 600))
    assert near[1] > far[1]


def test_kb_default_zones_cover_the_table_areas_without_overlap() -> None:
    """The four King's Breakfast zones lie in the frame, the king's area above the offer."""
    zones = default_zones("kings-breakfast")
    assert set(zones.polygons) == {"offer", "king", "emeralds", "reveal"}
    for polygon in zones.polygons.values():
        assert polygon.min() >= -0.05 and polygon.max() <= 1.05
    size = (800, 600)
    centres = {name: p.mean(axis=0) * size for name, p in zones.polygons.items()}
    found = zones.zone_of(np.array(list(centres.values())), size)
    assert found == list(centres)
    assert centres["king"][1] < centres["offer"][1]
    assert zones.zone_of(np.array([[1.0, 599.0]]), size) == [None]


def test_dice_king_zones_have_a_kingdom_per_player() -> None:
    """Dice King: five row slots, five village stacks, penalty, dice and one kingdom each."""
    zones = default_zones("dice-king", n_players=3)
    assert {f"kingdom:{p}" for p in range(3)} <= set(zones.polygons)
    assert "kingdom:3" not in zones.polygons
    assert len([n for n in zones.polygons if n.startswith("row:")]) == 5


def test_zones_are_saved_per_user_and_read_back(tmp_path: Path) -> None:
    """Edited zones are written atomically to the user folder and win over the defaults."""
    zones = default_zones("kings-breakfast")
    moved = Zones(zones.game, {**zones.polygons, "reveal": zones.polygons["reveal"] + 0.01})
    path = save_zones(moved, tmp_path)
    assert path == zones_file("kings-breakfast", tmp_path) and path.exists()
    loaded = load_zones("kings-breakfast", tmp_path)
    np.testing.assert_allclose(loaded.polygons["reveal"], moved.polygons["reveal"], atol=1e-5)
    assert not list(path.parent.glob("*.tmp"))


def test_bad_zone_files_are_refused_with_the_zone_named() -> None:
    """A zone must be 3+ points in image fractions."""
    with pytest.raises(ValueError, match="zone 'offer' must be a list of 3 or more"):
        Zones.from_json({"game": "kings-breakfast", "zones": {"offer": [[0, 0], [1, 1]]}})
    with pytest.raises(ValueError, match="image fractions"):
        Zones.from_json({"game": "kings-breakfast", "zones": {"offer": [[0, 0], [900, 1], [1, 5]]}})
    with pytest.raises(ValueError, match="no zones for game"):
        default_zones("cafe-international")


def test_a_zones_bounds_are_its_rectangle_widened_and_kept_in_the_frame() -> None:
    zones = default_zones("dice-king", n_players=3)
    x0, y0, x1, y1 = zones.bounds("dice")
    polygon = zones.polygons["dice"]
    assert (x0, y0) == pytest.approx(tuple(polygon.min(axis=0)))
    assert (x1, y1) == pytest.approx(tuple(polygon.max(axis=0)))
    wx0, wy0, wx1, wy1 = zones.bounds("dice", 0.25)
    assert wx0 == pytest.approx(x0 - 0.25 * (x1 - x0)) and wy1 == pytest.approx(
        y1 + 0.25 * (y1 - y0)
    )
    assert zones.bounds("dice", 10.0) == (0.0, 0.0, 1.0, 1.0)
    with pytest.raises(KeyError, match="no zone 'bar'"):
        zones.bounds("bar")


@pytest.mark.parametrize("size", [(1280, 960), (1280, 720), (800, 600)])
def test_dk8_default_zones_fit_a_16_9_camera_as_well_as_a_4_3_one(size: tuple[int, int]) -> None:
    """DK-8, DK-10: the defaults are drawn for 4:3 frames; a camera's 16:9 mode (the app asks
    for 1280 x 720) shows the same width and less height. Each table area's centre, projected
    by the same tablet into either frame, lies in its own zone."""
    from vision.readers.zones import TABLE_AREAS_MM

    zones = default_zones("dice-king", n_players=5)
    pose = DEFAULT_POSES["dice-king"]
    names = [n for n in TABLE_AREAS_MM["dice-king"] if n in zones.polygons]
    centres_mm = np.array(
        [
            ((r[0] + r[2]) / 2, (r[1] + r[3]) / 2)
            for r in (TABLE_AREAS_MM["dice-king"][n] for n in names)
        ]
    )
    points = project_table_points(centres_mm, pose, size)
    assert zones.zone_of(points, size) == names
    framed = zones.in_frame(size)
    assert framed.aspect == pytest.approx(size[0] / size[1])
    assert framed.zone_of(points, size) == names
    if size[1] == 720:  # read as the frame's own fractions, the 4:3 zones miss the 16:9 frame
        plain = Zones(zones.game, zones.polygons)
        assert plain.zone_of(points, size) != names


def test_a_zones_aspect_is_saved_and_checked(tmp_path: Path) -> None:
    zones = default_zones("kings-breakfast").in_frame((1280, 720))
    save_zones(zones, tmp_path)
    loaded = load_zones("kings-breakfast", tmp_path)
    assert loaded.aspect == pytest.approx(16 / 9, abs=1e-5)
    old = Zones.from_json({"game": "kings-breakfast", "zones": zones.to_json()["zones"]})
    assert old.aspect is None  # a file from before: the frame's own fractions
    for bad in (0, -1.5, "wide", True, 40.0):
        with pytest.raises(ValueError, match="aspect"):
            Zones.from_json({**zones.to_json(), "aspect": bad})
