"""The course as a static website (`make site`): built once from the stored outputs, served on 127.0.0.1 and
read page by page in headless chromium.

Every page (the course map, each lesson notebook, each exercise notebook):
- makes no request that leaves 127.0.0.1 (MathJax, its fonts and the theme are local files);
- shows no raw TeX once MathJax has typeset it ($...$, \\(...\\), \\frac... outside code);
- shows every explorer's static snapshot (its tables or figure), one per explorer stored in the notebook;
- links only to local pages that exist (and to anchors that exist on them);
- has no serious or critical axe-core violation.
The build's time and page count are printed (not asserted).
"""
import functools
import http.server
import importlib.util
import json
import re
import threading
import time
import urllib.parse

import pytest

import a11y
from conftest import CHROMIUM_ARGS, CHROMIUM
from helpers import need
from jlab import ROOT, SCREENSHOTS, VIEWPORT

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SOURCES = ["index"] + [f"{folder}/{p.stem}" for folder in ("notebooks", "exercises")
                       for p in sorted((ROOT / folder).glob("*.ipynb"))]
RAW_TEX = re.compile(r"\$[^$\n]{1,80}\$|\\\(|\\\)|\\\[|\\\]|\\(frac|sqrt|mathrm|top|infty|cdot|sum|begin|text)\b")
LOCAL = ("data:", "blob:", "about:")


def load_builder():
    spec = importlib.util.spec_from_file_location("site_build", ROOT / "site" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site(playwright_api, tmp_path_factory):
    """Build the site once (into a temporary folder) and serve it on 127.0.0.1; yields (base URL, pages)."""
    a11y.axe_script()  # skip (or fail under CI) before building when axe-core is missing
    need("sphinx", "the site is built with Sphinx and myst-nb (requirements-site.txt)")
    need("myst_nb", "the site is built with Sphinx and myst-nb (requirements-site.txt)")
    builder = load_builder()
    if not builder.MATHJAX.joinpath("package.json").exists():
        a11y.unavailable(f"the site needs MathJax at {builder.MATHJAX.relative_to(ROOT)} (run `make site-js`)")
    out = tmp_path_factory.mktemp("site") / "html"
    seconds, pages = builder.build(out)
    print(f"\nsite: {len(pages)} pages built in {seconds:.1f} s")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", pages
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def site_tab(site, playwright_api):
    """One chromium tab for the site; every request it makes is recorded in tab.requests."""
    browser = playwright_api.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(120_000)  # a long page typesets its maths in seconds; slower on a busy machine
    tab = context.new_page()
    tab.requests = []
    context.on("request", lambda r: tab.requests.append(r.url))
    try:
        yield tab
    finally:
        context.close()
        browser.close()


def test_every_source_is_a_page(site):
    _, pages = site
    assert sorted(pages) == sorted(f"{s}.html" for s in SOURCES)


@functools.lru_cache(maxsize=None)
def fetch(tab_request, url):
    response = tab_request.get(url)
    return response.status, response.text() if response.ok else ""


def stored_explorers(source):
    if source == "index":
        return 0
    nb = json.loads((ROOT / f"{source}.ipynb").read_text(encoding="utf-8"))
    return sum(WIDGET_VIEW in out.get("data", {}) and is_explorer(out["data"]) for cell in nb["cells"]
               for out in cell.get("outputs", []))


def is_explorer(data):
    """A course explorer's stored output (its plain text says so), not another widget such as notebook 00's check
    that widgets render."""
    return "".join(data.get("text/plain", "")).endswith("run the notebook to use its controls>")


def visible_prose(tab):
    """The page body's text outside code, inputs and typeset maths."""
    return tab.evaluate("""() => {
        const body = document.querySelector('div.body').cloneNode(true);
        body.querySelectorAll('pre, code, .highlight, mjx-container, script, style').forEach(e => e.remove());
        return body.textContent;
    }""")


@pytest.mark.parametrize("source", SOURCES)
def test_site_page(site, site_tab, source):
    base, _ = site
    tab = site_tab
    first = len(tab.requests)
    url = base + f"{source}.html"
    tab.goto(url)
    tab.wait_for_function("() => !document.querySelector('script[src*=\"mathjax\"]') || "
                          "(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)")
    tab.wait_for_load_state("load")  # not "networkidle": a page opened again in the same tab may never report it
    tab.evaluate("() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise"
                 ".then(() => window.MathJax.typesetPromise ? window.MathJax.typesetPromise() : 1).then(() => 1) : 1")

    maths = tab.locator("div.body .math").count()
    assert tab.locator("div.body mjx-container").count() >= maths, f"{source}: {maths} maths not typeset"
    raw = sorted({m.group(0) for m in RAW_TEX.finditer(visible_prose(tab))})
    assert not raw, f"{source}: raw TeX on the page: {raw[:10]}"

    snapshots = tab.locator("div.body .ra-snapshot")
    assert snapshots.count() == stored_explorers(source), \
        f"{source}: {stored_explorers(source)} explorers stored, {snapshots.count()} snapshots shown"
    for k in range(snapshots.count()):
        snap = snapshots.nth(k)
        box = snap.bounding_box()
        assert snap.is_visible() and box and box["height"] > 40, f"{source}: snapshot #{k} is empty ({box})"
        assert snap.locator("table.ra-matrix td, img").count(), f"{source}: snapshot #{k} shows no table or figure"
        assert snap.evaluate("e => [...e.querySelectorAll('img')].every(i => i.complete && i.naturalWidth > 0)")

    links = tab.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    broken = []
    for href in sorted(set(links)):
        if not href.startswith(base):
            assert not href.startswith(("http://127.", "http://localhost")), f"{source}: link to {href}"
            continue
        target, _, fragment = href.partition("#")
        status, text = fetch(tab.request, target.split("?")[0])
        if status != 200:
            broken.append(f"{href} ({status})")
        elif fragment and f'id="{urllib.parse.unquote(fragment)}"' not in text:
            broken.append(f"{href} (no anchor #{fragment})")
    assert not broken, f"{source}: broken internal links: {broken}"

    found = a11y.axe(tab)
    assert not found, f"{source}: {a11y.count(found)} serious/critical axe violation(s): {a11y.describe(found)}"

    time.sleep(0.05)
    foreign = [u for u in tab.requests[first:] if not u.startswith(base) and not u.startswith(LOCAL)]
    assert not foreign, f"{source}: requests left 127.0.0.1: {foreign[:10]}"
    if source in ("index", "notebooks/07_attention_module", "exercises/06_mask_and_softmax"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=SCREENSHOTS / f"site--{source.replace('/', '--')}.png")
