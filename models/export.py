"""Export trained networks to ONNX files that `vision` loads with onnxruntime.

All exports use opset 17 with a dynamic batch (and, for the detector, dynamic height and width),
and check the file with `onnx.checker`. Run as
``python -m models.export dice|detector|corners RUN_FOLDER [--out PATH]`` to re-export a run's
last checkpoint.

Public names: `export_dice_reader`, `export_piece_reader`, `export_detector`,
`export_corner_refiner`.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path
from typing import Any


def _check(path: Path) -> None:
    import onnx

    onnx.checker.check_model(onnx.load(str(path)))


def _to_onnx(
    model: Any,
    input_shape: tuple[int, ...],
    out: Path,
    *,
    inputs: list[str],
    outputs: list[str],
    dynamic_axes: dict[str, dict[int, str]],
) -> Path:
    """Write `model` (in eval mode) to `out` (its folder created), opset 17, tracer warnings off."""
    import torch

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model.eval(),
            (torch.zeros(*input_shape),),
            str(out),
            input_names=inputs,
            output_names=outputs,
            dynamic_axes=dynamic_axes,
            opset_version=17,
            dynamo=False,
        )
    return out


def export_dice_reader(
    net: Any, out: Path, *, size: int, value_temperature: float, colour_temperature: float
) -> Path:
    """Write the die reader with calibrated softmax outputs ``value`` (n, 7), ``colour`` (n, 4)."""
    from models.architectures import ExportDiceReader

    out = _to_onnx(
        ExportDiceReader(net.eval(), value_temperature, colour_temperature),
        (1, 3, size, size),
        out,
        inputs=["crops"],
        outputs=["value", "colour"],
        dynamic_axes={"crops": {0: "n"}},
    )
    _check(out)
    return out


def export_piece_reader(
    net: Any, out: Path, *, size: int, temperature: float, classes: list[tuple[str, ...]]
) -> Path:
    """Write the piece reader: ``crops`` (n, 3, size, size) → ``face`` (n, 1 + len(classes))
    calibrated probabilities; the classes (identities sharing each face) are stored in the
    file's metadata as JSON under ``face_classes``."""
    import onnx

    from models.architectures import ExportPieceReader

    out = _to_onnx(
        ExportPieceReader(net.eval(), temperature),
        (1, 3, size, size),
        out,
        inputs=["crops"],
        outputs=["face"],
        dynamic_axes={"crops": {0: "n"}},
    )
    model = onnx.load(str(out))
    entry = model.metadata_props.add()
    entry.key, entry.value = "face_classes", json.dumps([list(c) for c in classes])
    onnx.save(model, str(out))
    _check(out)
    return out


def export_top_face(net: Any, out: Path, *, size: int) -> Path:
    """Write the top-face locator: input ``crops`` (n, 3, size, size) → ``mask`` (n, 1, m, m)
    probabilities, m = size / the net's mask stride (`models.architectures.ExportTopFace`)."""
    from models.architectures import ExportTopFace

    out = _to_onnx(
        ExportTopFace(net.eval()),
        (1, 3, size, size),
        out,
        inputs=["crops"],
        outputs=["mask"],
        dynamic_axes={"crops": {0: "n"}, "mask": {0: "n"}},
    )
    _check(out)
    return out


def export_detector(net: Any, out: Path, *, metadata: dict[str, Any] | None = None) -> Path:
    """Write the detector: input ``image`` (1, 3, H, W) → ``heatmap``, ``size``, ``offset``,
    ``corners`` at stride 8 (see `models.architectures.ExportDetector`)."""
    import onnx

    from models.architectures import ExportDetector

    out = _to_onnx(
        ExportDetector(net.eval()),
        (1, 3, 256, 256),
        out,
        inputs=["image"],
        outputs=["heatmap", "size", "offset", "corners"],
        dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}},
    )
    if metadata:
        proto = onnx.load(str(out))
        for key, value in metadata.items():
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, json.dumps(value)
        onnx.save(proto, str(out))
    _check(out)
    return out


def export_corner_refiner(net: Any, out: Path) -> Path:
    """Write the corner refiner: input ``canvas`` (n, 3, 96, 96) → ``corners`` (n, 8), the
    corners' x, y on the canvas over its side."""
    from vision.corner_refiner import CANVAS

    out = _to_onnx(
        net,
        (1, 3, CANVAS, CANVAS),
        out,
        inputs=["canvas"],
        outputs=["corners"],
        dynamic_axes={"canvas": {0: "n"}, "corners": {0: "n"}},
    )
    _check(out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Re-export a run folder's checkpoint."""
    import torch

    from models.architectures import CenterNetDetector, CornerRefinerNet, DiceReaderNet

    parser = argparse.ArgumentParser(prog="python -m models.export")
    parser.add_argument("model", choices=["dice", "detector", "corners"])
    parser.add_argument("run", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    checkpoint = torch.load(args.run / "checkpoint.pt", map_location="cpu", weights_only=False)
    run_args = json.loads((args.run / "args.json").read_text())
    width = None if run_args.get("width") in (None, "None") else int(run_args["width"])
    if args.model == "dice":
        metrics = json.loads((args.run / "metrics.json").read_text())
        reader = DiceReaderNet(width or 16)
        reader.load_state_dict(checkpoint["model"])
        export_dice_reader(
            reader,
            args.out,
            size=int(run_args.get("size", 40)),
            value_temperature=metrics["value_temperature"],
            colour_temperature=metrics["colour_temperature"],
        )
    elif args.model == "corners":
        refiner = CornerRefinerNet(width or 16)
        refiner.load_state_dict(checkpoint["model"])
        export_corner_refiner(refiner, args.out)
    else:
        detector = CenterNetDetector(width or 16)
        detector.load_state_dict(checkpoint["model"])
        export_detector(detector, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
