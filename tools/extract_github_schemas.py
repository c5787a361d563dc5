"""Extract the JSON Schemas of the GitHub REST operations the emulator serves.

    python tools/extract_github_schemas.py                  # npm pack, extract, write
    python tools/extract_github_schemas.py --check          # change nothing; exit 1 if stale
    python tools/extract_github_schemas.py --description generated/api.github.com.json

The source is GitHub's published OpenAPI description of REST version 2022-11-28 as the npm
package ``@octokit/openapi`` ships it (``generated/api.github.com.json``; its newer REST
versions appear only as ``x-github-breaking-changes`` patches, which are not applied). For
each operation of :data:`OPERATIONS`, the success response's schema and every component it
references, transitively, become one self-contained JSON Schema (Draft 2020-12) in
``tests/github_schemas/<tag>.<operation>.json``: components under ``$defs``, ``$ref``
pointing there. OpenAPI 3.0 is not JSON Schema, so three things are translated:

- ``nullable: true`` becomes ``"null"`` in ``type`` (and in ``enum``), or an ``anyOf`` with
  ``{"type": "null"}`` where the schema has no ``type`` (a ``$ref``, ``allOf``...);
- ``#/components/schemas/X`` becomes ``#/$defs/X``;
- OpenAPI-only keywords (``discriminator``, ``example``, ``xml``, ``externalDocs``,
  ``x-*``) are dropped: they are documentation, not constraints.

Each file records where it came from under ``x-source`` (package, version, file, operation,
method, path, status, documented response headers). The description itself is not kept:
only these files are committed. Needs ``npm`` unless ``--description`` is given.
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

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "@octokit/openapi"
#: The package version the committed schemas were extracted from (its REST 2022-11-28 file).
PACKAGE_VERSION = "23.0.2"
DESCRIPTION_FILE = "generated/api.github.com.json"
API_VERSION = "2022-11-28"
OUT_DIR = ROOT / "tests" / "github_schemas"

#: operationId -> success status, for every REST operation the emulator serves.
OPERATIONS: dict[str, int] = {
    "repos/get": 200,
    "pulls/get": 200,
    "pulls/list-review-comments": 200,
    "pulls/get-review-comment": 200,
    "issues/get": 200,
    "issues/list-comments": 200,
    "issues/create-comment": 201,
    "issues/get-comment": 200,
    "users/get-by-username": 200,
}

_SCHEMA_PREFIX = "#/components/schemas/"
_DROPPED = frozenset({"discriminator", "example", "xml", "externalDocs"})

Json = Any


def schema_file_name(operation_id: str) -> str:
    """``pulls/get`` -> ``pulls.get.json``."""
    return operation_id.replace("/", ".") + ".json"


def _find_operation(description: Json, operation_id: str) -> tuple[str, str, Json]:
    for path, item in description["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return method.upper(), path, operation
    raise KeyError(f"operation {operation_id!r} is not in the description")


def _resolve_response(description: Json, response: Json) -> Json:
    ref = response.get("$ref")
    if ref is None:
        return response
    name = ref.removeprefix("#/components/responses/")
    return description["components"]["responses"][name]


def _referenced(schema: Json) -> set[str]:
    """Names of the components ``schema`` refers to directly."""
    found: set[str] = set()
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith(_SCHEMA_PREFIX):
                raise ValueError(f"unsupported $ref {ref!r}")
            found.add(ref.removeprefix(_SCHEMA_PREFIX))
        for value in schema.values():
            found |= _referenced(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= _referenced(value)
    return found


def _closure(components: Json, root: Json) -> list[str]:
    """Every component ``root`` needs, transitively, sorted by name."""
    pending, seen = _referenced(root), set[str]()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending |= _referenced(components[name]) - seen
    return sorted(seen)


def translate(schema: Json) -> Json:
    """An OpenAPI 3.0 schema object as a JSON Schema (Draft 2020-12) one."""
    if isinstance(schema, list):
        return [translate(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED or key.startswith("x-") or key == "nullable":
            continue
        if key == "$ref":
            out[key] = "#/$defs/" + value.removeprefix(_SCHEMA_PREFIX)
        elif key in ("properties", "patternProperties", "$defs"):
            out[key] = {name: translate(sub) for name, sub in value.items()}
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            raise ValueError(f"OpenAPI 3.0 boolean {key} is not translated")
        else:
            out[key] = translate(value)
    if schema.get("nullable") is True:
        out = _nullable(out)
    return out


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts ``null`` (OpenAPI 3.0 ``nullable: true``)."""
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        widened = {**schema, "type": [*types, "null"] if "null" not in types else types}
        if "enum" in schema and None not in schema["enum"]:
            widened["enum"] = [*schema["enum"], None]
        return widened
    return {"anyOf": [schema, {"type": "null"}]}


def extract(description: Json, operation_id: str, status: int) -> Json:
    """The self-contained JSON Schema of ``operation_id``'s ``status`` response."""
    method, path, operation = _find_operation(description, operation_id)
    response = _resolve_response(description, operation["responses"][str(status)])
    root = response["content"]["application/json"]["schema"]
    components = description["components"]["schemas"]
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{method} {path} ({status})",
        "x-source": {
            "package": PACKAGE,
            "version": description["info"]["version"],
            "file": DESCRIPTION_FILE,
            "rest_api_version": API_VERSION,
            "operation_id": operation_id,
            "method": method,
            "path": path,
            "status": status,
            "headers": sorted(response.get("headers", {})),
        },
        **translate(root),
        "$defs": {name: translate(components[name]) for name in _closure(components, root)},
    }
    return schema


def render(schema: Json) -> str:
    """The committed text of a schema file (the same description gives the same bytes)."""
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


def download_description(version: str, workdir: Path) -> Json:
    """``npm pack`` the package into ``workdir`` and read its REST description."""
    subprocess.run(
        ["npm", "pack", f"{PACKAGE}@{version}", "--pack-destination", str(workdir)],
        check=True,
        capture_output=True,
    )
    (tarball,) = workdir.glob("*.tgz")
    with tarfile.open(tarball) as archive:
        member = archive.extractfile(f"package/{DESCRIPTION_FILE}")
        if member is None:
            raise FileNotFoundError(f"{DESCRIPTION_FILE} is not in {tarball.name}")
        return json.load(member)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default=PACKAGE_VERSION, help=f"{PACKAGE} version")
    parser.add_argument("--description", type=Path, help="a local api.github.com.json instead")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--check", action="store_true", help="report stale files, write nothing")
    args = parser.parse_args(argv)
    if args.description is not None:
        description = json.loads(args.description.read_text(encoding="utf-8"))
    else:
        with tempfile.TemporaryDirectory() as workdir:
            description = download_description(args.version, Path(workdir))
    stale = []
    for operation_id, status in OPERATIONS.items():
        target = args.out / schema_file_name(operation_id)
        text = render(extract(description, operation_id, status))
        if args.check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
    for target in stale:
        print(f"stale: {target}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
