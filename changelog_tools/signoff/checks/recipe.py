"""The ``recipe`` check: a single-node vLLM/SGLang change links a merged upstream recipe."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from changelog_tools.config import Config
from changelog_tools.signoff.candidates import Candidate
from changelog_tools.signoff.facts import PullFacts
from changelog_tools.signoff.verdict import Check


def recipe(
    facts: PullFacts,
    config: Config,
    paths: Sequence[str],
    keys: Mapping[str, Any],
    valid: Sequence[Candidate],
) -> Check:
    """Every upstream pull request a counting sign-off links is merged."""
    from changelog_tools.numbers import parse_number

    single = [p for p in paths if p.startswith("benchmarks/single_node/")]
    engines = [
        k
        for k, v in keys.items()
        if isinstance(v, dict)
        and not v.get("multinode")
        and str(v.get("framework", "")) in ("vllm", "sglang")
    ]
    if not single and not engines:
        return Check("recipe", "n/a", "no single-node vLLM/SGLang change")
    links = _links(config, valid)
    if not links:
        return Check(
            "recipe",
            "fail",
            "single-node vLLM/SGLang change, but no sign-off links an upstream recipe PR or page",
        )
    evidence: list[dict[str, Any]] = []
    for m in links:
        if m.re.groups < 2:
            evidence.append({"link": m.group(0), "merged": None})
            continue
        repo, number = m.group(1), parse_number(m.group(2))
        if number is None:  # a configured pattern may match more than ASCII digits
            return Check("recipe", "fail", f"linked {m.group(0)!r} has no pull request number")
        upstream = facts.foreign_pull(repo, number)
        if upstream is None:
            return Check("recipe", "fail", f"linked {repo}#{number} does not exist")
        evidence.append({"link": m.group(0), "merged": upstream.merged})
        if not upstream.merged or upstream.merged_at is None:
            return Check(
                "recipe",
                "fail",
                f"linked {repo}#{number} is not merged ({upstream.state})",
                tuple(evidence),
            )
    return Check(
        "recipe",
        "attested",
        f"{len(evidence)} upstream link(s), PRs merged; that the arguments match is attested",
        tuple(evidence),
    )


def _links(config: Config, valid: Sequence[Candidate]) -> list[re.Match[str]]:
    """Recipe links in what the signers wrote, each once: the detail section and the notes
    under items (the template's own links to the recipe sites are no evidence of anything)."""
    patterns = [re.compile(p) for p in config.signoff_recipe_links]
    links: list[re.Match[str]] = []
    seen: set[str] = set()
    for c in valid:
        written = "\n".join([c.parsed.detail, *(n for i in c.parsed.items for n in i.notes)])
        for p in patterns:
            for m in p.finditer(written):
                if m.group(0) not in seen:
                    seen.add(m.group(0))
                    links.append(m)
    return links
