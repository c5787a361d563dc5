"""The course as an offline static site: both editions as HTML pages, widgets included.

    python tools/site.py build             # writes site/ (ignored by git)
    python tools/site.py build --out DIR

Every committed notebook of both editions (``notebooks/``, ``exercises/``, ``solutions/`` and
their English editions under ``en/``) becomes one page with its saved outputs and widget
state. The widget renderer (``@jupyter-widgets/html-manager``) and its loader (``requirejs``)
are copied from the npm packages pinned in ``.ci/node/package.json``, which
``python tools/prepare.py`` installs into ``.ci/node`` (:data:`VENDOR_INSTALL`; the test
command runs it by itself); the page template loads no MathJax and no mermaid, so a page asks
nothing of the network. An index per language lists the chapters, with a language switch
on every page. Widgets show their saved state: no kernel runs behind a static page.

One exception, for the English edition: its saved outputs are the Chinese run's (the
translation copies them), so its quiz would be in Chinese. Each English lesson page's quiz is
rebuilt in English from the library, by the call its cell makes (``load_quiz("NN")``), and
its saved widget state replaced (:func:`with_quiz_in`); every other output stays as saved.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `tools` importable
    sys.path.insert(0, str(ROOT))

from tools.prepare import NODE_MODULES, PREPARE_COMMAND  # noqa: E402

HTML_MANAGER = "@jupyter-widgets/html-manager"
#: How to install the vendored scripts where the build looks (run in the project root).
VENDOR_INSTALL = PREPARE_COMMAND
TEMPLATES = Path(__file__).resolve().parent / "site_templates"
DEFAULT_OUT = ROOT / "site"
FOLDERS = ("notebooks", "exercises", "solutions")


@dataclass(frozen=True)
class Edition:
    """One language's edition: where its notebooks are, its index page, its words."""

    source: Path
    index: str
    html_lang: str
    title: str
    subtitle: str
    switch: str  # the language switch's label: the other language's name
    home: str
    chapter_column: str
    labels: tuple[str, str, str]  # the lesson, exercise and solution columns
    note: str


#: Per language (the first is the default): its edition.
EDITIONS = {
    "zh": Edition(
        source=ROOT,
        index="index.html",
        html_lang="zh-CN",
        title="可靠的工具接口",
        subtitle="Designing Reliable Tool Interfaces for Agents（中文版）",
        switch="English",
        home="课程目录",
        chapter_column="章",
        labels=("讲义", "练习", "参考答案"),
        note="静态页面：控件显示保存时的状态，不会运行代码。要运行，请在 JupyterLab 里打开笔记本。",
    ),
    "en": Edition(
        source=ROOT / "en",
        index="index.en.html",
        html_lang="en",
        title="Designing Reliable Tool Interfaces for Agents",
        subtitle="可靠的工具接口 (English edition)",
        switch="中文",
        home="Contents",
        chapter_column="Chapter",
        labels=("Lesson", "Exercise", "Solution"),
        note=(
            "Static pages: widgets show the state they were saved in; no code runs."
            " To run a chapter, open its notebook in JupyterLab."
        ),
    ),
}


def other_language(language: str) -> str:
    """The language a page's switch leads to."""
    return "en" if language == "zh" else "zh"


class VendorMissing(RuntimeError):
    """The widget renderer or its loader is not installed where the build looks."""


@dataclass(frozen=True)
class Page:
    """One notebook's page: its language, folder and name, and where its notebook is."""

    language: str
    folder: str
    notebook: Path

    @property
    def relative(self) -> str:
        """``zh/notebooks/00_tool_contracts.html``."""
        return f"{self.language}/{self.folder}/{self.notebook.stem}.html"

    @property
    def counterpart(self) -> str:
        """The same page in the other language."""
        return f"{other_language(self.language)}/{self.folder}/{self.notebook.stem}.html"


def pages() -> list[Page]:
    """Every page of the site: each committed notebook of both editions."""
    found = []
    for language, edition in EDITIONS.items():
        for folder in FOLDERS:
            for notebook in sorted((edition.source / folder).glob("[0-9][0-9]_*.ipynb")):
                found.append(Page(language, folder, notebook))
    return found


