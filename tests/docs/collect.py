"""Collect the command examples the documentation shows, and compare shown output with real output.

Sources: the fenced blocks of README.md, CONTRIBUTING.md and docs/*.md (rendered by cmark-gfm,
the parser GitHub shows the docs with and the sign-off bot already uses, then read as HTML5), and
the examples in every command's ``--help`` (the ``Examples:`` section, and the ``e.g.`` line of
the top-level help).

The convention (CONTRIBUTING.md, "Documented examples"):

- a ```` ```console ```` block holds commands after ``$ `` prompts, each followed by the output it
  shows; the output is compared with what the command prints (stdout and stderr, interleaved);
- a ```` ```sh ```` block holds commands only; each runs and its exit status is checked;
- every other fence (``text``, ``yaml``, ``json``, ``python`` …) is not a command and is not run;
  every fence names its language, so nothing is left to guess;
- a ```` ```json ```` block annotated ``output-of=COMMAND`` shows the JSON a command prints:
  the command runs, and every key the block shows must be in its output, at the same place;
- ``<!-- example: KEY=VALUE ... -->`` just before a fence says how to run it (the world, a
  named setup, the directory, the exit statuses); ``<!-- example: prose REASON -->`` says it is
  shown and not run, and why.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import cmarkgfm
import html5lib
from cmarkgfm.cmark import Options

ROOT = Path(__file__).resolve().parents[2]
RUN_LANGS = ("console", "sh")
OUTPUT_LANGS = ("json",)  # run when annotated `output-of=COMMAND`
# The directory a world lives in is written like this in the docs, in commands and in output.
WORLD_DIR = "/tmp/changelog-tools-demo-abc123"


def doc_files() -> list[Path]:
    """Every Markdown file whose examples are collected."""
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Command:
    """One command as shown, and the output shown after it (None: no output is shown)."""

    line: str
    output: tuple[str, ...] | None


@dataclass(frozen=True)
class Example:
    """A block of commands from one place in the docs or one command's help."""

    source: str  # "README.md:91" or "help: check"
    lang: str
    commands: tuple[Command, ...]
    options: Mapping[str, str] = field(default_factory=dict)
    shown_json: str | None = None  # a json block: the document shown as the command's output

    @property
    def prose(self) -> str | None:
        """The reason it is not run, when it is marked as prose."""
        return self.options.get("prose")

    @property
    def id(self) -> str:
        first = self.commands[0].line if self.commands else ""
        return f"{self.source} {first}"[:90]


_ANNOTATION = re.compile(r"\A<!--\s*example:\s*(.*?)\s*-->\s*\Z", re.S)


def parse_annotation(html: str) -> dict[str, str] | None:
    """``<!-- example: world=sandbox exit=1 -->`` -> its options; ``prose REASON`` -> prose."""
    match = _ANNOTATION.match(html.strip())
    if match is None:
        return None
    body = match.group(1)
    if body.startswith("prose"):
        reason = body[len("prose") :].strip()
        if not reason:
            raise ValueError(f"a prose example must say why it is not run: {html.strip()!r}")
        return {"prose": reason}
    options: dict[str, str] = {}
    for word in shlex.split(body):
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"example option {word!r} is not KEY=VALUE in {html.strip()!r}")
        options[key] = value
    return options


def split_commands(text: str, *, prompts: bool) -> tuple[Command, ...]:
    """The commands of a block; with ``prompts``, each command's shown output too."""
    commands: list[tuple[str, list[str]]] = []
    pending = ""
    for raw in text.splitlines():
        if pending:
            pending += "\n" + raw
            if not raw.endswith("\\"):
                commands.append((pending, []))
                pending = ""
            continue
        if prompts and not raw.startswith("$ "):
            if not commands:
                raise ValueError(f"a console block starts with output, not `$ `: {raw!r}")
            commands[-1][1].append(raw)
            continue
        line = raw[2:] if prompts else raw
        if not prompts and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending = line
            continue
        commands.append((line, []))
    if pending:
        raise ValueError(f"a command ends in a line continuation: {pending!r}")
    for _line, out in commands:
        while out and not out[-1].strip():  # a blank line between commands is layout
            out.pop()
    return tuple(Command(line, tuple(out) if prompts and out else None) for line, out in commands)


@dataclass(frozen=True)
class Fence:
    path: Path
    line: int  # the opening fence
    end: int  # the closing fence (the last line, when the fence is left open)
    lang: str
    content: str
    annotation: dict[str, str] | None


# What GitHub renders a Markdown file with; each block keeps its source lines
# (data-sourcepos), a fence its language (<pre lang=...>), and raw HTML stays as written.
_OPTIONS = (
    Options.CMARK_OPT_SOURCEPOS | Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_GITHUB_PRE_LANG
)
_EXTENSIONS = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]
_SOURCEPOS = re.compile(r"(\d+):(\d+)-(\d+):(\d+)")
_COMMENT = ElementTree.Comment


def _is_fenced(pre: ElementTree.Element, source: list[str], line: int, column: int) -> bool:
    """Whether a ``<pre>`` is a fence, not an indented code block (both render alike). An
    indented block's content starts where its source position does; a fence's starts on the
    line after the opening fence, which a content line equal to it would have closed."""
    if pre.get("lang") is not None:
        return True  # only a fence has an info string
    content = "".join(pre.itertext())
    first = content.split("\n", 1)[0]
    return source[line - 1][column - 1 :].rstrip() != first.rstrip()


