"""Real-browser tests: chapters run in JupyterLab and their widgets answer real clicks.

nbval proves the notebooks compute the right outputs; it cannot prove that a learner in
JupyterLab sees a working quiz (the ipywidgets lab extension loads, the options react to a
mouse, the explanation appears only after submitting). This test starts an isolated
``jupyter lab``, opens a COPY of the chapter in Debian's Chromium through Playwright,
runs every cell from the menu and answers the first quiz question with real clicks.

Requirements: Debian's ``chromium`` and the ``playwright`` Python package of the test extra
(never ``playwright install``). Chromium missing locally: the test skips. Missing in CI
(``CI=true``): the test fails, because a silently skipped browser test would prove nothing.

A screenshot is saved to ``test-artifacts/browser/chapter00_quiz.png`` (pass or fail),
next to a copy of the server log and the browser console.

Chapter 07 gets the same treatment for its two open confirmations (section 10): choose a
repository from a list with none selected and double-click "批准" (exactly one comment is
stored, on the chosen repository), then "拒绝" on the second (nothing stored). Screenshots:
``chapter07_confirm_before.png`` (after Run All) and ``chapter07_confirm_after.png``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.pieces import unavailable

pytestmark = pytest.mark.browser

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CHAPTER_NOTEBOOK = PROJECT_ROOT / "notebooks" / "00_tool_contracts.ipynb"
ARTIFACT_DIR = PROJECT_ROOT / "test-artifacts" / "browser"
SCREENSHOT = ARTIFACT_DIR / "chapter00_quiz.png"
CHAPTER07_NOTEBOOK = PROJECT_ROOT / "notebooks" / "07_user_confirmation.ipynb"
SCREENSHOT_07_BEFORE = ARTIFACT_DIR / "chapter07_confirm_before.png"
SCREENSHOT_07_AFTER = ARTIFACT_DIR / "chapter07_confirm_after.png"
# Chapter 07's emulator before any click: comments on PR 128 of each candidate repository.
COUNTS_BEFORE = {"example/shop": 10, "other/shop": 1}
# The approve widget's status after the accepted post ran: the emulator's stored counts.
COUNTS_LINE = re.compile(r"模拟器里的评论数 example/shop: (\d+)，other/shop: (\d+)")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SKIP_MESSAGE = (
    "browser test not run: Chromium missing (install Debian's chromium: sudo apt-get install"
    " chromium; never `playwright install`)"
)
# Playwright's default 5 s is too short for a cold kernel and a first widget render.
EXPECT_TIMEOUT_MS = 60_000
# Run All covers the whole chapter; nbval allows each cell 120 s, allow the run as much.
RUN_ALL_TIMEOUT_MS = 120_000
SERVER_START_TIMEOUT_S = 60.0
SERVER_STOP_TIMEOUT_S = 10.0
# Prompt text of an executed code cell: "[12]:". Queued cells show "[*]:", never-run "[ ]:".
EXECUTED_PROMPT = re.compile(r"^\[\d+\]:$")

# Whether every cell has finished: no cell queued or running, at least one executed, and
# the kernel idle. It needs the outputs cleared first: the committed notebook already
# shows "[n]:" on every cell before anything runs.
RUN_FINISHED_JS = """() => {
  const prompts = [...document.querySelectorAll(
    '.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')].map(e => e.textContent.trim());
  const indicator = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
  return prompts.some(p => /^\\[\\d+\\]:$/.test(p))
    && !prompts.includes('[*]:')
    && indicator !== null && indicator.dataset.status === 'idle';
}"""


@dataclass
class BrowserTools:
    """What the test needs from the machine: Chromium's path and Playwright's sync API."""

    chromium: str
    sync_api: ModuleType


@dataclass
class LabServer:
    """A running, isolated ``jupyter lab``."""

    process: subprocess.Popen[bytes]
    base_url: str
    token: str
    root_dir: Path
    log_path: Path

    def api(self, method: str, path: str) -> Any:
        """Call the server's REST API (token in the header); return the decoded JSON or None."""
        request = urllib.request.Request(
            f"{self.base_url}{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def delete_sessions(self) -> None:
        """Shut down every kernel session: sessions outlive the browser tab."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's log, for failure messages."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no server log)"
        return "\n".join(text.splitlines()[-lines:])


def _find_chromium() -> str | None:
    """Debian's Chromium: /usr/bin/chromium, else whatever ``chromium`` is on PATH."""
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def _free_port() -> int:
    """A TCP port that was free a moment ago (the server is told not to try others)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_ready(server: LabServer) -> None:
    """Poll ``/api/status`` until the server answers; fail with its log if it never does."""
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(
                f"jupyter lab exited with code {server.process.returncode} before it was"
                f" ready. Server log:\n{server.log_tail()}"
            )
        try:
            server.api("GET", f"/api/status?token={server.token}")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    pytest.fail(
        f"jupyter lab did not answer /api/status within {SERVER_START_TIMEOUT_S:g} s."
        f" Server log:\n{server.log_tail()}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server by its PID: SIGTERM, then SIGKILL if it does not exit in time.

    SIGTERM can hang in "Shutting down extensions" when it arrives while a kernel is still
    starting (observed with jupyter_server 2.21), hence the kill fallback.
    """
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)


