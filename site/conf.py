"""Sphinx configuration for the course's static website (`make site`).

site/build.py stages the sources (this folder's index.md, notebooks/ and exercises/, each exercise with a
"how to run it" note) under artifacts/site-src/ and runs sphinx-build with this folder as its conf dir.
Nothing is executed: every page shows the outputs stored in the notebooks. Nothing is fetched either:
MathJax is a local copy (the pinned npm package, staged by build.py), the theme is Sphinx's own
alabaster, and myst-nb's ipywidgets scripts (a CDN) are off, so an explorer shows its static snapshot.
"""
import pathlib

from attnlib.course import EXERCISE_LESSONS, LESSONS, course_map

project = "Rediscovering Attention"
author = "the course's authors"
copyright = "the course's authors, MIT licence"

extensions = ["myst_nb"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build"]

# notebooks are shown with the outputs they store, never re-run
nb_execution_mode = "off"
# an explorer's output holds the live widget view (useless without a kernel) and an HTML snapshot of its
# panels: the snapshot is shown, the widget view never
nb_mime_priority_overrides = [("*", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js = {}  # myst-nb would load require.js and the widget manager from a CDN
nb_output_stderr = "remove"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

# maths: MathJax 3 from the pinned npm package, staged into _static/mathjax/ by build.py; Sphinx adds its
# script only to the pages that contain maths
mathjax_path = "mathjax/tex-chtml.js"
mathjax3_config = {"options": {"enableMenu": False}}

pygments_style = "xcode"  # every token colour reaches 4.5:1 on its background (WCAG AA)
html_theme = "alabaster"
html_title = project
html_static_path = ["_static", str(pathlib.Path(__file__).resolve().parents[1] / "artifacts" / "site-mathjax")]
html_css_files = ["site.css"]
html_theme_options = {"description": "attention, rebuilt from x' = Wx in numpy", "show_powered_by": False,
                      "extra_nav_links": {}}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}


def _toctree(caption, paths):
    lines = "\n".join(paths)
    return f"\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{lines}\n```\n"  # no caption: Sphinx gives it no aria-level


def insert_course_map(app, docname, source):
    """index.md's `<!-- course map -->` becomes the course map of attnlib.course, and the page lists every
    lesson and exercise for the navigation, in course order (the order is never restated here)."""
    if docname != "index":
        return
    extra = sorted(p.stem for p in (pathlib.Path(app.srcdir) / "notebooks").glob("*.ipynb")
                   if p.stem not in {les.stem for les in LESSONS})
    toc = _toctree("Lessons", [f"notebooks/{les.stem}" for les in LESSONS] + [f"notebooks/{s}" for s in extra])
    toc += _toctree("Exercises", [f"exercises/{les.stem}" for les in EXERCISE_LESSONS])
    source[0] = source[0].replace("<!-- course map -->", course_map("readme") + "\n" + toc)


def setup(app):
    app.connect("source-read", insert_course_map)
