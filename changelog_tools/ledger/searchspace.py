"""The search-space rows of a master config's scenario, and the concurrencies each runs: what an
append-only change may add to (rows and concurrencies) but never take away."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SEARCH_SPACE_FIELD = "search-space"
# Fields of a search-space row that say which concurrencies run, not which recipe.
CONCURRENCY_FIELDS = ("conc", "conc-list", "conc-start", "conc-end")


def _freeze(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, default=str)


def concurrency_points(row: Mapping[str, Any]) -> frozenset[int] | None:
    """The concurrencies a search-space row runs, or None when its fields are not understood.

    ``conc-list`` is taken as written; ``conc-start``..``conc-end`` doubles from the start and
    always includes the end (the sweep generator's expansion).
    """
    values = row.get("conc-list", row.get("conc"))
    if isinstance(values, int) and not isinstance(values, bool):
        return frozenset([values])
    if isinstance(values, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        return frozenset(values)
    start, end = row.get("conc-start"), row.get("conc-end")
    if isinstance(start, int) and isinstance(end, int) and 0 < start <= end:
        points = set()
        conc = start
        while conc < end:
            points.add(conc)
            conc *= 2
        points.add(end)
        return frozenset(points)
    return None


@dataclass(frozen=True, slots=True)
class Row:
    group: int
    index: int
    identity: str
    points: frozenset[int] | None
    concurrency: str
    text: str


def search_space_rows(scenario: Any) -> list[Row]:
    """Every search-space row of a scenario (a list of groups, each with `search-space` rows).

    A row's identity is its group's fields (isl, osl, duration, ...) plus its own fields except
    the concurrency ones, so a row that only gains concurrencies keeps its identity.
    """
    out: list[Row] = []
    if not isinstance(scenario, list):
        return out
    for gi, group in enumerate(scenario):
        if not isinstance(group, dict):
            continue
        context = {k: v for k, v in group.items() if k != SEARCH_SPACE_FIELD}
        rows = group.get(SEARCH_SPACE_FIELD)
        if not isinstance(rows, list):
            continue
        for ri, row in enumerate(rows):
            if not isinstance(row, dict):
                continue
            recipe = {k: v for k, v in row.items() if k not in CONCURRENCY_FIELDS}
            conc = {k: v for k, v in row.items() if k in CONCURRENCY_FIELDS}
            text = ", ".join(f"{k}: {v}" for k, v in row.items())
            out.append(
                Row(
                    gi,
                    ri,
                    _freeze([context, recipe]),
                    concurrency_points(row),
                    _freeze(conc),
                    "{ " + text + " }",
                )
            )
    return out


def kept(old: Row, candidates: Sequence[Row]) -> bool:
    """Whether row ``old`` is still among ``candidates``: the same recipe, running at least
    the concurrencies it ran."""
    for new in candidates:
        if new.identity != old.identity:
            continue
        if old.points is not None and new.points is not None:
            if old.points <= new.points:
                return True
        elif old.concurrency == new.concurrency:
            return True
    return False