def _code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    """The notebook's code cells, in order (the order JupyterLab renders them)."""
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _first_line(cell: dict[str, Any]) -> str:
    lines = _source(cell).strip().splitlines()
    return lines[0][:80] if lines else "(empty)"


def _click_menu(page: Any, menu: str, item: str) -> None:
    """Choose ``menu`` > ``item`` from JupyterLab's menu bar, as a user would.

    ``exact=True`` matters: without it "Run All Cells" also matches the menu item
    "Restart Kernel and Run All Cells…".
    """
    page.get_by_role("menuitem", name=menu, exact=True).click()
    page.get_by_role("menuitem", name=item, exact=True).click()


@pytest.fixture
def chapter() -> Path:
    """The committed chapter notebook. Missing is a failure, never a skip.

    Requested first by the test, so it fails even on a machine that would skip for lack
    of a browser.
    """
    if not CHAPTER_NOTEBOOK.is_file():
        pytest.fail(f"chapter notebook is missing: {CHAPTER_NOTEBOOK}")
    return CHAPTER_NOTEBOOK


@pytest.fixture
def chapter07() -> Path:
    """Chapter 07's committed notebook. Missing is a failure, never a skip."""
    if not CHAPTER07_NOTEBOOK.is_file():
        pytest.fail(f"chapter notebook is missing: {CHAPTER07_NOTEBOOK}")
    return CHAPTER07_NOTEBOOK


@pytest.fixture
def browser_tools() -> BrowserTools:
    """Chromium and Playwright; without Chromium a skip (locally) or a failure (CI).

    Playwright is a declared test dependency: it is imported plainly, so a broken test
    install fails instead of skipping. Chromium is a system package a learner may lack.
    """
    import playwright.sync_api as sync_api

    chromium = _find_chromium()
    if chromium is None:
        unavailable(SKIP_MESSAGE)
    return BrowserTools(chromium=chromium, sync_api=sync_api)


