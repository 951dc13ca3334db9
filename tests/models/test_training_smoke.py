"""Smoke training of every model: a few steps, exported to ONNX, run by onnxruntime.

Skipped when torch is not installed (CI installs only ``.[test]``; ``.[train]`` adds torch).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch not installed (pip install -e '.[train]')")
pytest.importorskip("onnx", reason="onnx not installed (pip install -e '.[train]')")


def test_dice_smoke_training_exports_a_working_reader(tmp_path: Path) -> None:
    from models.train import main
    from vision.dice_reader import DiceReader

    out = tmp_path / "dice.onnx"
    assert (
        main(
            [
                "dice",
                "--smoke",
                "--runs",
                str(tmp_path),
                "--out",
                str(out),
                "--no-progress",
                "--threads",
                "1",
            ]
        )
        == 0
    )
    readings = DiceReader(out).read_crops(np.zeros((3, 40, 40, 3), np.uint8))
    assert readings.value_probabilities.shape == (3, 7)
    np.testing.assert_allclose(readings.value_probabilities.sum(axis=1), 1.0, atol=1e-4)
    # resumable: a second call finds the checkpoint and only re-exports
    assert (
        main(
            [
                "dice",
                "--smoke",
                "--runs",
                str(tmp_path),
                "--out",
                str(out),
                "--no-progress",
                "--threads",
                "1",
            ]
        )
        == 0
    )
    assert (tmp_path / "dice-smoke" / "checkpoint.pt").exists()


def test_detector_smoke_training_exports_a_working_detector(tmp_path: Path) -> None:
    from models.train import main
    from vision.detector import Detector

    out = tmp_path / "detector.onnx"
    assert (
        main(
            [
                "detector",
                "--smoke",
                "--runs",
                str(tmp_path),
                "--out",
                str(out),
                "--no-progress",
                "--threads",
                "1",
                "--batch",
                "2",
            ]
        )
        == 0
    )
    detections = Detector(out).detect(np.zeros((120, 200, 3), np.uint8))
    assert detections.boxes_xyxy.shape[1] == 4


def test_dice_smoke_training_learns_the_detectors_false_dice(tmp_path: Path) -> None:
    """`--false-dice-from`: the detector's dice that are none become "not a die" crops."""
    import json

    from models.train import main

    detector = Path(__file__).resolve().parents[2] / "models" / "detector.onnx"
    out = tmp_path / "dice.onnx"
    argv = ["dice", "--smoke", "--runs", str(tmp_path), "--out", str(out)]
    argv += ["--no-progress", "--threads", "1", "--false-dice-from", str(detector)]
    assert main(argv) == 0
    mined = np.load(tmp_path / "dice-smoke" / "false_dice.npz")
    assert (mined["values"] == 0).all() and mined["readable"].all()
    assert len(mined["crops"]) == len(mined["values"])
    metrics = json.loads((tmp_path / "dice-smoke" / "metrics.json").read_text())
    assert metrics["false_dice_crops"] == len(mined["values"])


def _detector_smoke(runs: Path, *extra: str) -> dict:
    import json

    from models.train import main

    argv = ["detector", "--smoke", "--runs", str(runs), "--out", str(runs / "d.onnx")]
    argv += ["--no-progress", "--threads", "1", "--batch", "2", "--device", "cpu", *extra]
    assert main(argv) == 0
    return json.loads((runs / "detector-smoke" / "metrics.json").read_text())


def _history(runs: Path) -> list[dict]:
    import json

    path = runs / "detector-smoke" / "history.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_detector_samples_do_not_depend_on_the_loader_workers(tmp_path: Path) -> None:
    """Each sample is seeded by (seed, epoch, index): a run with spawned loader workers (as on a
    lent GPU machine) takes the same steps as one loading in the trainer."""
    _detector_smoke(tmp_path / "in-trainer")
    _detector_smoke(tmp_path / "workers", "--workers", "1")
    one, other = _history(tmp_path / "in-trainer"), _history(tmp_path / "workers")
    assert len(one) == len(other) == 1
    for part in ("heat", "size", "offset", "corners"):
        assert one[0][part] == pytest.approx(other[0][part], rel=1e-5)


