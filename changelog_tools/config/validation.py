"""Checking a configuration file's values: the options' JSON Schema, and what it cannot say."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from changelog_tools.config.model import OPTIONS
from changelog_tools.errors import ConfigError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from changelog_tools.yamlload import Loaded


def config_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of the configuration file, generated from :data:`OPTIONS`."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://changelog-tools.invalid/schemas/config.schema.json",
        "title": "changelog-tools configuration",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            o.name: {**o.schema, "description": o.doc, "default": o.default} for o in OPTIONS
        },
    }


@cache
def validator() -> Validator:
    """The configuration schema's validator, compiled once for the process (and only when
    there is a configuration file to check)."""
    from changelog_tools.schemaerrors import compile_validator

    return compile_validator(config_schema())


def surely_valid(values: Any) -> bool:
    """Whether the configuration schema, read directly, surely accepts ``values``."""
    from changelog_tools import schemasubset

    check = schemasubset.compile_schema(config_schema())
    return check is not None and check(values) is True


def validate(values: Any, source: str, loaded: Loaded | None) -> None:
    """Refuse ``values`` unless every option is known and valid; the error names the first
    problem in the file, at its line when ``loaded`` (a YAML file) has the positions."""
    if not isinstance(values, dict):
        raise ConfigError(f"{source}: configuration must be a mapping of option names to values")
    if surely_valid(values):  # jsonschema (and its import) only to word a problem
        check_beyond_schema(values, source, loaded)
        return
    # Here, not at the top: a repository without a configuration file needs no jsonschema.
    from changelog_tools.schemaerrors import Kind, Problem, dotted, position, problems

    found = problems(validator(), values)
    if not found:
        check_beyond_schema(values, source, loaded)
        return

    def where(problem: Problem) -> tuple[int, int]:
        line, column = position(problem, loaded) if loaded is not None else (None, None)
        return line or 0, column or 0

    # An unknown option first (a misspelt name makes its value's problems moot), then file order.
    first = min(found, key=lambda p: (p.kind is not Kind.UNKNOWN_FIELD, where(p), dotted(p.path)))
    line, column = where(first)
    at = f"{source}:{line}:{column}" if line else source
    if first.kind is Kind.UNKNOWN_FIELD and len(first.path) == 1:
        hint = first.hint or "see docs/configuration.md"
        raise ConfigError(f"{at}: unknown option '{first.path[0]}'", hint=hint)
    # A field inside an option's value (a `lint-allow` item's) is named from that value.
    subject = first.path[:-1] if first.kind is Kind.UNKNOWN_FIELD else first.path
    raise ConfigError(f"{at}: option {dotted(subject)}: {first.message}", hint=first.hint)


def check_beyond_schema(values: dict[str, Any], source: str, loaded: Loaded | None) -> None:
    """What JSON Schema cannot say: NaN passes every bound (``.nan`` would switch a budget off),
    and a URL must be one that an HTTP client can open (a host, a port that exists). Refused
    here, at load with the option's name, instead of crashing the first command that uses it."""
    import math
    import urllib.parse

    def fail(option: str, message: str) -> None:
        line, column = (loaded.mark((option,)) or (0, 0)) if loaded is not None else (0, 0)
        at = f"{source}:{line}:{column}" if line else source
        raise ConfigError(f"{at}: option {option}: {message}")

    for option, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            fail(option, f"must be a finite number, not {value}")
    url = values.get("github-api-url")
    if isinstance(url, str):
        try:
            parts = urllib.parse.urlsplit(url)
            parts.port  # noqa: B018  (raises for a port past 65535 or not a number)
        except ValueError as exc:
            fail("github-api-url", f"{url!r} is not a URL ({exc})")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            fail("github-api-url", f"{url!r} is not an http(s) URL with a host")
