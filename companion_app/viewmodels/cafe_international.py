"""The cafe international panel (placeholder until the engine's view lands): the generic panel."""

from __future__ import annotations

from companion_app.viewmodels.panel import GenericPanel


class CafePanel(GenericPanel):
    """For now, the engine's public view as it is."""


__all__ = ["CafePanel"]
