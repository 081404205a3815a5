"""Hints that teach: the concept, then a nudge without code, then the labelled formula.

Hint 1 and hint 2 of every exercise, every diagnosis explanation and every nudge
must not hand over solving code: no products, assignments, numpy calls, slices or
formulas written as code. The formula and the expected values belong to the third,
labelled reveal (`Exercise.formula`).
"""
import re

import pytest

from attnlib import checks
from attnlib.checks import diagnoses

# What code looks like in a sentence: a matrix product, numpy, an assignment or equation, a power,
# a transpose, a slice, a square root, or a call written as name(args).
CODE = re.compile(r"@|\bnp\.|\bnumpy\.|[\w\])]\s*[-+*/]?=\s*[\w(\[-]|\*\*|\w\.T\b|\[[^\]]*:[^\]]*\]|sqrt|√"
                  r"|\b[a-zA-Z_]\w*\([^)]*[a-zA-Z0-9_][^)]*\)")


def code_in(text):
    return [m.group(0) for m in CODE.finditer(text)]


def test_the_pattern_finds_code_and_lets_words_through():
    assert code_in("the product is x @ W")
    assert code_in("K_new = np.vstack([K_cache, k])")
    assert code_in("use X.T here") and code_in("take M[:, h*d:(h+1)*d]") and code_in("divide by sqrt(d)")
    assert code_in("call softmax(S, axis=0)")
    assert not code_in("Look at which axis your sum runs over, and at the shape (n, d) of the result.")
    assert not code_in("Compare the rows of your output with the rows of V (the values).")


EXERCISES = list(checks.EXERCISES.values())


@pytest.mark.parametrize("ex", EXERCISES, ids=[ex.name for ex in EXERCISES])
def test_hints_one_and_two_hold_no_code(ex):
    assert ex.hint1 and ex.hint2 and ex.formula, ex.name
    assert not code_in(ex.hint1), (ex.name, "hint1", code_in(ex.hint1))
    assert not code_in(ex.hint2), (ex.name, "hint2", code_in(ex.hint2))
    assert ex.hint2 != ex.formula


@pytest.mark.parametrize("table", ["DIAGNOSES", "NUDGES"])
def test_diagnoses_and_nudges_hold_no_code(table):
    found = {k: code_in(v) for k, v in getattr(diagnoses, table).items() if code_in(v)}
    assert not found, found
