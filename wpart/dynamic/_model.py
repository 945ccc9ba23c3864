"""Performance models (spec 001 §1.2-1.3) and equal-finish-time block sizing (§1.4-1.6)."""

from __future__ import annotations

__all__: list[str] = []
