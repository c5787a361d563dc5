"""The promises README makes: two commands, CI running the same test command, working links."""

from __future__ import annotations

import re

from tools.notebooks import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
COMMAND = re.compile(r"^python3 -m venv \.venv && .+$", re.MULTILINE)


def readme_commands() -> list[str]:
    return sorted(set(COMMAND.findall(README)))


def test_readme_has_exactly_two_setup_commands():
    commands = readme_commands()
    assert len(commands) == 2, commands
    assert sum("jupyter lab" in c for c in commands) == 1
    assert sum("pytest" in c for c in commands) == 1


def test_ci_runs_the_readme_test_command_verbatim():
    (test_command,) = [c for c in readme_commands() if "pytest" in c]
    assert test_command in CI_RUN.splitlines()
    assert "export CI=true" in CI_RUN and "apt-get install" in CI_RUN and "chromium" in CI_RUN
    assert (ROOT / ".ci" / "run").stat().st_mode & 0o111, ".ci/run must be executable"


def test_ci_prepares_nothing_the_test_command_does_not():
    """Past the system packages, CI's only step is README's command: the npm packages and
    the site are prepared by the test run itself, so CI meets what a newcomer meets."""
    steps = [
        line
        for line in CI_RUN.splitlines()
        if line.strip() and not line.lstrip().startswith("#") and "apt-get" not in line
    ]
    (test_command,) = [c for c in readme_commands() if "pytest" in c]
    assert steps[-1] == test_command
    set_up = ("npm install", "npm ci", "tools/prepare.py", "site.py", "pip install")
    assert not [line for line in steps[:-1] if any(word in line for word in set_up)], steps
    assert (ROOT / ".ci" / "node" / "package-lock.json").is_file()


def test_learner_install_does_not_pull_test_tools():
    (learn_command,) = [c for c in readme_commands() if "jupyter lab" in c]
    assert "pip install -e . " in learn_command and "[test]" not in learn_command
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = pyproject.split("dependencies = [", 1)[1].split("]", 1)[0]
    for tool in ("pytest", "nbval", "hypothesis", "ruff", "playwright"):
        assert tool not in dependencies, f"{tool} belongs in the test extra"


def test_relative_links_in_readme_exist():
    links = re.findall(r"\]\(((?!https?://)[^)#]+)\)", README)
    assert links, "README links to no chapter"
    for link in links:
        assert (ROOT / link).exists(), f"README links to missing {link}"


def test_every_chapter_notebook_is_in_the_readme_table():
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        assert f"](notebooks/{path.name})" in README, f"{path.name} missing from README"


def test_every_library_path_in_the_readme_exists():
    """README names one import path per learner-facing name: each must import."""
    import importlib

    paths = set(re.findall(r"`(tutorial_lib(?:\.[A-Za-z_]+)+)`", README))
    paths |= set(re.findall(r"^from (tutorial_lib(?:\.[a-z_]+)+) import", README, re.MULTILINE))
    assert len(paths) > 20, paths
    for path in sorted(paths):
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
            try:
                value = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            for attribute in parts[cut:]:
                assert hasattr(value, attribute), f"README names {path}: no {attribute}"
                value = getattr(value, attribute)
            break


def test_the_package_configuration_ships_the_whole_library():
    """`pip install .` (not only the editable install the README uses) gets every module:
    setuptools' own discovery, with pyproject's include patterns, finds every subpackage."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: mypy's own dependency tomli reads TOML
        import tomli as tomllib
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    include = config["setuptools"]["packages"]["find"]["include"]
    found = set(find_packages(str(ROOT), include=include))
    library = ROOT / "tutorial_lib"
    packages = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in library.rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert len(packages) > 8 and packages == found, sorted(packages ^ found)
    data = config["setuptools"]["package-data"]
    assert data["tutorial_lib"] == ["py.typed"] and (library / "py.typed").exists()
    assert data["tutorial_lib.course.chapters"] == ["*/quiz.json"]
