"""``python -m tutorial_lib.mcp_server --root DIR`` (or ``tutorial-lib-mcp``): serve on stdio.

The flags are checked before the MCP SDK is imported: a bad flag is reported at once, with
argparse's usage message (exit status 2). The configuration, never the token, is written
to stderr as one line; stdout belongs to the protocol.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tutorial_lib.mcp_server.config import parse_config

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, then serve the course's tools on stdio until the client
    closes the connection; returns the exit status."""
    config = parse_config(argv)
    from tutorial_lib.mcp_server.server import build_server

    print(config.summary(), file=sys.stderr, flush=True)
    with build_server(config) as server:
        server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
