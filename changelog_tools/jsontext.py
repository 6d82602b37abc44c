"""The JSON every command prints: one versioned shape, written one way.

A module of its own, below :mod:`~changelog_tools.diagnostics`, so that a command that prints
JSON but no diagnostics (`reuse-gate`'s step outputs) does not import the diagnostic catalogue.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

# Version of every JSON document the tool prints (reports, outcomes, step outputs, errors).
# Bump it when a key is removed or changes meaning; adding a key does not bump it.
SCHEMA_VERSION = 1


def json_text(doc: Mapping[str, Any]) -> str:
    """``doc`` as the tool prints JSON: ``schema-version`` first, indented, one trailing newline."""
    full = {"schema-version": SCHEMA_VERSION, **doc}
    try:
        return json.dumps(full, indent=2, sort_keys=False, allow_nan=False) + "\n"
    except ValueError:  # a YAML `.nan`/`.inf` echoed back: NaN is not JSON, write it as text
        return json.dumps(_finite(full), indent=2, sort_keys=False) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
