"""The offline static site (tools/site.py) in a real browser, with the network shut.

The test builds the site itself, from the committed notebooks, into a temporary folder
(``site.build``, about 15 s; it needs the widget renderer that ``tools/prepare.py`` installs,
which the test command does before any test), so it never checks a stale site. It serves
that folder on 127.0.0.1 and opens every page in Debian's Chromium through Playwright with
every request outside 127.0.0.1 aborted and counted: the count must be 0. On each page: no
console error and no uncaught exception; every saved widget view rendered from its saved
state; each chapter's quiz shows its questions in the page's language, chapter 07's
confirmation widgets show their buttons, and each page links to the same page in the other
language. Without Chromium or Node.js the test skips with one line naming what to install;
in CI (``CI=true``) it fails instead (:mod:`tests.pieces`).
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.pieces import need_node, unavailable
from tests.test_browser import CHROMIUM_ARGS, _find_chromium  # the lab tests' flags, lookup
from tests.test_language import CJK
from tools import site
from tools.prepare import NODE_DIR, pinned
from tutorial_lib.course.chapters import quiz_file

pytestmark = pytest.mark.browser

WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'
RENDER_TIMEOUT_MS = 30_000


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        pass


def _chromium() -> str:
    chromium = _find_chromium()  # the lab tests' lookup: Debian's, else the one on PATH
    if chromium is None:
        unavailable("the offline site's browser test not run: Chromium missing (sudo apt-get"
                    " install chromium)")  # fmt: skip
    return chromium


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built now from the committed notebooks (never a stale ``site/``)."""
    _chromium()  # no browser, no reason to build
    need_node("the offline site's build (its widget renderer)")
    out = tmp_path_factory.mktemp("site") / "site"
    site.build(out)
    return out


@pytest.fixture(scope="module")
def served(built: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_vendored_scripts_are_pinned_where_prepare_installs_them() -> None:
    assert {site.HTML_MANAGER, "requirejs"} <= set(pinned())
    assert site.NODE_MODULES == NODE_DIR / "node_modules"


def test_the_site_has_every_page_of_both_editions() -> None:
    pages = site.pages()
    by_language = {lang: [p for p in pages if p.language == lang] for lang in site.EDITIONS}
    assert len(by_language["zh"]) == len(by_language["en"]) == 30
    assert {p.counterpart for p in by_language["zh"]} == {p.relative for p in by_language["en"]}


def test_an_english_page_gets_its_quiz_rebuilt_in_english_and_nothing_else_changes() -> None:
    english = nbformat.read(site.ROOT / "en" / "notebooks" / "03_error_contracts.ipynb", 4)
    bank = json.loads(quiz_file("03").read_text("utf-8"))
    rebuilt = site.with_quiz_in("en", english)
    state = rebuilt.metadata.widgets[site.WIDGET_STATE]["state"]
    text = json.dumps(state, ensure_ascii=False)
    first_line = bank["questions"][0]["prompt_en"].splitlines()[0]
    assert first_line[:40] in text and not CJK.search(text)
    views = [
        output.data[site.WIDGET_VIEW]["model_id"]
        for cell in rebuilt.cells
        for output in cell.get("outputs", [])
        if site.WIDGET_VIEW in output.get("data", {})
    ]
    assert views and all(view in state for view in views)
    assert [c.source for c in rebuilt.cells] == [c.source for c in english.cells]
    quizless = [i for i, c in enumerate(english.cells) if "load_quiz" not in c.source]
    assert all(rebuilt.cells[i] == english.cells[i] for i in quizless)
    saved = english.metadata.widgets[site.WIDGET_STATE]["state"]
    assert CJK.search(json.dumps(saved, ensure_ascii=False)), "the saved quiz is the Chinese run's"


def test_every_page_loads_offline_with_its_widgets_and_no_console_error(
    built: Path, served: str
) -> None:
    import playwright.sync_api as playwright_api  # a declared test dependency

    chromium = _chromium()
    names = sorted(str(p.relative_to(built)) for p in built.rglob("*.html"))
    assert len(names) == len(site.pages()) + len(site.EDITIONS), names
    blocked: list[str] = []
    problems: list[str] = []
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()

            def route(request_route: object) -> None:
                url = request_route.request.url  # type: ignore[attr-defined]
                if url.startswith(served):
                    request_route.continue_()  # type: ignore[attr-defined]
                else:
                    blocked.append(url)
                    request_route.abort()  # type: ignore[attr-defined]

            current = {"name": ""}
            page.route("**/*", route)
            page.on(
                "console",
                lambda m: (
                    problems.append(f"{current['name']}: console {m.type}: {m.text}")
                    if m.type == "error"
                    else None
                ),
            )
            page.on("pageerror", lambda e: problems.append(f"{current['name']}: {e}"))
            for name in names:
                current["name"] = name
                page.goto(served + name, wait_until="load")
                views = page.locator(WIDGET_VIEW).count()
                if views:
                    page.wait_for_function(
                        "n => document.querySelectorAll('.widget-subarea').length >= n",
                        arg=views,
                        timeout=RENDER_TIMEOUT_MS,
                    )
                _check_page(page, name, views, problems)
        finally:
            browser.close()
    assert blocked == [], f"{len(blocked)} requests left 127.0.0.1: {blocked[:5]}"
    assert problems == [], "\n".join(problems)


def _quiz_speaks_the_page_language(locate: Any, name: str) -> bool:
    """The quiz's first question is in the page's language: Chinese on a zh/ page, no Chinese
    on an en/ page (whose quiz the build rebuilds in English: its saved outputs are the
    Chinese run's)."""
    prompt = locate(".tl-quiz-prompt").first.inner_text()
    chinese = CJK.search(prompt) is not None
    return chinese == name.startswith("zh/")


def _check_page(page: object, name: str, views: int, problems: list[str]) -> None:
    locate = page.locator  # type: ignore[attr-defined]
    if name.startswith(("zh/notebooks/", "en/notebooks/")):
        if views == 0:
            problems.append(f"{name}: no saved widget (the quiz needs one)")
        if locate(".tl-quiz-question").count() < 3:
            problems.append(f"{name}: the quiz's questions did not render")
        elif not _quiz_speaks_the_page_language(locate, name):
            problems.append(f"{name}: the quiz is not in the page's language")
    if "/notebooks/07_" in name and locate(".tl-confirm button").count() < 3:
        problems.append(f"{name}: the confirmation widgets did not render their buttons")
    if "/" in name:  # a notebook page: the language switch points at its counterpart
        other = "en/" if name.startswith("zh/") else "zh/"
        href = locate("nav.course-nav a[hreflang]").get_attribute("href")
        if href != "../../" + other + name.split("/", 1)[1]:
            problems.append(f"{name}: the language switch points at {href}")
