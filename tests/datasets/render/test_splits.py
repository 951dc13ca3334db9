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