@pytest.fixture
def lab_server(browser_tools: BrowserTools, tmp_path: Path) -> Iterator[LabServer]:
    """An isolated ``jupyter lab`` serving an empty directory under ``tmp_path``.

    Depends on ``browser_tools`` so a machine without a browser skips before starting Lab.
    """
    env = dict(os.environ)
    # Isolate every directory Jupyter and IPython write to or read user state from.
    # Kernelspecs and prebuilt lab extensions (ipywidgets) are still found under
    # sys.prefix/share/jupyter, which the isolated JUPYTER_DATA_DIR does not hide.
    dirs = {
        "JUPYTER_CONFIG_DIR": "config",
        "JUPYTER_DATA_DIR": "data",
        "JUPYTER_RUNTIME_DIR": "runtime",
        "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
        "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces",
        "IPYTHONDIR": "ipython",
    }
    for variable, name in dirs.items():
        path = tmp_path / name
        path.mkdir()
        env[variable] = str(path)
    # No news toast and no update check: it could cover the notebook and needs the network.
    notification = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )
    root_dir = tmp_path / "root"
    root_dir.mkdir()

    port = _free_port()
    token = secrets.token_hex(24)
    command = [
        sys.executable,  # the venv's Python, whatever `jupyter` on PATH is
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip",
        "127.0.0.1",
        "--port",
        str(port),
        # If the port was taken meanwhile, fail instead of silently moving to another one.
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI runners often run as root
    log_path = tmp_path / "jupyter-lab.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, env=env, cwd=root_dir, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    server = LabServer(
        process=process,
        base_url=f"http://127.0.0.1:{port}",
        token=token,
        root_dir=root_dir,
        log_path=log_path,
    )
    try:
        _wait_until_ready(server)
        yield server
    finally:
        try:
            if process.poll() is None:
                server.delete_sessions()  # idempotent: the test already did it if it got far
        except (urllib.error.URLError, OSError):
            pass  # the server is going away anyway; never hide the test's own error
        finally:
            _stop(process)
            # Keep the log next to the screenshot: tmp_path is hard to find on a CI runner.
            ARTIFACT_DIR.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log_path, ARTIFACT_DIR / "jupyter-lab.log")


@contextlib.contextmanager
def _lab_after_run_all(
    chapter: Path,
    browser_tools: BrowserTools,
    lab_server: LabServer,
    *,
    screenshot: Path,
    frame: str,
    console_log: Path,
) -> Iterator[Any]:
    """Open a copy of ``chapter`` in Chromium, Run All, check the run; yield the page.

    On the way out (pass or fail) the page is screenshotted to ``screenshot`` with the
    first ``frame`` element scrolled into view, the browser console is written to
    ``console_log``, the kernel is shut down and the browser closed.
    """
    code_cells = _code_cells(json.loads(chapter.read_text(encoding="utf-8")))
    # A copy: JupyterLab autosaves, and the committed file holds nbval's reference outputs.
    notebook = lab_server.root_dir / chapter.name
    shutil.copyfile(chapter, notebook)
    lab_server.delete_sessions()  # start from no kernel at all

    sync_api = browser_tools.sync_api
    expect = sync_api.expect
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    console: list[str] = []
    ARTIFACT_DIR.mkdir(parents=True, exist_ok=True)
    screenshot.unlink(missing_ok=True)  # never leave an old run's picture behind

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=browser_tools.chromium, args=CHROMIUM_ARGS
        )
        # A tall window: JupyterLab scrolls inside its own panel, so a "full page"
        # screenshot is only ever the window.
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.set_default_timeout(EXPECT_TIMEOUT_MS)
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
        try:
            page.goto(f"{lab_server.base_url}/lab/tree/{notebook.name}?token={lab_server.token}")
            _wait_for_kernel(page, expect)
            # Cleared prompts read "[ ]:", so a number seen later proves this run made it.
            _click_menu(page, "Edit", "Clear Outputs of All Cells")
            expect(page.locator(".jp-CodeCell .jp-InputPrompt").first).not_to_have_text(
                EXECUTED_PROMPT
            )
            _click_menu(page, "Run", "Run All Cells")
            _wait_for_run_all(page, sync_api)
            _assert_run_clean(page, expect, notebook, code_cells)
            yield page
        finally:
            try:
                # Frame the widget if it is there; then the picture shows what went wrong.
                _screenshot(page, screenshot, frame)
            except Exception as exc:  # noqa: BLE001 - a screenshot must not mask the failure
                console.append(f"(screenshot failed: {exc})")
            console_log.write_text("\n".join(console) + "\n", encoding="utf-8")
            # Shut the kernel down while the server still runs, then close the browser.
            with contextlib.suppress(urllib.error.URLError, OSError):
                lab_server.delete_sessions()
            browser.close()


