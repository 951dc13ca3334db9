"""Our networks (PyTorch; imported only for training and export).

- `DiceReaderNet`: a small CNN on a square die crop → value logits (7: not-a-die, 1–6) and colour
  logits (4: none, r, g, b).
- `CenterNetDetector`: a small CenterNet-style detector with stride-8 heads: a centre heatmap per
  kind (card, tile, die), box size (w, h in stride units, log-space), centre offset, and 4 corner
  offsets (8 values, relative to the centre, in stride units) for cards and tiles.

- `PieceReaderNet`: a small CNN on a square card or tile crop → which companion face it shows.
- `TopFaceNet`: a small encoder–decoder on a square die crop → where its top face is (a mask).
- `CornerRefinerNet`: a small CNN on a piece warped onto a canonical canvas (its rough quad an
  upright rectangle of its aspect in the middle) → where each of the 4 true corners lies.

`ExportDiceReader` and `ExportDetector` wrap them for ONNX: the reader outputs calibrated
probabilities (softmax of logits divided by a fitted temperature), the detector sigmoid heatmaps
with a 3×3 max-pool "peak" map so that decoding needs no NMS on the heatmap.

Public names: `DiceReaderNet`, `CenterNetDetector`, `CornerRefinerNet`, `ExportDiceReader`,
`ExportDetector`, `DETECTOR_KINDS`, `count_parameters`.
"""

from __future__ import annotations

import torch
from torch import nn

DETECTOR_KINDS: tuple[str, str, str] = ("card", "tile", "die")


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def _dw(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Depthwise-separable 3×3 block (cheap on CPU)."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class DiceReaderNet(nn.Module):
    """Die crop (B, 3, S, S) in [0, 1] BGR → (value logits (B, 7), colour logits (B, 4))."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _conv(3, w),
            nn.MaxPool2d(2),
            _conv(w, 2 * w),
            _conv(2 * w, 2 * w),
            nn.MaxPool2d(2),
            _conv(2 * w, 4 * w),
            _conv(4 * w, 4 * w),
            nn.MaxPool2d(2),
            _conv(4 * w, 4 * w),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.1),
        )
        self.value = nn.Linear(4 * w, 7)
        self.colour = nn.Linear(4 * w, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x)
        return self.value(f), self.colour(f)


class ExportDiceReader(nn.Module):
    """`DiceReaderNet` with calibrated softmax outputs (temperature-scaled) for ONNX."""

    def __init__(self, net: DiceReaderNet, value_temperature: float, colour_temperature: float):
        super().__init__()
        self.net = net
        self.value_temperature = float(value_temperature)
        self.colour_temperature = float(colour_temperature)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        value, colour = self.net(x)
        return (
            torch.softmax(value / self.value_temperature, dim=1),
            torch.softmax(colour / self.colour_temperature, dim=1),
        )


class PieceReaderNet(nn.Module):
    """Card or tile crop (B, 3, S, S) in [0, 1] BGR → face logits (B, classes): class 0 "no
    companion face", then one per distinct companion face (`models.data.face_classes`)."""

    def __init__(self, classes: int, width: int = 24) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _conv(3, w, stride=2),
            _conv(w, 2 * w),
            nn.MaxPool2d(2),
            _conv(2 * w, 2 * w),
            _conv(2 * w, 4 * w),
            nn.MaxPool2d(2),
            _conv(4 * w, 4 * w),
            _conv(4 * w, 6 * w),
            nn.MaxPool2d(2),
            _conv(6 * w, 8 * w),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.15),
        )
        self.face = nn.Linear(8 * w, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.face(self.features(x))


class ExportPieceReader(nn.Module):
    """`PieceReaderNet` with a calibrated softmax output (temperature-scaled) for ONNX."""

    def __init__(self, net: PieceReaderNet, temperature: float):
        super().__init__()
        self.net = net
        self.temperature = float(temperature)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.net(x) / self.temperature, dim=1)


