"""One configuration option, and the JSON Schema pieces the option tables share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# A list of non-empty strings: the shape of most list options.
STR_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}}


@dataclass(frozen=True, slots=True)
class Option:
    """One configuration option: name, default, JSON Schema and documentation."""

    name: str
    default: Any
    schema: Mapping[str, Any]
    doc: str

    @property
    def attr(self) -> str:
        return self.name.replace("-", "_")
