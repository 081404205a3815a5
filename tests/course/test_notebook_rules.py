"""The notebook rules, for every narrative notebook.

nbval proves that stored outputs reproduce; these tests check what nbval cannot:
the skeleton every notebook follows, and the stored-output rules (executed cells,
no stderr, no raw numpy scalars, widget and timing cells marked for nbval).
The claims each notebook makes are tested in tests/notebooks/, one file per lesson.
"""
import re

import pytest

from attnlib.course import LESSONS, STEMS
from helpers import ROOT, SETUP_LINES, code_lines, output_ignored
from helpers import load_notebook as load

NOTEBOOKS = list(STEMS)
EXPLORERS = {les.stem: les.explorers for les in LESSONS if les.explorers}


def test_every_narrative_notebook_is_covered():
    on_disk = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert on_disk == NOTEBOOKS


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_skeleton(stem):
    nb = load(stem)
    cells, md = nb.cells, [c.source for c in nb.cells if c.cell_type == "markdown"]
    low = 20 if stem.startswith("00") else 25  # the start page is a map, not a lesson
    assert low <= len(cells) <= 45, f"{stem} has {len(cells)} cells"
    first_code = next(c for c in cells if c.cell_type == "code")
    assert code_lines(first_code) == SETUP_LINES
    assert md[0].startswith(f"# {stem[:2]} · ")
    assert re.search(r"\*\*What you will (rediscover|find here)\*\*", md[0])
    assert 2 <= len(re.findall(r"^- ", md[0], flags=re.M)) <= 4
    questions = [s for s in md if s.startswith("## Check your intuition")]
    details = [s for s in md if "<details>" in s]
    assert len(questions) == 1 and len(details) == 1 and "</details>" in details[0]
    n_questions = len(re.findall(r"^\d\. ", questions[0], flags=re.M))
    assert 3 <= n_questions <= 5
    assert len(re.findall(r"^\d\. ", details[0], flags=re.M)) == n_questions, "one answer per question"
    assert any(s.startswith("## Recap") for s in md)
    if not stem.startswith("00"):
        assert any(s.startswith("## Recap") and "**The one equation:**" in s and "**The one picture:**" in s
                   for s in md)
        assert f"../exercises/{stem}.ipynb" in md[-1], "the last cell points to the exercise notebook"
        assert (ROOT / "exercises" / f"{stem}.ipynb").exists()


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_stored_output_rules(stem):
    nb = load(stem)
    assert nb.metadata.kernelspec.name == "python3"
    assert "widgets" not in nb.metadata
    explorers, asserts = [], 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert len(code_lines(cell)) <= 15, f"cell {i} is too long"
        assert not any(l.rstrip().endswith(";") for l in cell.source.splitlines()), f"cell {i} ends with ;"
        asserts += len(re.findall(r"^\s*assert ", cell.source, flags=re.M))
        found = re.findall(r"widgets\.(\w+_explorer)\(", cell.source)
        if found:
            explorers += found
            assert output_ignored(cell), f"widget cell {i} is not marked"
        if re.search(r"perf_counter|tracemalloc", cell.source) and "print(" in cell.source:
            assert output_ignored(cell), f"timing cell {i} is not marked"
        assert cell.execution_count is not None, f"cell {i} has not been executed"
        for out in cell.outputs:
            assert out.get("name") != "stderr", f"cell {i} wrote to stderr"
            assert out.output_type != "error", f"cell {i} stored an error"
            text = out.get("text", "") + out.get("data", {}).get("text/plain", "")
            assert "np.float64(" not in text and "np.int64(" not in text, f"cell {i} printed a raw numpy scalar"
            assert "http://" not in str(out) and "https://" not in str(out), f"cell {i} refers to the network"
    if stem in EXPLORERS:  # every lesson has its explorers and asserts what it claims
        assert set(EXPLORERS[stem]) <= set(explorers), f"{stem} opens {explorers}, the course lists {EXPLORERS[stem]}"
        assert asserts >= 10, f"{stem} asserts only {asserts} claims"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_links_between_notebooks_resolve(stem):
    md = "\n".join(c.source for c in load(stem).cells if c.cell_type == "markdown")
    links = re.findall(r"\]\(([^)#]+\.ipynb)\)", md)
    assert links
    for link in links:
        assert (ROOT / "notebooks" / link).resolve().exists(), link


def test_every_lesson_has_its_notebook_title_and_numbering():
    for les in LESSONS:
        heading = load(les.stem).cells[0].source.splitlines()[0]
        assert heading.startswith(f"# {les.number} · "), heading
