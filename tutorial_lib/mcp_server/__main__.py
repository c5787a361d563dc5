"""``python -m tutorial_lib.mcp_server --root DIR`` (or ``tutorial-lib-mcp``): serve on stdio.

The flags are checked before the MCP SDK is imported: a bad flag is reported at once, with
argparse's usage message (exit status 2). The configuration, never the token, is written
to stderr as one line; stdout belongs to the protocol.

A server's start is what every client waits for, so this process declines one optional
import it never uses (:func:`decline_unused_format_extras`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["UNUSED_FORMAT_EXTRAS", "decline_unused_format_extras", "main"]

#: Optional format-checking extras that ``import jsonschema`` loads when they are installed
#: (``jsonschema/_format.py`` tries each), and that this server never uses. JupyterLab's
#: install brings them all: ``rfc3987_syntax`` compiles its IRI grammars with lark when
#: imported (1-3.5 s on a 2-core machine, nine tenths of ``import jsonschema``), and the
#: others compile regular expressions or import ``arrow`` (about 0.15 s more). They only back
#: ``format`` checks, and the road's validators check no format at all (no
#: ``format_checker``; the served schemas use no ``format`` keyword; ``tests/test_mcp_start.py``
#: keeps both). ``idna`` is not declined: httpx needs it.
UNUSED_FORMAT_EXTRAS = (
    "fqdn",
    "isoduration",
    "jsonpointer",
    "rfc3339_validator",
    "rfc3986_validator",
    "rfc3987",
    "rfc3987_syntax",
    "uri_template",
    "webcolors",
)


def decline_unused_format_extras() -> None:
    """Make :data:`UNUSED_FORMAT_EXTRAS` unimportable in this process, unless something
    imported them already: ``jsonschema`` then skips the format checks they back, as it
    does where they are not installed. Called only by this program's entry point, never on
    import of the library, so a notebook or another program keeps its own choice."""
    for name in UNUSED_FORMAT_EXTRAS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # None: "not importable"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, then serve the course's tools on stdio until the client
    closes the connection; returns the exit status."""
    decline_unused_format_extras()
    from tutorial_lib.mcp_server.config import parse_config

    config = parse_config(argv)
    from tutorial_lib.mcp_server.server import build_server

    print(config.summary(), file=sys.stderr, flush=True)
    with build_server(config) as server:
        server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
