"""Train and eval splits use disjoint texture, light and die-colour families."""

from __future__ import annotations

from datasets.render import _art, layouts
from datasets.render.lighting import LIGHT_FAMILIES
from datasets.render.scene import sample_environment, sample_rng
from datasets.render.textures import FAMILIES, family_names, texture_tile


def test_texture_families_are_disjoint():
    assert not set(family_names("train")) & set(family_names("eval"))
    train_palettes = {tuple(map(tuple, f.palette)) for f in FAMILIES["train"]}
    eval_palettes = {tuple(map(tuple, f.palette)) for f in FAMILIES["eval"]}
    assert not train_palettes & eval_palettes


def test_light_families_are_disjoint():
    names = {split: {f.name for f in LIGHT_FAMILIES[split]} for split in LIGHT_FAMILIES}
    assert not names["train"] & names["eval"]


def test_die_style_banks_share_no_colour_family():
    train = {s.family for s in _art.style_bank("train")}
    evaluation = {s.family for s in _art.style_bank("eval")}
    assert train and evaluation and not train & evaluation


def test_sampled_environments_stay_in_their_split():
    for split in ("train", "eval"):
        textures = set(family_names(split))
        lights = {f.name for f in LIGHT_FAMILIES[split]}
        for i in range(40):
            rng = sample_rng(3, i)
            scene = layouts.sample_table(rng, "dice-king", split)
            env = sample_environment(rng, scene, (64, 48), split)
            assert env.surface.family in textures
            assert env.light.family in lights


def test_texture_banks_are_deterministic():
    a = texture_tile("train", "wood_grain", 1)[0]
    texture_tile.cache_clear()
    b = texture_tile("train", "wood_grain", 1)[0]
    assert (a == b).all()


def test_printed_cloth_has_soft_patches_of_several_colours_on_its_base():
    """The `prints` training cloth: patches of several colours cover part of the cloth, the
    base showing between them, with blurred edges (the withheld busy tables' weak boxes were
    such patches; a cloth of sharp one-colour marks did not teach the reader them)."""
    import cv2
    import numpy as np

    for variant in range(3):
        tile = texture_tile("train", "prints", variant)[0].astype(np.float32)
        base = np.median(tile.reshape(-1, 3), axis=0)
        off_base = np.linalg.norm(tile - base, axis=2) > 40
        assert 0.05 < off_base.mean() < 0.6
        hues = cv2.cvtColor(tile.astype(np.uint8), cv2.COLOR_BGR2HSV)[..., 0][off_base]
        assert len(np.unique(hues // 15)) >= 3
        # soft edges: the colour changes over a few texels, so mid-way values are common
        partial = (np.linalg.norm(tile - base, axis=2) > 8) & ~off_base
        assert partial.mean() > 0.01