def test_detector_stop_after_ends_at_an_epoch_boundary_and_resumes(tmp_path: Path) -> None:
    metrics = _detector_smoke(tmp_path, "--stop-after", "0")
    assert metrics["stopped_early"] and metrics["steps"] == 0
    assert _history(tmp_path) == []
    assert (tmp_path / "d.onnx").exists()  # the weights so far are still exported
    metrics = _detector_smoke(tmp_path)
    assert not metrics["stopped_early"] and metrics["steps"] >= 1
    assert len(_history(tmp_path)) == 1


def test_corner_refiner_smoke_training_exports_a_working_refiner(tmp_path: Path) -> None:
    import json

    from models.train import main
    from vision.corner_refiner import CornerRefiner

    out = tmp_path / "corners.onnx"
    argv = ["corners", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    assert main([*argv, "--threads", "1", "--batch", "4"]) == 0
    frame = np.full((200, 300, 3), 90, np.uint8)
    quad = np.array([[[100, 50], [180, 50], [180, 160], [100, 160]]], np.float64)
    refined = CornerRefiner(out).refine(frame, quad)
    assert refined.shape == (1, 4, 2) and np.isfinite(refined).all()
    metrics = json.loads((tmp_path / "corners-smoke" / "metrics.json").read_text())
    assert metrics["held_out_pieces"] > 0 and metrics["rough_median"] > 0
    # resumable: the patches and the checkpoint are found again
    assert main([*argv, "--threads", "1", "--batch", "4"]) == 0
    assert (tmp_path / "corners-smoke" / "pieces.npy").exists()


def test_corner_refiner_training_starts_from_the_committed_onnx(tmp_path: Path) -> None:
    """``--init models/corner_refiner.onnx`` reads the committed refiner's weights back (its run
    folder is gone): after one smoke step it still refines the held-out quads."""
    import json

    from models.train import main

    root = Path(__file__).resolve().parents[2]
    argv = ["corners", "--smoke", "--runs", str(tmp_path), "--out", str(tmp_path / "c.onnx")]
    init = ["--init", str(root / "models" / "corner_refiner.onnx"), "--lr", "1e-5"]
    assert main([*argv, *init, "--no-progress", "--threads", "1", "--batch", "4"]) == 0
    metrics = json.loads((tmp_path / "corners-smoke" / "metrics.json").read_text())
    assert metrics["round2_median"] < 0.5 * metrics["rough_median"], metrics


def test_corner_snapper_smoke_training_exports_a_working_snapper(tmp_path: Path) -> None:
    import json

    from models.train import main
    from vision.corner_snap import CornerSnapper

    out = tmp_path / "snap.onnx"
    argv = ["corner-snap", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    assert main([*argv, "--threads", "1", "--batch", "4"]) == 0
    frame = np.full((200, 300, 3), 90, np.uint8)
    quad = np.array([[[100, 50], [180, 50], [180, 160], [100, 160]]], np.float64)
    snapped = CornerSnapper(out).snap(frame, quad)
    assert snapped.shape == (1, 4, 2) and np.isfinite(snapped).all()
    metrics = json.loads((tmp_path / "corner-snap-smoke" / "metrics.json").read_text())
    assert metrics["held_out_pieces"] > 0 and metrics["rough_median"] > 0
    # resumable: the corner crops and the checkpoint are found again
    assert main([*argv, "--threads", "1", "--batch", "4"]) == 0
    assert (tmp_path / "corner-snap-smoke" / "corners.npy").exists()


def test_top_face_smoke_training_exports_a_working_locator_and_reader(tmp_path: Path) -> None:
    from models.train import main
    from vision.top_face import TopFaceReader

    out = tmp_path / "out" / "dice_top_face.onnx"
    argv = ["top-face", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    assert main([*argv, "--threads", "1"]) == 0
    reader = TopFaceReader(out, out.with_name("dice_face_reader.onnx"))
    frame = np.full((120, 160, 3), 200, np.uint8)
    readings = reader.read(frame, np.array([[50.0, 40.0, 90.0, 80.0]]))
    assert readings.quads_px.shape == (1, 4, 2)
    faces = reader.read_faces(np.zeros((2, 32, 32, 3), np.uint8))[0]
    np.testing.assert_allclose(faces.sum(axis=1), 1.0, atol=1e-4)
    # both phases resume from their checkpoints
    assert (tmp_path / "top-face-smoke" / "locator" / "checkpoint.pt").exists()
    assert (tmp_path / "top-face-smoke" / "reader" / "checkpoint.pt").exists()
    assert main([*argv, "--threads", "1"]) == 0


def test_piece_reader_smoke_training_exports_a_reader_that_knows_every_face(
    tmp_path: Path,
) -> None:
    from models.train import main
    from vision.gallery import game_identities
    from vision.piece_reader import PieceReader

    out = tmp_path / "out" / "piece_reader.onnx"
    argv = ["pieces", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    assert main([*argv, "--threads", "1", "--batch", "8"]) == 0
    reader = PieceReader(out)
    known = {identity for group in reader.classes for identity in group}
    assert set(game_identities("dice-king")) <= known
    readings = reader.read(np.full((80, 80, 3), 90, np.uint8), np.array([[20.0, 10, 60, 70]]))
    np.testing.assert_allclose(readings.probabilities.sum(axis=1), 1.0, atol=1e-4)
    # resumable: the crops and the checkpoint are found again
    assert (tmp_path / "pieces-smoke" / "crops.npz").exists()
    assert (tmp_path / "pieces-smoke" / "checkpoint.pt").exists()
    assert main([*argv, "--threads", "1", "--batch", "8"]) == 0


def test_a_face_reader_smoke_training_knows_only_its_faces(tmp_path: Path) -> None:
    """``--faces PREFIX`` (the penalty reader): classes are that prefix's faces only, every
    other piece is class 0; a prefix no face has is refused."""
    from models.train import main
    from vision.piece_reader import PieceReader

    out = tmp_path / "penalty_reader.onnx"
    argv = ["pieces", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    argv += ["--threads", "1", "--batch", "8", "--size", "48"]
    assert main([*argv, "--faces", "dice-king/penalty-", "--name", "penalty"]) == 0
    reader = PieceReader(out)
    assert reader.crop_size == 48
    assert [g[0] for g in reader.classes[1:]] == [
        "dice-king/penalty-1",
        "dice-king/penalty-3",
        "dice-king/penalty-6",
        "dice-king/penalty-9",
    ]
    with pytest.raises(SystemExit, match="no companion face's identity starts with 'x/'"):
        main([*argv, "--faces", "x/", "--name", "nothing"])


def test_a_face_warp_reader_smoke_training_reads_warped_quads(tmp_path: Path) -> None:
    """``--warps``: the data are rectified faces (each piece's corners, disturbed, warped onto a
    square), the reader reads quads; mined false boxes (no corners) are refused with it."""
    import json

    from models.train import main
    from vision.piece_reader import PieceReader

    out = tmp_path / "warp_reader.onnx"
    argv = ["pieces", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    argv += ["--threads", "1", "--batch", "8", "--size", "32", "--warps", "--faces", "dice-king/"]
    assert main(argv) == 0
    data = np.load(tmp_path / "pieces-smoke" / "warps.npz")
    assert data["crops"].shape[1:] == (32, 32, 3) and (data["labels"] == 0).any()
    metrics = json.loads((tmp_path / "pieces-smoke" / "metrics.json").read_text())
    assert metrics["input"] == "rectified face warps"
    reader = PieceReader(out)
    quad = np.array([[[20.0, 10], [60, 12], [58, 70], [18, 68]]])
    readings = reader.read_quads(np.full((80, 80, 3), 90, np.uint8), quad, ["dice-king"])
    np.testing.assert_allclose(readings.probabilities.sum(axis=1), 1.0, atol=1e-4)
    detector = Path(__file__).resolve().parents[2] / "models" / "detector.onnx"
    with pytest.raises(SystemExit, match="mined false boxes have no corners"):
        main([*argv, "--name", "mined", "--false-pieces-from", str(detector)])


def test_piece_smoke_training_learns_the_detectors_false_pieces(tmp_path: Path) -> None:
    """`--false-pieces-from`: what the detector boxes where no piece lies becomes class 0."""
    import json

    from models.train import main

    detector = Path(__file__).resolve().parents[2] / "models" / "detector.onnx"
    out = tmp_path / "pieces.onnx"
    argv = ["pieces", "--smoke", "--runs", str(tmp_path), "--out", str(out), "--no-progress"]
    argv += ["--threads", "1", "--false-pieces-from", str(detector)]
    assert main(argv) == 0
    mined = np.load(tmp_path / "pieces-smoke" / "false_pieces.npz")
    assert (mined["labels"] == 0).all()
    assert len(mined["crops"]) == len(mined["labels"]) == len(mined["scene"])
    assert mined["crops"].shape[1:] == (64, 64, 3)
    metrics = json.loads((tmp_path / "pieces-smoke" / "metrics.json").read_text())
    assert metrics["false_piece_crops"] == len(mined["labels"])


def test_piece_training_starts_from_a_committed_onnx_reader(tmp_path: Path) -> None:
    """`--init READER.onnx`: the batch norms the export folded away are rebuilt, so the
    fine-tuning starts from what the committed file computes."""
    import onnxruntime as ort

    from models.architectures import PieceReaderNet
    from models.export import load_exported_weights

    committed = Path(__file__).resolve().parents[2] / "models" / "kings_breakfast_reader.onnx"
    session = ort.InferenceSession(str(committed))
    classes = session.get_outputs()[0].shape[1]
    x = torch.from_numpy(np.random.default_rng(0).random((32, 3, 96, 96), dtype=np.float32))
    net = PieceReaderNet(classes, 16)
    load_exported_weights(net, committed, x)
    with torch.no_grad():
        logits = net.eval()(x[:6]).numpy()
    expected = session.run(None, {session.get_inputs()[0].name: x[:6].numpy()})[0]
    assert (logits.argmax(axis=1) == expected.argmax(axis=1)).all()
    # the file's probabilities are a temperature-scaled softmax of the same logits
    z = np.log(np.clip(expected, 1e-30, None))
    ratio = (z[:, 1:] - z[:, :1]) / (logits[:, 1:] - logits[:, :1])
    assert np.allclose(ratio, ratio.flat[0], rtol=1e-3)
    with pytest.raises(ValueError, match="convolution"):
        load_exported_weights(PieceReaderNet(classes, 24), committed, x)


def test_die_reader_training_starts_from_the_committed_onnx_reader(tmp_path: Path) -> None:
    """`models.train dice --init models/dice_reader.onnx`: the checkpoint made from the file
    computes what the file computes (value and colour heads, before its calibrated softmax)."""
    import onnxruntime as ort

    from models.architectures import DiceReaderNet
    from models.export import checkpoint_from_exported
    from models.runs import load_checkpoint

    committed = Path(__file__).resolve().parents[2] / "models" / "dice_reader.onnx"
    session = ort.InferenceSession(str(committed))
    rng = np.random.default_rng(1)
    crops = torch.from_numpy(rng.integers(0, 256, (32, 3, 40, 40), dtype=np.uint8))
    folder = checkpoint_from_exported(tmp_path, committed, DiceReaderNet(16), crops)
    net = DiceReaderNet(16)
    checkpoint = load_checkpoint(folder)
    assert checkpoint is not None
    net.load_state_dict(checkpoint["model"])
    x = crops[:6].float() / 255.0
    with torch.no_grad():
        value_logits, colour_logits = net.eval()(x)
    values, colours = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    for logits, expected in ((value_logits.numpy(), values), (colour_logits.numpy(), colours)):
        assert (logits.argmax(axis=1) == expected.argmax(axis=1)).all()
        z = np.log(np.clip(expected, 1e-30, None))
        ratio = (z[:, 1:] - z[:, :1]) / (logits[:, 1:] - logits[:, :1])
        assert np.allclose(ratio, ratio.flat[0], rtol=1e-3)


def test_recolouring_turns_the_hue_of_no_piece_crops_only() -> None:
    from models.train_pieces import recolour_not_pieces

    generator = torch.Generator().manual_seed(0)
    x = 0.4 + 0.2 * torch.rand(400, 3, 8, 8)  # chroma small enough that no turn clips
    labels = torch.tensor([0, 3] * 200)
    out = recolour_not_pieces(x, labels, generator, share=0.5)
    faces = labels > 0
    assert torch.equal(out[faces], x[faces])  # a face's colours name it: never changed
    changed = (out - x).abs().flatten(1).amax(1) > 1e-4
    assert 0.3 < changed[~faces].float().mean() < 0.7
    # a turn about the grey axis: each pixel's brightness (channel sum) and colourfulness kept
    assert torch.allclose(out.sum(1), x.sum(1), atol=1e-5)
    chroma = (x - x.mean(1, keepdim=True)).norm(dim=1)
    assert torch.allclose((out - out.mean(1, keepdim=True)).norm(dim=1), chroma, atol=1e-5)
    grey = torch.full((2, 3, 4, 4), 0.5)
    assert torch.allclose(recolour_not_pieces(grey, torch.zeros(2), generator, share=1.0), grey)
    assert torch.equal(recolour_not_pieces(x, labels, generator, share=0.0), x)


def test_recolouring_by_channels_reorders_the_planes_of_no_piece_crops() -> None:
    from models.train_pieces import recolour_not_pieces

    generator = torch.Generator().manual_seed(1)
    x = torch.rand(200, 3, 8, 8)
    labels = torch.tensor([0, 5] * 100)
    out = recolour_not_pieces(x, labels, generator, share=1.0, mode="channels")
    assert torch.equal(out[labels > 0], x[labels > 0])
    for row in range(0, 200, 2):
        assert not torch.equal(out[row], x[row])
        assert sorted(p.sum().item() for p in out[row]) == pytest.approx(
            sorted(p.sum().item() for p in x[row])
        )
    with pytest.raises(ValueError, match="recolour mode"):
        recolour_not_pieces(x, labels, generator, share=1.0, mode="sepia")


def test_white_balance_cast_tints_a_share_of_the_crops_like_a_lamp() -> None:
    """`--white-balance`: crops cast in a light's colour (BGR), each crop one colour over all
    its pixels; a share of 0 leaves the batch alone."""
    from models.train_pieces import white_balance_cast

    generator = torch.Generator().manual_seed(2)
    x = torch.full((400, 3, 6, 6), 0.5)
    out = white_balance_cast(x, generator, share=0.5)
    changed = (out - x).abs().flatten(1).amax(1) > 1e-4
    assert 0.35 < changed.float().mean() < 0.65
    assert torch.equal(out[~changed], x[~changed])
    # one gain per channel of a crop, the same at every pixel
    gains = out[changed] / x[changed]
    assert torch.allclose(gains, gains[:, :, :1, :1].expand_as(gains), atol=1e-6)
    blue, red = gains[:, 0, 0, 0], gains[:, 2, 0, 0]
    # lights warmer than white (red over blue) and colder ones both drawn
    assert (red > blue * 1.3).any() and (blue > red * 1.05).any()
    # the camera corrects 30-100 % of the cast: no channel is driven dark
    assert gains.min() > 0.25
    assert torch.equal(white_balance_cast(x, generator, share=0.0), x)


def test_tone_curve_changes_a_shade_against_white_in_a_share_of_the_crops() -> None:
    """`--tone-curve`: a crop's dark red against the white beside it comes out lighter or
    darker relative to it (what brightness and contrast alone keep), white and black stay, and
    a share of 0 leaves the batch alone."""
    from models.train_pieces import tone_curve

    generator = torch.Generator().manual_seed(3)
    x = torch.zeros((400, 3, 2, 2))
    x[:, :, 0, 0] = 1.0  # white
    x[:, :, 0, 1] = 0.5  # a mid shade
    out = tone_curve(x, generator, share=0.5)
    changed = (out - x).abs().flatten(1).amax(1) > 1e-4
    assert 0.35 < changed.float().mean() < 0.65
    assert torch.equal(out[~changed], x[~changed])
    assert torch.allclose(out[:, :, 0, 0], x[:, :, 0, 0]) and torch.equal(
        out[:, :, 1, 1], x[:, :, 1, 1]
    )
    shade = out[changed][:, 0, 0, 1]
    # drawn lighter and darker, from about 0.5 ** 1.7 to 0.5 ** 0.6
    assert shade.min() < 0.4 and shade.max() > 0.6
    assert shade.min() >= 0.5**1.7 - 1e-6 and shade.max() <= 0.5**0.6 + 1e-6
    assert torch.equal(tone_curve(x, generator, share=0.0), x)


def test_piece_training_refuses_a_white_balance_share_out_of_range(tmp_path: Path) -> None:
    from models.train import main

    argv = ["pieces", "--smoke", "--runs", str(tmp_path), "--no-progress", "--threads", "1"]
    with pytest.raises(SystemExit, match="white-balance"):
        main([*argv, "--out", str(tmp_path / "p.onnx"), "--white-balance", "1.5"])
    with pytest.raises(SystemExit, match="tone-curve"):
        main([*argv, "--out", str(tmp_path / "p.onnx"), "--tone-curve", "-0.5"])


def test_detector_training_starts_from_the_committed_onnx_detector(tmp_path: Path) -> None:
    """`models.train detector --init models/detector.onnx`: the detector's top-down path runs
    its convolutions in another order than it declares them, so they are matched to the graph's
    by their weights (`exported_conv_order`); the checkpoint then computes what the file
    computes, on an input of another size than the sample's."""
    import onnxruntime as ort

    from models.architectures import CenterNetDetector, ExportDetector
    from models.export import checkpoint_from_exported, export_detector, load_exported_weights
    from models.runs import load_checkpoint

    committed = Path(__file__).resolve().parents[2] / "models" / "detector.onnx"
    rng = np.random.default_rng(2)
    sample = torch.from_numpy(rng.integers(0, 256, (8, 3, 128, 128), dtype=np.uint8))
    # in the modules' declared order the shapes do not even line up
    with pytest.raises(ValueError, match="convolution"):
        load_exported_weights(CenterNetDetector(16), committed, sample.float() / 255.0)
    folder = checkpoint_from_exported(
        tmp_path, committed, CenterNetDetector(16), sample, export_detector
    )
    checkpoint = load_checkpoint(folder)
    assert checkpoint is not None
    net = CenterNetDetector(16)
    net.load_state_dict(checkpoint["model"])
    x = rng.random((1, 3, 96, 160), dtype=np.float32)
    with torch.no_grad():
        got = [t.numpy() for t in ExportDetector(net.eval())(torch.from_numpy(x))]
    expected = ort.InferenceSession(str(committed)).run(None, {"image": x})
    for a, b in zip(got, expected, strict=True):
        assert a.shape == b.shape
        assert np.abs(a - b).max() < 1e-4
    # and through the command: a smoke run fine-tunes from the file
    metrics = _detector_smoke(tmp_path / "runs", "--init", str(committed))
    assert metrics["steps"] == 2
    assert (tmp_path / "runs" / "detector-smoke" / "onnx-init" / "checkpoint.pt").exists()