def _screenshot(page: Any, path: Path, frame: str) -> None:
    """Save the window to ``path``, with the first ``frame`` element scrolled into view."""
    target = page.locator(frame).first
    if target.count():
        target.scroll_into_view_if_needed(timeout=5_000)
    page.screenshot(path=str(path), full_page=True, timeout=15_000)


def test_chapter00_runs_and_quiz_answers_real_clicks(
    chapter: Path, browser_tools: BrowserTools, lab_server: LabServer
) -> None:
    """Run all of chapter 00 in JupyterLab, then answer quiz question 1 with the mouse."""
    with _lab_after_run_all(
        chapter,
        browser_tools,
        lab_server,
        screenshot=SCREENSHOT,
        frame=".tl-quiz-question",
        console_log=ARTIFACT_DIR / "chapter00_console.log",
    ) as page:
        _answer_first_question(page, browser_tools.sync_api.expect)


def test_chapter07_confirmation_real_clicks(
    chapter07: Path, browser_tools: BrowserTools, lab_server: LabServer
) -> None:
    """Run all of chapter 07, then answer its two open confirmations with the mouse.

    Approve: choose a repository from a list with none selected, double-click "批准";
    exactly one comment is stored, on the chosen repository. Decline: nothing is stored.
    """
    SCREENSHOT_07_BEFORE.unlink(missing_ok=True)
    with _lab_after_run_all(
        chapter07,
        browser_tools,
        lab_server,
        screenshot=SCREENSHOT_07_AFTER,
        frame=".tl-try-approve",
        console_log=ARTIFACT_DIR / "chapter07_console.log",
    ) as page:
        expect = browser_tools.sync_api.expect
        approve = page.locator(".tl-confirm.tl-try-approve")
        decline = page.locator(".tl-confirm.tl-try-decline")
        # None means the ipywidgets lab extension did not load or section 10 changed.
        expect(approve, "expected one rendered .tl-try-approve widget").to_have_count(1)
        expect(decline, "expected one rendered .tl-try-decline widget").to_have_count(1)
        _screenshot(page, SCREENSHOT_07_BEFORE, ".tl-try-approve")
        _approve_with_double_click(approve, expect)
        _decline(decline, expect)
        _assert_counts_in_kernel(page, expect)


def _wait_for_kernel(page: Any, expect: Any) -> None:
    """Wait until the notebook's kernel is connected and idle.

    The toolbar's execution indicator reads "idle" while the status bar still says
    "No Kernel | Initializing", and a Run All clicked then executes nothing. The status
    bar item holds the kernel name and its state in one text, so it cannot race.
    """
    expect(page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first).to_be_visible()
    status = page.locator("#jp-main-statusbar .jp-StatusBar-TextItem").filter(
        has_text=re.compile(r"\| Idle$")
    )
    expect(
        status,
        "the notebook's kernel never became idle (a kernel-selection dialog? see the"
        " screenshot and jupyter-lab.log)",
    ).to_be_visible()
    expect(status).not_to_have_text(re.compile(r"^No Kernel"))
    expect(page.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]')).to_be_visible()


def _wait_for_run_all(page: Any, sync_api: ModuleType) -> None:
    """Wait until Run All has finished (or stopped at an error); fail with the prompts if not."""
    try:
        page.wait_for_function(RUN_FINISHED_JS, timeout=RUN_ALL_TIMEOUT_MS)
    except sync_api.TimeoutError:
        prompts = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt")
        pytest.fail(
            f"Run All did not finish within {RUN_ALL_TIMEOUT_MS // 1000} s;"
            f" input prompts: {[t.strip() for t in prompts.all_text_contents()]}"
        )


