"""pr-link classification: canonical links, placeholders, and the near-misses people type.

Used by `check` (which links an appended entry may carry) and by `canonicalize`/`resolve`
(which links may be replaced). The repository always comes from configuration, so the link
that is written and the link that is validated can never disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from changelog_tools import diagnostics as dx
from changelog_tools.numbers import is_number, parse_number


class LinkKind(StrEnum):
    CANONICAL = "canonical"  # https://github.com/OWNER/NAME/pull/N, exactly
    PLACEHOLDER = "placeholder"  # one of the configured placeholder spellings
    NEAR_MISS = "near-miss"  # almost a placeholder or almost canonical: a typo to fix
    INVALID = "invalid"  # not a pull-request link at all


@dataclass(frozen=True, slots=True)
class LinkClass:
    kind: LinkKind
    pr: int | None = None  # the PR number for canonical links and fixable near-misses
    reason: str = ""


_PULL_URL = re.compile(
    r"^(?P<scheme>https?)://(?P<host>(?:www\.)?github\.com)/(?P<repo>[^/\s]+/[^/\s]+)"
    # No end anchor: what follows the number is sliced off in code. `(?P<rest>.*)$` was
    # quadratic on a long number followed by a newline (the rest backtracked into the number).
    r"/(?P<kind>pull|pulls|issues)/?(?P<num>[^/?#\s]*)",
    re.IGNORECASE,
)
# Words people write while a PR has no number yet.
_PLACEHOLDER_WORDS = re.compile(
    r"^(?:x+|y+|n+|tbd|tba|todo|placeholder|pending|none|null|pr|pr-?link|\?+|#+|-+|n/a)$",
    re.IGNORECASE,
)


def canonical_link(repository: str, pr: int) -> str:
    return f"https://github.com/{repository}/pull/{pr}"


def placeholder_links(repository: str, placeholders: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.replace("{repo}", repository) for p in placeholders)


def classify(link: str, *, repository: str, placeholders: tuple[str, ...]) -> LinkClass:
    """Classify a pr-link value against ``repository`` and the placeholder spellings."""
    if link in placeholder_links(repository, placeholders):
        return LinkClass(LinkKind.PLACEHOLDER)
    stripped = link.strip()
    if not stripped:
        return LinkClass(LinkKind.NEAR_MISS, reason="the link is empty")
    if _PLACEHOLDER_WORDS.match(stripped):
        return LinkClass(LinkKind.NEAR_MISS, reason=f"{link!r} is not an accepted placeholder")
    match = _PULL_URL.match(stripped)
    if match is None:
        return LinkClass(LinkKind.INVALID, reason=f"{link!r} is not a pull-request link")
    number = match["num"]
    problems: list[str] = []
    if stripped != link:
        problems.append("it has surrounding spaces")
    if match["scheme"] != "https":
        problems.append("it uses http://, not https://")
    if match["host"] != "github.com":
        problems.append(f"the host is {match['host']}, not github.com")
    if match["repo"] != repository:
        if match["repo"].lower() == repository.lower():
            problems.append(f"the repository is spelled {match['repo']}, not {repository}")
        else:
            problems.append(f"it points at another repository ({match['repo']})")
    if match["kind"] != "pull":
        problems.append(f"it uses /{match['kind']}/, not /pull/")
    if not number:
        problems.append("it has no pull-request number")
    elif not is_number(number):
        if _PLACEHOLDER_WORDS.match(number):
            problems.append(f"{number!r} is not an accepted placeholder")
        else:
            problems.append(
                f"{number!r} is not a pull-request number (ASCII digits 0-9, at most 19)"
            )
    rest = stripped[match.end() :]
    if rest:
        problems.append(f"it has extra text after the number ({rest!r})")
    pr = parse_number(number)
    if not problems:
        return LinkClass(LinkKind.CANONICAL, pr=pr)
    foreign = match["repo"].lower() != repository.lower()
    return LinkClass(
        LinkKind.NEAR_MISS,
        # A number in another repository's URL is not this repository's PR: never reuse it.
        pr=None if foreign else pr,
        reason="; ".join(problems),
    )


@dataclass(frozen=True, slots=True)
class LinkProblem:
    code: str
    message: str
    hint: str


def accepted_spellings(
    *, repository: str, placeholders: tuple[str, ...], pr: int | None, allow_placeholder: bool
) -> str:
    options = []
    if pr is not None:
        options.append(f"`{canonical_link(repository, pr)}`")
    else:
        options.append(f"`{canonical_link(repository, 0).removesuffix('0')}<number>`")
    if allow_placeholder:
        options += [f"`{p}`" for p in placeholder_links(repository, placeholders)]
    return "write " + " or ".join(options)


def appended_link_problem(
    link: object,
    *,
    mode: str,
    pr: int | None,
    repository: str,
    placeholders: tuple[str, ...],
) -> LinkProblem | None:
    """What is wrong with the pr-link of an entry a change appends, or None.

    ``mode`` is ``"pr"`` (``pr`` is this pull request's number: its own link or a placeholder),
    ``"main"`` (canonical links only) or ``"local"`` (canonical or placeholder).
    """
    if not isinstance(link, str):
        return None  # the schema reports the wrong type
    allow_placeholder = mode != "main"
    spell = accepted_spellings(
        repository=repository, placeholders=placeholders, pr=pr, allow_placeholder=allow_placeholder
    )
    found = classify(link, repository=repository, placeholders=placeholders)
    if found.kind is LinkKind.PLACEHOLDER:
        if allow_placeholder:
            return None
        return LinkProblem(
            dx.PLACEHOLDER_ON_MAIN,
            f"pr-link is still the placeholder {link!r} on the main branch",
            "run `changelog-tools canonicalize --pr N` before merging; " + spell,
        )
    if found.kind is LinkKind.CANONICAL:
        # Main mode knows the PR too when the commit says which one lands (a merge-queue ref,
        # a squash subject ending in `(#N)`).
        if mode in ("pr", "main") and pr is not None and found.pr != pr:
            return LinkProblem(
                dx.WRONG_PR,
                f"pr-link points at pull request #{found.pr}, but this is pull request #{pr}",
                spell,
            )
        return None
    if found.kind is LinkKind.NEAR_MISS:
        if mode == "pr" and found.pr is not None and pr is not None and found.pr != pr:
            # `fix` will not guess whether the number or --pr is the mistake (docs/fix.md), so
            # naming it here would send the author to a command that reports nothing to repair.
            return LinkProblem(
                dx.NEAR_MISS_LINK,
                f"pr-link {link!r} is not accepted: {found.reason}",
                f"it names pull request #{found.pr}, not #{pr}, so `changelog-tools fix` "
                f"leaves it: {spell} by hand",
            )
        return LinkProblem(
            dx.NEAR_MISS_LINK,
            f"pr-link {link!r} is not accepted: {found.reason}",
            spell + "; `changelog-tools fix` does it",
        )
    return LinkProblem(dx.INVALID_LINK, f"pr-link {link!r}: {found.reason}", spell)
