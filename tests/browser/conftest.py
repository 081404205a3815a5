"""The browser suite's set-up: one JupyterLab server and one chromium per session.

JupyterLab runs on 127.0.0.1 with a random token and throwaway config, settings,
workspace, runtime and data folders. Chromium is Debian's (/usr/bin/chromium),
driven by Playwright's sync API with a fresh profile; no browser is ever
downloaded. Every request the pages make is recorded so a test can prove the
course works offline.

Notebooks are never opened in place (they are sources with stored outputs):
each test opens a copy under artifacts/browser-run/, and autosave is off too.
"""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from helpers import need, unavailable
import jlab
from jlab import REQUESTS, ROOT, SCREENSHOTS, VIEWPORT

ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]

# JupyterLab user settings for the test session: no autosave (we never write the
# sources), every cell attached to the DOM (so assertions see all outputs), no
# news or update checks (they would reach the network).
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
SERVER_CONFIG = {
    "LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
               # window.jupyterapp: the suite opens each notebook with the app's own
               # "open" command instead of reloading the whole JupyterLab page
               "expose_app_in_browser": True},
    # no language servers: jupyter-lsp would write .virtual_documents/ into the repo
    "ServerApp": {"jpserver_extensions": {"jupyter_lsp": False}},
}

WRITES = []    # attempts to write a file outside the run folder (blocked)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stray_folders():
    """Folders a JupyterLab server may leave in the repo when it writes (checkpoints,
    language-server shadows), outside the gitignored artifacts/ and .venv/."""
    found = set()
    tops = [p for p in ROOT.iterdir() if p.is_dir() and p.name not in ("artifacts", ".venv", ".git")]
    for name in (".ipynb_checkpoints", ".virtual_documents"):
        if (ROOT / name).exists():
            found.add(name)
        for top in tops:
            found.update(p.relative_to(ROOT).as_posix() for p in top.rglob(name))
    return found


class Lab:
    """A running JupyterLab server: its base URL, token and REST helpers."""

    def __init__(self, port, token, run_dir):
        self.port = port
        self.token = token
        self.url = f"http://127.0.0.1:{port}"
        self.run_dir = run_dir  # copies of the notebooks live here, under the served root

    def api(self, path, method="GET"):
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def is_local(self, url):
        return url.startswith((f"http://127.0.0.1:{self.port}/", f"ws://127.0.0.1:{self.port}/",
                               "data:", "blob:", "about:"))

    def copy(self, relpath, clear_outputs=False):
        """Copy a source notebook into the run folder; return its path relative to the root.
        clear_outputs: drop the stored outputs, so that everything the page then shows
        comes from this run (and the notebook opens faster)."""
        dst = self.run_dir / relpath
        dst.parent.mkdir(parents=True, exist_ok=True)
        nb = json.loads((ROOT / relpath).read_text(encoding="utf-8"))
        if clear_outputs:
            for cell in nb["cells"]:
                if cell["cell_type"] == "code":
                    cell["outputs"], cell["execution_count"] = [], None
        dst.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
        return dst.relative_to(ROOT).as_posix()

    def shutdown_kernels(self, wait=True):
        """Delete every session (and its kernel). wait=False lets the next notebook
        start while the old kernel shuts down."""
        def delete(ids):
            for sid in ids:
                try:
                    self.api(f"/api/sessions/{sid}", method="DELETE")
                except (urllib.error.URLError, OSError):
                    pass  # already gone, or the server is stopping
        ids = [s["id"] for s in self.api("/api/sessions")]
        if wait:
            delete(ids)
        else:
            threading.Thread(target=delete, args=(ids,), daemon=True).start()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """Start JupyterLab once for the session and stop it afterwards."""
    if not os.path.exists(CHROMIUM):
        unavailable(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    need("playwright", "browser tests drive chromium through Playwright")
    before = stray_folders()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    home = tmp_path_factory.mktemp("jupyter")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR",
                "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        env[var] = str(home / var.lower())
        os.makedirs(env[var])
    (home / "jupyter_config_dir" / "jupyter_server_config.json").write_text(json.dumps(SERVER_CONFIG))
    for plugin, values in LAB_SETTINGS.items():
        path = home / "jupyterlab_settings_dir" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))

    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={ROOT}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(home / "lab.log", "wb")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    run_dir = ARTIFACTS / "browser-run" / f"run-{os.getpid()}"
    server = Lab(port, token, run_dir)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited early:\n{(home / 'lab.log').read_text()[-3000:]}")
            try:
                server.api("/api/status")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer /api/status within 60 s:\n"
                                f"{(home / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.25)
        yield server
    finally:
        try:
            server.shutdown_kernels()
        except Exception:
            pass
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(run_dir, ignore_errors=True)
        new = sorted(stray_folders() - before)
        assert not new, f"the browser session wrote into the repo tree: {new}"


def record(kind, url):
    REQUESTS.append((kind, url))


def guard_contents(route, lab):
    """Let the page read anything but write (save, rename, create, delete, checkpoint)
    only inside the run folder: the sources in the repo must stay untouched."""
    request = route.request
    path = urllib.parse.unquote(request.url.split("/api/contents/", 1)[1].split("?")[0])
    run = lab.run_dir.relative_to(ROOT).as_posix()
    if request.method != "GET" and not path.startswith(run + "/"):
        WRITES.append(f"{request.method} {path}")
        route.abort()
    else:
        route.continue_()


@pytest.fixture(scope="session")
def playwright_api():
    """Playwright, started once for the session: the JupyterLab tests and the site tests share it (its sync
    API cannot be started twice in one thread)."""
    if not os.path.exists(CHROMIUM):
        unavailable(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = need("playwright.sync_api", "browser tests drive chromium through Playwright")
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser_context(lab, playwright_api, tmp_path_factory):
    """One chromium with a fresh profile; every request is recorded."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    context = playwright_api.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
        viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(30_000)
    context.on("request", lambda r: record(r.resource_type, r.url))
    context.on("page", lambda page: page.on("websocket", lambda ws: record("websocket", ws.url)))
    context.route("**/api/contents/**", lambda route: guard_contents(route, lab))
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(scope="session")
def lab_page(browser_context, lab):
    """One JupyterLab tab for the session (loading the app once saves ~15 s a notebook)."""
    tab = browser_context.new_page()
    jlab.load(tab, lab)
    yield tab
    tab.close()


@pytest.fixture
def page(lab_page, lab):
    """The JupyterLab tab, with nothing open. Afterwards every document is closed and
    every kernel shut down, and every request made meanwhile must have gone to the
    local JupyterLab server."""
    first, first_write = len(REQUESTS), len(WRITES)
    yield lab_page
    try:
        jlab.close_all(lab_page)
    finally:
        lab.shutdown_kernels(wait=False)
    foreign = [u for _, u in REQUESTS[first:] if not lab.is_local(u)]
    assert not foreign, f"requests left the local JupyterLab server: {foreign[:10]}"
    assert not WRITES[first_write:], f"the page tried to write a source file: {WRITES[first_write:]}"


def pytest_terminal_summary(terminalreporter):
    if REQUESTS:
        hosts = sorted({u.split("/")[2] if "://" in u else u.split(":")[0] for _, u in REQUESTS})
        terminalreporter.write_line(
            f"browser suite: {len(REQUESTS)} requests recorded, to: {', '.join(hosts)}")
