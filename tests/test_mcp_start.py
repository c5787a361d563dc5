"""The MCP server's start: what its entry point declines to import, and why that is safe.

How fast it starts is a measurement (``benchmarks/mcp_start_benchmark.py``: a ratio to a
minimal server on the same SDK); these tests keep the states that make it fast and correct:
the program declines ``rfc3987_syntax`` (it compiles grammars when ``jsonschema`` imports
it), and nothing it serves needs the format checks that module backs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from tests.pieces import HANG_S
from tests.test_mcp_server import SPECS
from tutorial_lib.design.exports import to_mcp
from tutorial_lib.mcp_server.__main__ import UNUSED_FORMAT_EXTRAS


def keywords(schema: Any) -> Iterator[str]:
    """Every key of every mapping inside ``schema`` (property names included: harmless)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            yield from keywords(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from keywords(item)


def test_no_served_schema_asks_for_a_format_check() -> None:
    """The extras only back format checks: a served schema with ``format`` would lose one."""
    assert len(SPECS) >= 12  # every tool the server can serve
    for name, spec in SPECS.items():
        listed = to_mcp(spec)
        for schema in (listed["inputSchema"], listed.get("outputSchema", {})):
            assert "format" not in set(keywords(schema)), name


_PROBE = """
import json, sys
from tutorial_lib.mcp_server.__main__ import decline_unused_format_extras
decline_unused_format_extras()
from tutorial_lib.workspace.read import READ_LINES_SPEC
validator = READ_LINES_SPEC.arguments.validator  # builds the road's schema check
print(json.dumps({
    "loaded": sorted(
        name for name, module in sys.modules.items()
        if name.split(".")[0] in sys.argv[1:] and module is not None
    ),
    "jsonschema": "jsonschema" in sys.modules,
}))
"""


def test_the_entry_point_declines_the_extras_and_the_road_still_checks() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *UNUSED_FORMAT_EXTRAS],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_S,
    )
    report = json.loads(done.stdout)
    assert report == {"loaded": [], "jsonschema": True}


def test_a_module_imported_already_is_left_alone() -> None:
    probe = (
        "import sys, types\n"
        "sys.modules['rfc3987_syntax'] = module = types.ModuleType('rfc3987_syntax')\n"
        "from tutorial_lib.mcp_server.__main__ import decline_unused_format_extras\n"
        "decline_unused_format_extras()\n"
        "print(sys.modules['rfc3987_syntax'] is module)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=HANG_S
    )
    assert done.stdout.strip() == "True"
