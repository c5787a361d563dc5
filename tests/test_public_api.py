"""The package root's curated public surface: lazy (PEP 562), one import path per name."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import tutorial_lib


@pytest.mark.parametrize("name", tutorial_lib.__all__)
def test_every_public_name_resolves_to_its_one_home(name: str) -> None:
    value = getattr(tutorial_lib, name)
    home = tutorial_lib._EXPORTS[name]  # the table the root reads
    module = __import__(home, fromlist=[name])
    assert getattr(module, name) is value
    # the name is listed in its home module's __all__: the one import path is public there
    assert name in module.__all__


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'call_tool'"):
        tutorial_lib.call_tool  # noqa: B018 - the old function is gone: the host owns the road


def test_the_root_loads_no_ui_or_network_library() -> None:
    code = (
        "import sys, json; from tutorial_lib import Host, read_lines, search_files, ToolSpec;"
        "print(json.dumps(sorted(sys.modules)))"
    )
    loaded = set(json.loads(subprocess.check_output([sys.executable, "-c", code], text=True)))
    forbidden = {"IPython", "ipywidgets", "matplotlib", "httpx", "anthropic", "openai", "mcp"}
    assert not forbidden & loaded
    assert not {m for m in loaded if m.startswith(("tutorial_lib.course", "tutorial_lib.agent"))}


def test_the_readme_api_table_lists_exactly_the_public_names() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("**The public surface.**", 1)[1].split("\n\n", 2)[1]
    listed = {
        cell.strip().strip("`")
        for line in section.splitlines()
        if line.startswith("| `")
        for cell in line.split("|")[2].split(",")
    }
    assert listed == set(tutorial_lib.__all__)