class CenterNetDetector(nn.Module):
    """Image (B, 3, H, W) in [0, 1] BGR, H and W multiples of 32 → stride-8 head maps.

    Outputs (each (B, C, H/8, W/8)): heatmap logits (3), size (2: log w, log h in stride units),
    offset (2: sub-cell centre offset), corners (8: corner − centre, in stride units).
    """

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.stem = nn.Sequential(_conv(3, w, 2), _dw(w, w))  # /2
        self.s4 = nn.Sequential(_dw(w, 2 * w, 2), _dw(2 * w, 2 * w))  # /4
        self.s8 = nn.Sequential(_dw(2 * w, 4 * w, 2), _dw(4 * w, 4 * w), _dw(4 * w, 4 * w))  # /8
        self.s16 = nn.Sequential(_dw(4 * w, 6 * w, 2), _dw(6 * w, 6 * w), _dw(6 * w, 6 * w))
        self.s32 = nn.Sequential(_dw(6 * w, 8 * w, 2), _dw(8 * w, 8 * w), _dw(8 * w, 8 * w))
        self.lat16 = nn.Conv2d(8 * w, 6 * w, 1)
        self.lat8 = nn.Conv2d(6 * w, 4 * w, 1)
        self.fuse16 = _dw(6 * w, 6 * w)
        self.fuse8 = _dw(4 * w, 4 * w)
        head = 4 * w
        self.head = _dw(head, head)  # shared trunk; the outputs are 1×1 convolutions
        self.heatmap = nn.Conv2d(head, len(DETECTOR_KINDS), 1)
        self.size = nn.Conv2d(head, 2, 1)
        self.offset = nn.Conv2d(head, 2, 1)
        self.corners = nn.Conv2d(head, 8, 1)
        with torch.no_grad():
            self.heatmap.bias.fill_(-2.19)  # type: ignore[union-attr]  # focal-loss prior p = 0.1

    def forward(
        self, x: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        x = self.stem(x)
        x = self.s4(x)
        f8 = self.s8(x)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        up = nn.functional.interpolate(self.lat16(f32), scale_factor=2.0, mode="nearest")
        p16 = self.fuse16(f16 + up)
        up = nn.functional.interpolate(self.lat8(p16), scale_factor=2.0, mode="nearest")
        p8 = self.head(self.fuse8(f8 + up))
        return self.heatmap(p8), self.size(p8), self.offset(p8), self.corners(p8)


class ExportDetector(nn.Module):
    """`CenterNetDetector` for ONNX: sigmoid heatmap, its 3×3 peaks, and the regression maps."""

    def __init__(self, net: CenterNetDetector) -> None:
        super().__init__()
        self.net = net

    def forward(
        self, x: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        heat, size, offset, corners = self.net(x)
        heat = torch.sigmoid(heat)
        peaks = nn.functional.max_pool2d(heat, 3, 1, 1)
        heat = heat * (peaks == heat).to(heat.dtype)
        return heat, size, offset, corners


class CornerRefinerNet(nn.Module):
    """Canvas (B, 3, 96, 96) in [0, 1] BGR → corner positions (B, 8): x, y of 4 corners over 96.

    A small encoder–decoder: one heatmap per corner at stride 4 (24 × 24), its soft-argmax
    (the heatmap's softmax-weighted mean position) is the corner. Corner k of the output is the
    true corner nearest the canvas rectangle's corner k (`vision.corner_refiner.canvas_rect`).
    """

    xs: torch.Tensor
    ys: torch.Tensor

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.stem = _conv(3, w, 2)  # 48
        self.s4 = nn.Sequential(_dw(w, 2 * w, 2), _dw(2 * w, 2 * w))  # 24
        self.s8 = nn.Sequential(_dw(2 * w, 4 * w, 2), _dw(4 * w, 4 * w), _dw(4 * w, 4 * w))  # 12
        self.s16 = nn.Sequential(_dw(4 * w, 6 * w, 2), _dw(6 * w, 6 * w))  # 6
        self.lat8 = nn.Conv2d(6 * w, 4 * w, 1)
        self.fuse8 = _dw(4 * w, 4 * w)
        self.lat4 = nn.Conv2d(4 * w, 2 * w, 1)
        self.fuse4 = _dw(2 * w, 2 * w)
        self.heat = nn.Conv2d(2 * w, 4, 3, 1, 1)
        cells = (torch.arange(24, dtype=torch.float32) + 0.5) * 4.0
        self.register_buffer("xs", cells.repeat(24), persistent=False)  # x of each cell, row-major
        self.register_buffer("ys", cells.repeat_interleave(24), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        up = nn.functional.interpolate(self.lat8(f16), scale_factor=2.0, mode="nearest")
        p8 = self.fuse8(f8 + up)
        up = nn.functional.interpolate(self.lat4(p8), scale_factor=2.0, mode="nearest")
        p4 = self.fuse4(f4 + up)
        weights = torch.softmax(self.heat(p4).flatten(2), dim=2)  # (B, 4, 576)
        xy = torch.stack([(weights * self.xs).sum(2), (weights * self.ys).sum(2)], dim=2)
        return (xy / 96.0).flatten(1)


class CornerSnapNet(nn.Module):
    """Corner canvas (B, 3, 32, 32) in [0, 1] BGR → the true corner's position (B, 2): x, y over 32.

    `vision.corner_snap` centres the canvas on a corner estimate with the piece's sides along +x
    and +y. An encoder to stride 8 (4 × 4: each cell sees the whole canvas) and a top-down path
    back to stride 2; one heatmap on the 16 × 16 grid and its soft-argmax (the softmax-weighted
    mean cell position) is the corner.
    """

    xs: torch.Tensor
    ys: torch.Tensor

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.stem = _conv(3, w)  # 32
        self.s2 = nn.Sequential(_dw(w, 2 * w, 2), _dw(2 * w, 2 * w))  # 16
        self.s4 = nn.Sequential(_dw(2 * w, 4 * w, 2), _dw(4 * w, 4 * w))  # 8
        self.s8 = nn.Sequential(_dw(4 * w, 6 * w, 2), _dw(6 * w, 6 * w))  # 4
        self.lat4 = nn.Conv2d(6 * w, 4 * w, 1)
        self.fuse4 = _dw(4 * w, 4 * w)
        self.lat2 = nn.Conv2d(4 * w, 2 * w, 1)
        self.fuse2 = _dw(2 * w, 2 * w)
        self.heat = nn.Conv2d(2 * w, 1, 3, 1, 1)
        cells = (torch.arange(16, dtype=torch.float32) + 0.5) * 2.0
        self.register_buffer("xs", cells.repeat(16), persistent=False)
        self.register_buffer("ys", cells.repeat_interleave(16), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f2 = self.s2(self.stem(x))
        f4 = self.s4(f2)
        f8 = self.s8(f4)
        up = nn.functional.interpolate(self.lat4(f8), scale_factor=2.0, mode="nearest")
        p4 = self.fuse4(f4 + up)
        up = nn.functional.interpolate(self.lat2(p4), scale_factor=2.0, mode="nearest")
        p2 = self.fuse2(f2 + up)
        weights = torch.softmax(self.heat(p2).flatten(1), dim=1)  # (B, 256)
        xy = torch.stack([(weights * self.xs).sum(1), (weights * self.ys).sum(1)], dim=1)
        return xy / 32.0


class TopFaceNet(nn.Module):
    """Die crop (B, 3, 48, 48) in [0, 1] BGR → top-face mask logits (B, 1, 48/s, 48/s).

    An encoder down to 6 × 6 (each cell sees the whole die: which face is on top is a question
    about the whole cube) and a decoder back to stride `mask_stride` (2, or 1: full resolution,
    with a full-resolution skip) with skip connections.
    """

    def __init__(self, width: int = 16, mask_stride: int = 2) -> None:
        super().__init__()
        if mask_stride not in (1, 2):
            raise ValueError(f"mask_stride must be 1 or 2, not {mask_stride}")
        w = width
        self.mask_stride = mask_stride
        self.stem = _conv(3, w, 2)  # 24
        self.s4 = nn.Sequential(_dw(w, 2 * w, 2), _dw(2 * w, 2 * w))  # 12
        self.s8 = nn.Sequential(_dw(2 * w, 4 * w, 2), _dw(4 * w, 4 * w), _dw(4 * w, 4 * w))  # 6
        self.lat4 = nn.Conv2d(4 * w, 2 * w, 1)
        self.fuse4 = _dw(2 * w, 2 * w)
        self.lat2 = nn.Conv2d(2 * w, w, 1)
        self.fuse2 = _dw(w, w)
        if mask_stride == 1:
            half = max(4, w // 2)
            self.full = _conv(3, half)  # 48: edges at the crop's own resolution
            self.lat1 = nn.Conv2d(w, half, 1)
            self.fuse1 = _dw(half, half)
            self.mask = nn.Conv2d(half, 1, 3, 1, 1)
        else:
            self.mask = nn.Conv2d(w, 1, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f2 = self.stem(x)
        f4 = self.s4(f2)
        f8 = self.s8(f4)
        up = nn.functional.interpolate(self.lat4(f8), scale_factor=2.0, mode="nearest")
        p4 = self.fuse4(f4 + up)
        up = nn.functional.interpolate(self.lat2(p4), scale_factor=2.0, mode="nearest")
        p2 = self.fuse2(f2 + up)
        if self.mask_stride == 2:
            return self.mask(p2)
        up = nn.functional.interpolate(self.lat1(p2), scale_factor=2.0, mode="bilinear")
        return self.mask(self.fuse1(self.full(x) + up))


class ExportTopFace(nn.Module):
    """`TopFaceNet` for ONNX: the top-face probability map (B, 1, 48/s, 48/s)."""

    def __init__(self, net: TopFaceNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.net(x))


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


__all__ = [
    "DETECTOR_KINDS",
    "CenterNetDetector",
    "CornerRefinerNet",
    "CornerSnapNet",
    "DiceReaderNet",
    "ExportTopFace",
    "TopFaceNet",
    "ExportDetector",
    "ExportDiceReader",
    "count_parameters",
]
