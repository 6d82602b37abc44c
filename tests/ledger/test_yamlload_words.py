"""The loader's fixed words (null, booleans, inf, nan, YAML 1.1 booleans) are sets, not patterns.

They were anchored alternations compiled at import; a set membership test must say exactly
what ``re.match`` of the old pattern said, for every string. The old patterns are written out
here as the oracle, and hypothesis tries strings built from the characters they are made of.
"""

from __future__ import annotations

import math
import re

from hypothesis import given
from hypothesis import strategies as st

from changelog_tools import yamlload

OLD = {
    "_NULL": re.compile(r"(?:~|null|Null|NULL|)\Z"),
    "_TRUE": re.compile(r"(?:true|True|TRUE)\Z"),
    "_FALSE": re.compile(r"(?:false|False|FALSE)\Z"),
    "_INF": re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z"),
    "_NAN": re.compile(r"\.(?:nan|NaN|NAN)\Z"),
    "_Y11_BOOL": re.compile(
        r"(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)\Z"
    ),
}
WORDS = [
    "~", "null", "Null", "NULL", "", "true", "True", "TRUE", "false", "False", "FALSE",
    ".nan", ".NaN", ".NAN", "y", "Y", "yes", "Yes", "YES",
    "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
    *(sign + "." + word for sign in ("", "-", "+") for word in ("inf", "Inf", "INF")),
]  # fmt: skip
ALPHABET = "~nulNULtrueTRUEfalsFALSEinfINFaNyYesoOnf.+-\n 0"

texts = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet=ALPHABET, max_size=7),
    # A word with something before or after it: a match must cover the whole string.
    st.tuples(st.text(alphabet=ALPHABET, max_size=2), st.sampled_from(WORDS),
              st.text(alphabet=ALPHABET, max_size=2)).map("".join),
)  # fmt: skip


@given(texts)
def test_each_word_set_answers_as_its_old_pattern_did(text: str) -> None:
    for name, pattern in OLD.items():
        assert (text in getattr(yamlload, name)) == bool(pattern.match(text)), (name, text)


def test_every_word_of_the_old_patterns_is_in_its_set() -> None:
    for name, pattern in OLD.items():
        words = {w for w in WORDS if pattern.match(w)}
        assert words == set(getattr(yamlload, name)) & set(WORDS), name
        assert set(getattr(yamlload, name)) <= set(WORDS), name


@given(texts)
def test_plain_scalars_resolve_as_before(text: str) -> None:
    value = yamlload.resolve_plain(text)
    if not text:
        assert value == ""  # the empty plain scalar is "no value", judged by the schema rules
    elif OLD["_NULL"].match(text):
        assert value is None
    elif OLD["_TRUE"].match(text):
        assert value is True
    elif OLD["_FALSE"].match(text):
        assert value is False
    elif OLD["_INF"].match(text):
        assert value == (-math.inf if text.startswith("-") else math.inf)
    elif OLD["_NAN"].match(text):
        assert isinstance(value, float) and math.isnan(value)
    elif OLD["_Y11_BOOL"].match(text):
        assert value == text  # YAML 1.2 reads the 1.1-only booleans as strings
        assert yamlload.yaml11_difference(text, value) == "a boolean"