def vendor_files() -> list[tuple[Path, str]]:
    """(installed file, name under vendor/) for every script and font the pages load."""
    manager = NODE_MODULES / HTML_MANAGER / "dist"  # the versions: .ci/node/package.json
    requirejs = NODE_MODULES / "requirejs" / "require.js"
    if not (manager / "embed-amd.js").is_file() or not requirejs.is_file():
        raise VendorMissing(f"the widget renderer is not installed; run: {VENDOR_INSTALL}")
    files = [(requirejs, "require.js")]
    for path in sorted(manager.iterdir()):
        # the AMD bundle, its lazily loaded chunks and the icon fonts its CSS names
        script = path.name == "embed-amd.js" or path.name.endswith(".embed.js")
        if script or path.suffix in (".woff2", ".woff", ".ttf", ".eot", ".svg"):
            files.append((path, path.name))
    return files


def title_of(notebook: Path) -> str:
    """The first heading of the notebook's first markdown cell, without its '#'."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def exporter() -> Any:
    """nbconvert's HTML exporter with the course's template, the vendored scripts, no CDN."""
    from nbconvert import HTMLExporter

    return HTMLExporter(
        template_name="course",
        extra_template_basedirs=[str(TEMPLATES)],
        widget_renderer_url="../../vendor/embed-amd.js",
        require_js_url="../../vendor/require.js",
        mathjax_url="",
    )


#: A lesson's quiz cell: ``quiz = load_quiz("03")`` then ``quiz.show()``.
QUIZ_CELL = re.compile(r"load_quiz\(\"(\d\d)\"\)")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _reachable(root: str, state: dict[str, Any]) -> set[str]:
    """The model ids a saved widget refers to (itself, children, layouts, styles...)."""
    found: set[str] = set()
    todo = [root]
    while todo:
        model_id = todo.pop()
        if model_id in found or model_id not in state:
            continue
        found.add(model_id)
        todo += re.findall(r"IPY_MODEL_([0-9a-f]+)", str(state[model_id]))
    return found


def _quiz_state(chapter: str, language: str) -> tuple[str, dict[str, Any]]:
    """(root model id, saved state of every model) of ``load_quiz(chapter)``'s view, built
    in ``language``."""
    import ipywidgets

    from tutorial_lib.course.quiz import load_quiz
    from tutorial_lib.language import LANGUAGE_VARIABLE, checked_language

    before = os.environ.get(LANGUAGE_VARIABLE)
    os.environ[LANGUAGE_VARIABLE] = checked_language(language)
    try:
        view = load_quiz(chapter).widget()
    finally:
        if before is None:
            os.environ.pop(LANGUAGE_VARIABLE, None)
        else:
            os.environ[LANGUAGE_VARIABLE] = before
    widgets: dict[str, Any] = {}
    todo = [view]
    while todo:  # every widget the view holds: children, layouts, styles
        widget = todo.pop()
        if widget.model_id in widgets:
            continue
        widgets[widget.model_id] = widget
        for name in widget.keys:
            value = getattr(widget, name)
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, ipywidgets.Widget):
                    todo.append(item)
    state = ipywidgets.Widget.get_manager_state(widgets=list(widgets.values()))["state"]
    root = view.model_id
    for widget in widgets.values():
        widget.close()
    return root, state


def with_quiz_in(language: str, notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` with each quiz cell's saved view replaced by the quiz built in
    ``language`` (a copy; a notebook without a quiz comes back unchanged)."""
    notebook = nbformat.from_dict(notebook)
    widgets = notebook.metadata.setdefault("widgets", {})
    saved = widgets.setdefault(WIDGET_STATE, {"version_major": 2, "version_minor": 0})
    saved = saved.setdefault("state", {})
    for cell in notebook.cells:
        match = QUIZ_CELL.search(cell.source) if cell.cell_type == "code" else None
        views = [o for o in cell.get("outputs", []) if WIDGET_VIEW in o.get("data", {})]
        if match is None or len(views) != 1:
            continue
        for model_id in _reachable(views[0].data[WIDGET_VIEW]["model_id"], saved):
            del saved[model_id]
        root, state = _quiz_state(match.group(1), language)
        saved.update(state)
        views[0].data[WIDGET_VIEW]["model_id"] = root
    return notebook


