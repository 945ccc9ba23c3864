"""The balancer protocol of spec 001 §5.2 and the simple baselines."""

from __future__ import annotations

__all__: list[str] = []
