"""pyplot's figures in a notebook get alternative text: viz's HTML view beside the PNG, from the first figure on.

matplotlib's inline backend drops every formatter registered for Figure when it is set up, in the middle of the cell
that draws the first figure; this runs that sequence in a real kernel."""
import nbformat
from nbclient import NotebookClient


def test_every_pyplot_figure_has_an_img_with_alt_text_even_the_first():
    nb = nbformat.v4.new_notebook()
    cells = ["from attnlib.viewers import viz", "import matplotlib.pyplot as plt",
             "fig, ax = plt.subplots()\nax.plot([1, 2])\nax.set_title('first')\nplt.show()",
             "fig, ax = plt.subplots()\nax.plot([1, 3])\nax.set_title('second')\nplt.show()"]
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    figures = [o.data for c in nb.cells for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 2
    for data, title in zip(figures, ("first", "second")):
        assert "text/html" in data, list(data)
        assert f'alt="figure: {title}' in data["text/html"], data["text/html"][:200]