def fences(path: Path) -> Iterator[Fence]:
    """Every fenced block of ``path`` with the example annotation just before it, if any (an
    HTML comment block right before the fence, in the same container)."""
    text = path.read_text(encoding="utf-8")
    source = text.splitlines()
    html = cmarkgfm.markdown_to_html_with_extensions(text, options=_OPTIONS, extensions=_EXTENSIONS)
    root = html5lib.parseFragment(html, treebuilder="etree", namespaceHTMLElements=False)
    for parent in root.iter():
        previous: ElementTree.Element | None = None
        for child in parent:
            if child.tag == "pre" and (
                match := _SOURCEPOS.fullmatch(child.get("data-sourcepos", ""))
            ):
                line, column, end = int(match.group(1)), int(match.group(2)), int(match.group(3))
                if _is_fenced(child, source, line, column):
                    annotation = None
                    if previous is not None and previous.tag is _COMMENT:
                        annotation = parse_annotation(f"<!--{previous.text}-->")
                    content = "".join(child.itertext())
                    yield Fence(path, line, end, child.get("lang", ""), content, annotation)
            previous = None if (child.tail or "").strip() else child


def doc_examples() -> list[Example]:
    """The console and sh blocks of every documentation file."""
    found: list[Example] = []
    for path in doc_files():
        for fence in fences(path):
            source = f"{path.relative_to(ROOT)}:{fence.line}"
            if fence.lang in OUTPUT_LANGS and fence.annotation and "output-of" in fence.annotation:
                options = dict(fence.annotation)
                command = Command(options.pop("output-of"), None)
                found.append(Example(source, fence.lang, (command,), options, fence.content))
                continue
            if fence.lang not in RUN_LANGS:
                continue
            commands = split_commands(fence.content, prompts=fence.lang == "console")
            found.append(Example(source, fence.lang, commands, fence.annotation or {}))
    return found


_EXAMPLES_HEADING = re.compile(r"^(\s*)Examples?:\s*(.*)$")


def help_examples(name: str, text: str) -> list[Example]:
    """The commands in the ``Examples:`` section of one command's ``--help`` text."""
    lines = text.splitlines()
    found: list[Example] = []
    for index, line in enumerate(lines):
        match = _EXAMPLES_HEADING.match(line)
        if match is None:
            continue
        block = [match.group(2)] if match.group(2) else []
        for following in lines[index + 1 :]:
            if not following.strip():
                break
            block.append(following.strip())
        for command in split_commands("\n".join(block), prompts=False):
            found.append(Example(f"help: {name}", "sh", (command,)))
    return found


def top_level_examples(help_table: Mapping[str, tuple[str, str]]) -> list[Example]:
    """The ``e.g.`` line of each command in the top-level ``--help``."""
    return [
        Example("help: changelog-tools", "sh", (Command(example, None),))
        for _role, example in help_table.values()
        if example
    ]


def key_paths(document: object, prefix: str = "") -> set[str]:
    """Every key of a JSON document as a path (``plan.source-run.id``; a list's items as
    ``[]``); ``"..."`` keys, a doc's elision, are left out."""
    paths: set[str] = set()
    if isinstance(document, dict):
        for key, value in document.items():
            if key == "...":
                continue
            path = f"{prefix}.{key}" if prefix else key
            paths.add(path)
            paths |= key_paths(value, path)
    elif isinstance(document, list):
        for item in document:
            paths |= key_paths(item, f"{prefix}[]")
    return paths


def json_in(lines: Sequence[str]) -> object:
    """The JSON document in a command's output: from the line ``{`` to the last line ``}``
    (progress lines on stderr come before it)."""
    start = lines.index("{")
    end = len(lines) - 1 - list(reversed(lines)).index("}")
    return json.loads("\n".join(lines[start : end + 1]))


# -- comparing shown output with real output --------------------------------------------------

_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_ID = re.compile(r"\b\d{4,}\b")


def normalise(line: str) -> str:
    """What two runs may legitimately differ in: commit ids, the fake GitHub's port, the ids
    it hands out (run, comment: numbers of four digits or more), trailing blanks. (The world's
    directory is replaced before this, by the runner.)"""
    line = _HEX.sub("<sha>", line)
    line = _PORT.sub("127.0.0.1:<port>", line)
    line = _ID.sub("<id>", line)
    return line.rstrip()


def _pattern(expected: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in normalise(expected).split("...")]
    return re.compile(".*".join(parts), re.S)


def output_matches(expected: Sequence[str], actual: Sequence[str]) -> bool:
    """Whether ``actual`` lines are what ``expected`` shows: each shown line matches one line
    (``...`` inside a line stands for any text), a line that is only ``...`` for any number
    of lines (none included)."""
    want = [e for e in expected]
    got = [normalise(a) for a in actual]
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(want):
            result = j == len(got)
        elif want[i].strip() == "...":
            result = any(match(i + 1, k) for k in range(j, len(got) + 1))
        else:
            result = (
                j < len(got)
                and _pattern(want[i]).fullmatch(got[j]) is not None
                and match(i + 1, j + 1)
            )
        memo[key] = result
        return result

    return match(0, 0)
