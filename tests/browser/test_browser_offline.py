"""Offline proof: every request the pages made went to the local JupyterLab server.

Runs after the notebook and exercise tests (files run in name order) and checks
everything recorded in the session, including loading JupyterLab itself: no CDN,
no web fonts, no analytics. Run alone, it checks a plain JupyterLab load.
"""
import collections

from jlab import REQUESTS, ROOT


def test_the_recorder_sees_a_foreign_request(browser_context, lab):
    """The proof below can fail: a page that reaches for a CDN is recorded as foreign.
    (The request is aborted before it leaves the machine, and then forgotten.)"""
    first = len(REQUESTS)
    tab = browser_context.new_page()
    try:
        tab.route("http://192.0.2.1/**", lambda route: route.abort())  # TEST-NET-1, never routed
        tab.set_content("<p>probe</p>")  # a blank page: the server's CSP would block the fetch
        tab.evaluate("() => fetch('http://192.0.2.1/font.woff2').catch(() => null)")
        tab.wait_for_timeout(200)
        seen = [url for _, url in REQUESTS[first:] if not lab.is_local(url)]
        assert seen == ["http://192.0.2.1/font.woff2"], seen
    finally:
        tab.close()
        del REQUESTS[first:]


def test_every_request_stayed_on_the_local_server(page, lab):
    assert REQUESTS, "no request was recorded: the recorder is not attached"
    foreign = [(kind, url) for kind, url in REQUESTS if not lab.is_local(url)]
    fonts = [url for kind, url in REQUESTS if kind == "font"]
    log = ROOT / "artifacts" / "browser-requests.txt"
    log.write_text("".join(f"{kind}\t{url}\n" for kind, url in REQUESTS), encoding="utf-8")
    assert not foreign, f"{len(foreign)} request(s) left 127.0.0.1:{lab.port}: {foreign[:10]}"
    assert all(lab.is_local(url) for url in fonts)
    counts = collections.Counter(kind for kind, _ in REQUESTS)
    print(f"\n{len(REQUESTS)} requests, all to 127.0.0.1:{lab.port}: " +
          ", ".join(f"{n} {kind}" for kind, n in counts.most_common()) + f" ({len(fonts)} fonts, all local)")
