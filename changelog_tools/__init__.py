"""changelog-tools: keep an append-only performance changelog honest."""

from __future__ import annotations

__version__ = "0.1.0"