def render_page(page: Page, html_exporter: Any | None = None) -> str:
    """The page's HTML: nbconvert's lab template with the course's header and no CDN."""
    edition = EDITIONS[page.language]
    other = EDITIONS[other_language(page.language)]
    resources = {
        "language_code": edition.html_lang,
        "course_nav": {
            "index": f"../../{edition.index}",
            "index_label": edition.home,
            "other": f"../../{page.counterpart}",
            "other_lang": other.html_lang,
            "other_label": edition.switch,
        },
    }
    notebook = nbformat.read(page.notebook, as_version=4)
    if page.language != "zh":  # saved in Chinese: the quiz is rebuilt in the page's language
        notebook = with_quiz_in(page.language, notebook)
    body, _ = (html_exporter or exporter()).from_notebook_node(notebook, resources=resources)
    return body


def render_index(language: str, all_pages: list[Page]) -> str:
    """The language's index: the chapter table, a note and the language switch."""
    edition = EDITIONS[language]
    other = EDITIONS[other_language(language)]
    by_chapter: dict[str, dict[str, Page]] = {}
    for page in all_pages:
        if page.language == language:
            by_chapter.setdefault(page.notebook.name[:2], {})[page.folder] = page
    rows = []
    for chapter, found in sorted(by_chapter.items()):
        lesson = found.get("notebooks")
        title = html.escape(title_of(lesson.notebook)) if lesson else chapter
        cells = [f"<td>{chapter}</td>"]
        for folder, label in zip(FOLDERS, edition.labels, strict=True):
            target = found.get(folder)
            text = title if folder == "notebooks" else label.lower()
            cells.append(
                f'<td><a href="{target.relative}">{text}</a></td>' if target else "<td></td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    columns = (edition.chapter_column, *edition.labels)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    switch = f'<p><a href="{other.index}" hreflang="{other.html_lang}">{edition.switch}</a></p>'

    return f"""<!DOCTYPE html>
<html lang="{edition.html_lang}">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(edition.title)}</title>
<style type="text/css">
body {{ font-family: sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 6px 8px; text-align: left; }}
</style>
</head>
<body>
{switch}
<h1>{html.escape(edition.title)}</h1>
<p>{html.escape(edition.subtitle)}</p>
<table>
<thead><tr>{head}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table>
<p>{html.escape(edition.note)}</p>
</body>
</html>
"""


def build(out: Path = DEFAULT_OUT) -> dict[str, float]:
    """Write the whole site into ``out`` (replacing it); returns pages, bytes and seconds."""
    started = time.monotonic()
    files = vendor_files()
    if out.exists():
        shutil.rmtree(out)
    (out / "vendor").mkdir(parents=True)
    for source, name in files:
        shutil.copyfile(source, out / "vendor" / name)
    all_pages = pages()
    html_exporter = exporter()  # one template load for every page
    for number, page in enumerate(all_pages, start=1):
        print(f"[{number}/{len(all_pages)}] {page.relative}", flush=True)
        target = out / page.relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_page(page, html_exporter), encoding="utf-8")
    for language, edition in EDITIONS.items():
        (out / edition.index).write_text(render_index(language, all_pages), encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {
        "pages": len(all_pages) + len(EDITIONS),
        "bytes": size,
        "seconds": round(time.monotonic() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build_parser = sub.add_parser("build", help="write the site")
    build_parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="default: site/")
    args = parser.parse_args(argv)
    try:
        figures = build(args.out.resolve())
    except VendorMissing as exc:
        print(exc, file=sys.stderr)
        return 1
    print(
        f"{figures['pages']:.0f} pages, {figures['bytes'] / 1e6:.1f} MB,"
        f" {figures['seconds']} s -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
