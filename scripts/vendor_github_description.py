"""Vendor the parts of GitHub's published API description that this project uses.

GitHub publishes its REST API as an OpenAPI 3.0 description (npm: ``@octokit/openapi``, file
``generated/api.github.com.json``, about 13 MB) and its GraphQL schema (npm:
``@octokit/graphql-schema``, ``schema.graphql``, about 1.2 MB). The fake GitHub and the contract
test need only the operations the tool calls, so this script keeps those:

- ``tests/contract/github_rest.json``: per operation its parameters, request body schema and,
  per documented status, the response schema and header names; every ``$ref`` to a parameter,
  response or header inlined, the schema components they reach kept under ``components``, and
  OpenAPI 3.0's ``nullable`` turned into JSON Schema (so ``jsonschema`` validates it as is);
- ``changelog_tools/testing/github_examples.json``: the description's own example answer of each
  operation, which the fake GitHub builds its answers from (the demo needs it, so it ships);
- ``tests/contract/github_schema.graphql``: the GraphQL types and fields the tool's queries use.

Usage: ``python scripts/vendor_github_description.py [--openapi DIR] [--graphql DIR]`` where each
DIR is an unpacked package (``npm pack @octokit/openapi && tar xzf ...``); without them the
script runs ``npm pack`` itself into a temporary directory. A test fails while the vendored
files miss an operation the fake serves or the selection below names.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REST_OUT = ROOT / "tests/contract/github_rest.json"
EXAMPLES_OUT = ROOT / "changelog_tools/testing/github_examples.json"
GRAPHQL_OUT = ROOT / "tests/contract/github_schema.graphql"

R = "/repos/{owner}/{repo}"
# Every REST operation the tool (and the fake GitHub that stands in for it) uses.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("GET", "/user"),
    ("GET", "/users/{username}"),
    ("GET", R),
    ("GET", R + "/pulls"),
    ("POST", R + "/pulls"),
    ("GET", R + "/pulls/{pull_number}"),
    ("GET", R + "/pulls/{pull_number}/commits"),
    ("GET", R + "/pulls/{pull_number}/files"),
    ("GET", R + "/pulls/{pull_number}/reviews"),
    ("GET", R + "/pulls/{pull_number}/comments"),
    ("PUT", R + "/pulls/{pull_number}/merge"),
    ("GET", R + "/issues/{issue_number}/labels"),
    ("POST", R + "/issues/{issue_number}/labels"),
    ("GET", R + "/issues/{issue_number}/comments"),
    ("POST", R + "/issues/{issue_number}/comments"),
    ("GET", R + "/issues/{issue_number}/timeline"),
    ("GET", R + "/issues/comments/{comment_id}"),
    ("PATCH", R + "/issues/comments/{comment_id}"),
    ("DELETE", R + "/issues/comments/{comment_id}"),
    ("GET", R + "/commits/{ref}"),
    ("GET", R + "/commits/{commit_sha}/pulls"),
    ("GET", R + "/commits/{ref}/check-runs"),
    ("GET", R + "/commits/{ref}/check-suites"),
    ("GET", R + "/commits/{ref}/statuses"),
    ("GET", R + "/commits/{ref}/status"),
    ("POST", R + "/statuses/{sha}"),
    ("GET", "/orgs/{org}/teams/{team_slug}/memberships/{username}"),
    ("GET", R + "/collaborators/{username}/permission"),
    ("GET", R + "/actions/workflows/{workflow_id}"),
    ("GET", R + "/actions/workflows/{workflow_id}/runs"),
    ("GET", R + "/actions/runs"),
    ("GET", R + "/actions/runs/{run_id}"),
    ("GET", R + "/actions/runs/{run_id}/jobs"),
    ("GET", R + "/actions/runs/{run_id}/artifacts"),
    ("GET", R + "/actions/artifacts/{artifact_id}/{archive_format}"),
)
# The GraphQL queries the tool sends (kept in step with the client by the contract test).
GRAPHQL_ROOTS = ("Query.nodes",)
GRAPHQL_TYPES = ("IssueComment", "PullRequestReview", "PullRequestReviewComment")

# Documentation-only keys: they make up most of the description's bytes and validate nothing.
_PROSE = ("description", "summary", "externalDocs", "title", "x-github", "operationId", "tags")


def _pack(name: str, where: Path) -> Path:
    """``npm pack NAME`` into ``where`` and unpack it; the package directory."""
    out = subprocess.run(
        ["npm", "pack", name, "--silent"], cwd=where, capture_output=True, text=True, check=True
    )
    tarball = where / out.stdout.strip().splitlines()[-1]
    target = where / tarball.stem
    with tarfile.open(tarball) as archive:
        archive.extractall(target, filter="data")
    return target / "package"


def _provenance(package_dir: Path) -> dict[str, str]:
    meta = json.loads((package_dir / "package.json").read_text(encoding="utf-8"))
    licence = next((p for p in package_dir.iterdir() if p.name.upper().startswith("LICENSE")), None)
    first = licence.read_text(encoding="utf-8").splitlines()[0] if licence else ""
    if "MIT" not in str(meta.get("license")) or "MIT" not in first:
        raise SystemExit(f"{meta['name']}: expected an MIT licence, found {meta.get('license')}")
    return {"package": meta["name"], "version": meta["version"], "license": "MIT"}


class _Doc:
    """The full description, and what the vendored subset needs of it."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.schemas: dict[str, Any] = {}

    def deref(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = self._at(node["$ref"])
        return node

    def _at(self, ref: str) -> Any:
        node: Any = self.doc
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def schema(self, node: Any) -> Any:
        """A schema as JSON Schema: prose dropped, ``nullable`` spelled out, components kept."""
        if isinstance(node, list):
            return [self.schema(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in self.schemas:
                self.schemas[name] = {}  # a placeholder first: schemas refer to themselves
                self.schemas[name] = self.schema(self._at(node["$ref"]))
            return {"$ref": f"#/components/schemas/{name}"}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _PROSE or key in ("example", "examples", "readOnly", "deprecated"):
                continue
            if key == "properties":
                out[key] = {name: self.schema(sub) for name, sub in value.items()}
            elif key == "nullable":
                continue
            else:
                out[key] = self.schema(value)
        if node.get("nullable"):
            out = _nullable(out)
        return out

    def example(self, media: dict[str, Any]) -> Any:
        if "example" in media:
            return media["example"]
        for item in (media.get("examples") or {}).values():
            return self.deref(item).get("value")
        return None


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and not any(k in schema for k in ("allOf", "anyOf", "oneOf")):
        schema = {**schema, "type": [kind, "null"]}
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def vendor_rest(doc: dict[str, Any], provenance: dict[str, str]) -> tuple[dict[str, Any], Any]:
    """(the vendored operations with their schema components, the examples per operation)."""
    full = _Doc(doc)
    operations: dict[str, Any] = {}
    examples: dict[str, Any] = {}
    for method, path in OPERATIONS:
        op = doc["paths"][path][method.lower()]
        key = f"{method} {path}"
        params = []
        for param in [*doc["paths"][path].get("parameters", []), *op.get("parameters", [])]:
            param = full.deref(param)
            params.append(
                {
                    "name": param["name"],
                    "in": param["in"],
                    "required": bool(param.get("required")),
                    "schema": full.schema(param.get("schema", {})),
                }
            )
        entry: dict[str, Any] = {"parameters": params, "responses": {}}
        body = full.deref(op.get("requestBody"))
        if body:
            media = body.get("content", {}).get("application/json", {})
            entry["requestBody"] = {
                "required": bool(body.get("required")),
                "schema": full.schema(media.get("schema", {})),
            }
        for status, response in op["responses"].items():
            response = full.deref(response)
            media = (response.get("content") or {}).get("application/json")
            entry["responses"][status] = {
                "headers": sorted((response.get("headers") or {}).keys()),
                "schema": full.schema(media["schema"]) if media and "schema" in media else None,
            }
            if media and status.startswith("2"):
                example = full.example(media)
                if example is not None:
                    examples.setdefault(key, {})[status] = example
        operations[key] = entry
    rest = {
        "source": {**provenance, "file": "generated/api.github.com.json"},
        "openapi": doc["openapi"],
        "operations": operations,
        "components": {"schemas": dict(sorted(full.schemas.items()))},
    }
    return rest, {"source": {**provenance, "file": "generated/api.github.com.json"}, **examples}


def vendor_graphql(sdl: str, provenance: dict[str, str]) -> str:
    """The GraphQL types and fields the tool's queries reach, as SDL."""
    from graphql import build_schema
    from graphql.type import GraphQLInterfaceType, GraphQLObjectType

    # the published SDL repeats a few enterprise fields; nothing kept here is among them
    schema = build_schema(sdl, assume_valid_sdl=True)
    keep: dict[str, set[str] | None] = {}  # type name -> kept fields (None: all, for scalars)

    def reach(type_name: str, fields: set[str]) -> None:
        keep.setdefault(type_name, set())
        kept = keep[type_name]
        assert kept is not None
        kept.update(fields)

    for root in GRAPHQL_ROOTS:
        type_name, field_name = root.split(".")
        reach(type_name, {field_name})
    # nodes(ids:) returns [Node]; the fragments ask these fields of these types
    reach("Node", {"id"})
    for name in GRAPHQL_TYPES:
        reach(name, {"id", "lastEditedAt", "editor", "userContentEdits"})
    reach("Actor", {"login"})
    # an edit's whole history: who made each edit (a comment edited by anyone but its author
    # never counts)
    reach("UserContentEditConnection", {"totalCount", "nodes"})
    reach("UserContentEdit", {"editor"})
    lines = [
        f"# A subset of GitHub's public GraphQL schema: {provenance['package']} "
        f"{provenance['version']} (licence: {provenance['license']}), schema.graphql.",
        "# Regenerated by scripts/vendor_github_description.py; do not edit.",
        "",
    ]
    todo = list(keep)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        gtype = schema.get_type(name)
        if isinstance(gtype, GraphQLObjectType | GraphQLInterfaceType):
            wanted = keep.get(name) or set()
            for interface in gtype.interfaces:
                if interface.name in keep:
                    todo.append(interface.name)
            for field_name in sorted(wanted):
                field = gtype.fields[field_name]
                todo.extend(_named(field.type))
                for arg in field.args.values():
                    todo.extend(_named(arg.type))
        elif gtype is not None:
            keep.setdefault(name, None)
    for name in seen:  # a type keeps the fields of the interfaces it is kept implementing
        gtype = schema.get_type(name)
        for interface in getattr(gtype, "interfaces", ()):
            if interface.name in seen:
                keep[name] = (keep.get(name) or set()) | (keep.get(interface.name) or set())
    for name in sorted(seen):
        gtype = schema.get_type(name)
        if gtype is None or name in ("String", "ID", "Boolean", "Int", "Float"):
            continue
        lines.extend([*_sdl(gtype, keep.get(name) or set(), seen), ""])
    return "\n".join(lines)


def _sdl(gtype: Any, wanted: set[str], seen: set[str]) -> list[str]:
    """One type as SDL, with only the ``wanted`` fields and without its prose."""
    from graphql.type import GraphQLInterfaceType, GraphQLObjectType, GraphQLScalarType

    if isinstance(gtype, GraphQLScalarType):
        return [f"scalar {gtype.name}"]
    if not isinstance(gtype, GraphQLObjectType | GraphQLInterfaceType):
        raise SystemExit(f"{gtype.name}: a {type(gtype).__name__} is not handled here")
    kind = "interface" if isinstance(gtype, GraphQLInterfaceType) else "type"
    interfaces = [i.name for i in gtype.interfaces if i.name in seen]
    head = f"{kind} {gtype.name}" + (f" implements {' & '.join(interfaces)}" if interfaces else "")
    out = [head + " {"]
    for field_name in sorted(wanted):
        field = gtype.fields[field_name]
        args = ", ".join(f"{a}: {arg.type}" for a, arg in field.args.items())
        out.append(f"  {field_name}{f'({args})' if args else ''}: {field.type}")
    return [*out, "}"]


def _named(gtype: Any) -> list[str]:
    while hasattr(gtype, "of_type"):
        gtype = gtype.of_type
    return [gtype.name]


def _dump(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the three vendored files from the packages (``npm pack`` when no DIR is given)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openapi", type=Path, help="an unpacked @octokit/openapi package")
    parser.add_argument("--graphql", type=Path, help="an unpacked @octokit/graphql-schema")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        openapi = args.openapi or _pack("@octokit/openapi", Path(tmp))
        graphql = args.graphql or _pack("@octokit/graphql-schema", Path(tmp))
        rest_source = _provenance(openapi)
        doc = json.loads((openapi / "generated/api.github.com.json").read_text(encoding="utf-8"))
        rest, examples = vendor_rest(doc, rest_source)
        sdl = (graphql / "schema.graphql").read_text(encoding="utf-8")
        subset = vendor_graphql(sdl, _provenance(graphql))
    REST_OUT.parent.mkdir(parents=True, exist_ok=True)
    REST_OUT.write_text(_dump(rest), encoding="utf-8")
    EXAMPLES_OUT.write_text(_dump(examples), encoding="utf-8")
    GRAPHQL_OUT.write_text(subset, encoding="utf-8")
    for path in (REST_OUT, EXAMPLES_OUT, GRAPHQL_OUT):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
