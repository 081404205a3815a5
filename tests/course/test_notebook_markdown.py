"""Markdown in every notebook renders as prose: no line is accidentally indented into a code block."""
import re

import nbformat
import pytest

from helpers import ROOT

NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises") for p in (ROOT / folder).glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_markdown_line_is_indented_into_a_code_block(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        fenced, previous = False, ""
        for line in cell.source.splitlines():
            if line.strip().startswith("```"):
                fenced = not fenced
            # four spaces after a blank line start a Markdown code block (list continuations are fine)
            if not fenced and re.match(r" {4,}\S", line) and not previous.strip():
                pytest.fail(f"cell {i}: {line.strip()[:60]!r} renders as a code block")
            previous = line
