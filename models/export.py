"""Export trained networks to ONNX files that `vision` loads with onnxruntime.

All exports use opset 17 with a dynamic batch (and, for the detector, dynamic height and width),
and check the file with `onnx.checker`. Run as
``python -m models.export dice|detector|corners RUN_FOLDER [--out PATH]`` to re-export a run's
last checkpoint.

Public names: `export_dice_reader`, `export_piece_reader`, `export_detector`,
`export_corner_refiner`, `load_exported_weights`, `exported_conv_order`.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


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


def checkpoint_from_exported(
    folder: Path,
    path: Path,
    net: Any,
    sample: Any,
    export: Callable[[Any, Path], Any] | None = None,
) -> Path:
    """``--init`` a committed model's ONNX file (its run folder is gone): its weights
    (`load_exported_weights`) as a checkpoint in ``folder/onnx-init`` to start from; `sample`:
    uint8 training crops (B, 3, S, S); `export`: how `net` is written (for networks whose
    convolutions the graph does not list in the modules' order, `exported_conv_order`)."""
    from models.runs import save_checkpoint

    order = exported_conv_order(net, export) if export is not None else None
    load_exported_weights(net, path, sample.float() / 255.0, order)
    out = folder / "onnx-init"
    out.mkdir(exist_ok=True)
    save_checkpoint(out, {"model": net.state_dict(), "from": str(path)})
    return out


def exported_conv_order(net: Any, export: Callable[[Any, Path], Any]) -> list[Any]:
    """`net`'s convolutions in the order its ONNX graph (written by `export(net, path)`) lists
    them. A network with a top-down path (the detector) runs its layers in another order than
    it declares them; each exported convolution is told apart by its weights, which are the
    module's own times a per-channel batch-norm scale (so their correlation is highest).

    Raises:
        ValueError: an exported convolution matches no module of its shape one to one.
    """
    import copy
    import tempfile

    import onnx
    import torch
    from onnx import numpy_helper

    probe = copy.deepcopy(net).cpu()
    convs = [m for m in probe.modules() if isinstance(m, torch.nn.Conv2d)]
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for conv in convs:  # distinct weights, however the net was initialised
            conv.weight.copy_(torch.randn(conv.weight.shape, generator=generator))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "probe.onnx"
        export(probe, out)
        model = onnx.load(str(out))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    order: list[Any] = []
    free = list(range(len(convs)))
    for node in (n for n in model.graph.node if n.op_type == "Conv"):
        w = weights[node.input[1]]
        best, best_k = -1.0, -1
        for k in free:
            own = convs[k].weight.detach().numpy()
            if own.shape != w.shape:
                continue
            # per output channel, the folded weights are a multiple of the module's
            a = own.reshape(len(own), -1)
            b = w.reshape(len(w), -1)
            norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
            cos = np.abs((a * b).sum(1)) / np.maximum(norms, 1e-12)
            if float(cos.min()) > best:
                best, best_k = float(cos.min()), k
        if best_k < 0 or best < 0.99:
            raise ValueError(f"exported convolution {node.name!r} matches none of the network's")
        free.remove(best_k)
        order.append(best_k)
    modules = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    return [modules[k] for k in order]


def load_exported_weights(
    net: Any, path: Path, sample: Any, conv_order: list[Any] | None = None
) -> None:
    """Fine-tune from a committed ONNX file when its training run is gone: load `path`'s
    weights into `net` (a stack of conv + batch-norm blocks and linear layers, as
    `PieceReaderNet`), so that `net` in eval mode computes what the file computes (before its
    calibrated softmax).

    The export folded each batch norm into its convolution, so the norm is rebuilt around the
    folded weights: its statistics are the folded convolution's outputs on `sample` (a float
    batch (B, 3, S, S) of training inputs), and its scale and shift undo them; training then
    starts from the file's function.

    Raises:
        ValueError: the file's layers do not match `net`'s.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    layers = list(net.modules())
    torch_convs = (
        list(conv_order)
        if conv_order is not None
        else [m for m in layers if isinstance(m, torch.nn.Conv2d)]
    )
    torch_linears = [m for m in layers if isinstance(m, torch.nn.Linear)]
    norms: dict[int, Any] = {
        id(a): b
        for a, b in zip(layers, layers[1:], strict=False)
        if isinstance(a, torch.nn.Conv2d) and isinstance(b, torch.nn.BatchNorm2d)
    }
    if len(convs) != len(torch_convs) or len(gemms) != len(torch_linears):
        raise ValueError(
            f"{path}: {len(convs)} convolutions, {len(gemms)} linear layers; the "
            f"network has {len(torch_convs)} and {len(torch_linears)}"
        )
    biases = []
    with torch.no_grad():
        for node, conv in zip(convs, torch_convs, strict=True):
            w = torch.from_numpy(weights[node.input[1]].copy())
            if w.shape != conv.weight.shape:
                raise ValueError(
                    f"{path}: a {tuple(w.shape)} convolution where the network "
                    f"has {tuple(conv.weight.shape)}"
                )
            conv.weight.copy_(w)
            b = torch.from_numpy(weights[node.input[2]].copy()) if len(node.input) > 2 else None
            biases.append(b)
            norm = norms.get(id(conv))
            if norm is not None:  # identity + the folded bias, for now
                norm.weight.fill_(1.0)
                norm.bias.copy_(b if b is not None else torch.zeros_like(norm.bias))
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
            elif b is not None and conv.bias is not None:
                conv.bias.copy_(b)
        for node, linear in zip(gemms, torch_linears, strict=True):
            w = torch.from_numpy(weights[node.input[1]].copy())
            trans_b = any(a.name == "transB" and a.i for a in node.attribute)
            linear.weight.copy_(w if trans_b else w.T)
            linear.bias.copy_(torch.from_numpy(weights[node.input[2]].copy()))
        # the folded convolutions' output statistics on the sample, layer by layer
        stats: dict[int, tuple[Any, Any]] = {}

        def record(module: Any, _: Any, output: Any) -> None:
            stats[id(module)] = (output.mean(dim=(0, 2, 3)), output.std(dim=(0, 2, 3)))

        hooks = [c.register_forward_hook(record) for c in torch_convs if id(c) in norms]
        net.eval()
        net(sample)
        for hook in hooks:
            hook.remove()
        for conv, b in zip(torch_convs, biases, strict=True):
            norm = norms.get(id(conv))
            if norm is None:
                continue
            mean, std = stats[id(conv)]
            std = std.clamp_min(1e-3)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(std**2 - norm.eps)
            norm.weight.copy_(std)
            norm.bias.copy_(mean + (b if b is not None else 0.0))


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


def export_corner_snapper(net: Any, out: Path) -> Path:
    """Write the corner snapper: input ``canvas`` (n, 3, 32, 32) → ``corner`` (n, 2), the true
    corner's x, y on the canvas over its side."""
    from vision.corner_snap import CANVAS

    out = _to_onnx(
        net,
        (1, 3, CANVAS, CANVAS),
        out,
        inputs=["canvas"],
        outputs=["corner"],
        dynamic_axes={"canvas": {0: "n"}, "corner": {0: "n"}},
    )
    _check(out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Re-export a run folder's checkpoint."""
    import torch

    from models.architectures import (
        CenterNetDetector,
        CornerRefinerNet,
        CornerSnapNet,
        DiceReaderNet,
    )

    parser = argparse.ArgumentParser(prog="python -m models.export")
    parser.add_argument("model", choices=["dice", "detector", "corners", "corner-snap"])
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
    elif args.model == "corner-snap":
        snapper = CornerSnapNet(width or 16)
        snapper.load_state_dict(checkpoint["model"])
        export_corner_snapper(snapper, args.out)
    else:
        detector = CenterNetDetector(width or 16)
        detector.load_state_dict(checkpoint["model"])
        export_detector(detector, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