def _assert_run_clean(
    page: Any, expect: Any, notebook: Path, code_cells: list[dict[str, Any]]
) -> None:
    """Every non-empty code cell ran ("[n]:") and none raised, except ``raises-exception``.

    JupyterLab stops Run All at the first cell that raises (unless it is tagged
    ``raises-exception``): the cells after it keep "[ ]:". Errors are read from the saved
    copy, because JupyterLab 4.6 renders an error exactly like a stderr stream (both are
    ``.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]``, with no
    error-specific class) and warnings go to stderr too: the DOM cannot tell them apart.
    """
    prompts = [
        text.strip()
        for text in page.locator(
            ".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt"
        ).all_text_contents()
    ]
    assert len(prompts) == len(code_cells), (
        f"JupyterLab shows {len(prompts)} code cells, the notebook has {len(code_cells)}"
    )
    not_run = [
        f"  code cell {i + 1} ({prompt}): {_first_line(cell)}"
        for i, (prompt, cell) in enumerate(zip(prompts, code_cells, strict=True))
        if _source(cell).strip() and not EXECUTED_PROMPT.match(prompt)
    ]

    before = notebook.stat().st_mtime_ns
    # The item's accessible name includes its shortcut ("Save Notebook Ctrl+S"), so it
    # is found by its command id instead.
    page.get_by_role("menuitem", name="File", exact=True).click()
    page.locator('.lm-Menu-item[data-command="docmanager:save"]').click()
    # The tab loses its "unsaved" mark once the server has written the file.
    expect(page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty")).to_have_count(0)
    assert notebook.stat().st_mtime_ns != before, "Save Notebook did not write the copy"
    saved = json.loads(notebook.read_text(encoding="utf-8"))
    errors = [
        f"  code cell {i + 1} ({_first_line(cell)}): {out.get('ename')}: {out.get('evalue')}"
        for i, cell in enumerate(_code_cells(saved))
        if "raises-exception" not in cell.get("metadata", {}).get("tags", [])
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]

    problems = []
    if errors:
        problems += ["cells raised in JupyterLab:", *errors]
    if not_run:
        problems += ["Run All did not execute these cells:", *not_run]
    assert not problems, "\n".join(problems)


def _answer_first_question(page: Any, expect: Any) -> None:
    """Answer quiz question 1 with option B through real clicks; check what the learner sees."""
    quiz = page.locator(".tl-quiz")
    # No .tl-quiz at all usually means the ipywidgets lab extension did not load: the
    # cell then shows the quiz's plain-text fallback instead of the widget.
    expect(
        quiz,
        "expected exactly one rendered quiz widget (.tl-quiz); none means the ipywidgets"
        " lab extension did not load or the quiz cell is gone",
    ).to_have_count(1)
    question = quiz.locator(".tl-quiz-question").first
    question.scroll_into_view_if_needed()
    explanation = question.locator(".tl-quiz-feedback .tl-quiz-explanation")
    submit = question.locator(".tl-quiz-submit")
    # Answer first, explanation after: nothing is revealed and submitting is impossible yet.
    expect(explanation).to_have_count(0)
    expect(submit).to_be_disabled()

    option_b = question.locator(".tl-quiz-options").get_by_role("radio", name=re.compile(r"^B\. "))
    option_b.click()
    expect(option_b).to_be_checked()
    expect(submit).to_be_enabled()  # the kernel saw the choice and enabled the button
    submit.click()

    expect(explanation).to_be_visible()
    expect(explanation).to_have_text(re.compile(r"^解释："))
    expect(question.locator(".tl-quiz-verdict")).to_contain_text("你选 B")
    expect(quiz.locator(".tl-quiz-score")).to_contain_text("已作答 1/")
    # The first answer counts: the question is locked.
    expect(submit).to_be_disabled()
    expect(option_b).to_be_disabled()


def _approve_with_double_click(box: Any, expect: Any) -> None:
    """Choose ``example/shop`` (nothing preselected) and double-click "批准"; one post runs."""
    box.scroll_into_view_if_needed()
    radios = box.locator(".tl-confirm-choice").get_by_role("radio")
    expect(radios).to_have_count(2)
    # The radios' own labels; the widget's (empty) description label is outside the box.
    labels = box.locator(".tl-confirm-choice .widget-radio-box label").all_text_contents()
    labels = [text.strip() for text in labels]
    assert labels == ["example/shop", "other/shop"], labels
    for index in range(2):
        expect(radios.nth(index), "a confirmation must not preselect a target").not_to_be_checked()
    buttons = [box.locator(f".tl-confirm-{d}") for d in ("accept", "decline", "cancel")]
    for button in buttons:
        expect(button).to_be_enabled()

    target = box.locator(".tl-confirm-choice").get_by_role("radio", name="example/shop")
    target.click()
    expect(target).to_be_checked()
    # Two clicks in a row, the second before the kernel has disabled anything.
    box.locator(".tl-confirm-accept").dblclick()

    status = box.locator(".tl-confirm-status")
    expect(status).to_contain_text(COUNTS_LINE)
    text = status.inner_text()
    # accepted, then "executed" once the host has run the approved call
    assert "状态：executed" in text, text
    assert "repository=example/shop" in text, f"the post did not use the chosen target: {text}"
    match = COUNTS_LINE.search(text)
    assert match is not None, text
    counts = {"example/shop": int(match[1]), "other/shop": int(match[2])}
    assert counts == {"example/shop": COUNTS_BEFORE["example/shop"] + 1, "other/shop": 1}, (
        f"a double click must store exactly one comment, on example/shop: {text}"
    )
    for button in buttons:
        expect(button).to_be_disabled()
    expect(target).to_be_disabled()


def _decline(box: Any, expect: Any) -> None:
    """Click "拒绝" on the second question: it is declined and nothing runs."""
    box.scroll_into_view_if_needed()
    radios = box.locator(".tl-confirm-choice").get_by_role("radio")
    for index in range(radios.count()):
        expect(radios.nth(index)).not_to_be_checked()
    box.locator(".tl-confirm-decline").click()
    status = box.locator(".tl-confirm-status")
    expect(status).to_contain_text("declined")
    for decision in ("accept", "decline", "cancel"):
        expect(box.locator(f".tl-confirm-{decision}")).to_be_disabled()
    # A declined question runs no call, so its status names no tool result.
    assert "模拟器里的评论数" not in status.inner_text(), status.inner_text()


def _assert_counts_in_kernel(page: Any, expect: Any) -> None:
    """Ask the kernel, in a new last cell, for the stored counts after both clicks.

    The kernel handles widget messages and cell executions in order, so this also sees
    anything a late second click of the double click could have done.
    """
    code = (
        'print("browser-check", try_desk.comments("example/shop"),'
        ' try_desk.comments("other/shop"), [r.state for r in try_desk.flow.requests])'
    )
    page.locator(".jp-NotebookPanel .jp-Cell").last.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")  # command mode
    page.keyboard.press("b")  # insert a cell below, as a learner would
    editor = page.locator(".jp-NotebookPanel .jp-CodeCell.jp-mod-active .cm-content")
    expect(editor).to_have_text("")
    editor.click()  # edit mode, the caret in the new cell
    # insert_text types no keys, so no bracket is auto-closed.
    page.keyboard.insert_text(code)
    expect(editor).to_have_text(code)
    page.keyboard.press("Shift+Enter")
    new_cell = page.locator(".jp-NotebookPanel .jp-CodeCell").filter(
        has=page.locator(".cm-content", has_text="browser-check")
    )
    expect(new_cell).to_have_count(1)
    expect(new_cell.locator(".jp-InputPrompt")).to_have_text(EXECUTED_PROMPT)
    output = new_cell.locator(".jp-OutputArea-output")
    expected = f"browser-check {COUNTS_BEFORE['example/shop'] + 1} 1 ['executed', 'declined']"
    expect(output).to_contain_text(expected)
