"""axe-core in the browser tests: inject the pinned npm package (.node/site/, installed by `make site-js`), run it
on a page or on parts of it, and keep the serious and critical violations.

    found = a11y.axe(page, include=[".jp-OutputArea-output"])   # [{id, impact, help, nodes: [...]}]
    found = a11y.axe_scrolled(page, ".jp-OutputArea-output")    # each output brought into view first
    a11y.describe(found)                                        # one line per rule, for an assertion message
"""
from helpers import unavailable
from jlab import ROOT

AXE = ROOT / ".node" / "site" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def axe_script():
    if not AXE.exists():
        unavailable(f"the accessibility tests need axe-core at {AXE.relative_to(ROOT)} (run `make site-js`)")
    return AXE.read_text(encoding="utf-8")


def axe(page, include=None, impacts=SERIOUS):
    """axe's violations of the given impacts on the page (or inside the elements matching `include`,
    a list of CSS selectors). Each: {id, impact, help, nodes: [{target, html, summary}]}."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(content=axe_script())
    return page.evaluate("""async ([include, impacts]) => {
        const context = include ? {include: include.filter(s => document.querySelector(s)).map(s => [s])} : document;
        if (include && !context.include.length) return [];
        const result = await axe.run(context, {resultTypes: ['violations']});
        return result.violations.filter(v => impacts.includes(v.impact)).map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                                      summary: (n.failureSummary || '').slice(0, 300)}))}));
    }""", [include, list(impacts)])


def axe_scrolled(page, selector, impacts=SERIOUS):
    """axe on every element matching `selector`, each scrolled into view first (a tall one in steps of
    most of a screen): colour contrast is only measured on what is on screen, and JupyterLab scrolls the
    notebook inside its own panel. Violations of the same rule on the same node are counted once."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(content=axe_script())
    return page.evaluate("""async ([selector, impacts]) => {
        const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        const scroller = el => {
            for (let p = el.parentElement; p; p = p.parentElement) {
                const style = getComputedStyle(p);
                if (p.scrollHeight > p.clientHeight + 1 && /(auto|scroll)/.test(style.overflowY)) return p;
            }
            return document.scrollingElement;
        };
        // JupyterLab's outermost container is 0 px high with overflow hidden (the shell inside it is
        // positioned absolutely): axe would take everything in it for clipped and measure no contrast.
        // Let it overflow while axe runs; nothing moves on screen.
        const unclipped = [];
        const first = document.querySelector(selector);
        for (let p = first && first.parentElement; p; p = p.parentElement) {
            const style = getComputedStyle(p);
            if (p.getBoundingClientRect().height === 0 && style.overflow !== 'visible') {
                unclipped.push([p, p.style.overflow]);
                p.style.overflow = 'visible';
            }
        }
        const found = new Map();
        for (const el of document.querySelectorAll(selector)) {
            el.scrollIntoView({block: 'start'});
            const box = scroller(el);
            for (let step = 0; step < 30; step++) {
                await frame();
                const result = await axe.run(el, {resultTypes: ['violations']});
                for (const v of result.violations.filter(v => impacts.includes(v.impact))) {
                    if (!found.has(v.id)) found.set(v.id, {id: v.id, impact: v.impact, help: v.help, nodes: new Map()});
                    for (const n of v.nodes) found.get(v.id).nodes.set(n.target.join(' '), {
                        target: n.target.join(' '), html: n.html.slice(0, 200),
                        summary: (n.failureSummary || '').slice(0, 300)});
                }
                const rect = el.getBoundingClientRect(), view = box.getBoundingClientRect();
                if (rect.bottom <= Math.min(view.bottom, innerHeight) + 1) break;
                const before = box.scrollTop;
                box.scrollTop += Math.max(100, 0.8 * Math.min(view.height, innerHeight));
                if (box.scrollTop === before) break;
            }
        }
        unclipped.forEach(([p, overflow]) => { p.style.overflow = overflow; });
        return [...found.values()].map(v => ({...v, nodes: [...v.nodes.values()]}));
    }""", [selector, list(impacts)])


def count(found):
    return sum(len(v["nodes"]) for v in found)


def describe(found, limit=3):
    return "; ".join(f"{v['id']} ({v['impact']}, {len(v['nodes'])} node(s)): {v['help']}; e.g. "
                     + " | ".join(f"{n['html']} {n['summary']}" for n in v["nodes"][:limit]) for v in found)
