"""Hints that teach: the concept, then a nudge without code, then the labelled formula.

Hint 1 and hint 2 of every exercise, every diagnosis explanation and every nudge
must not hand over solving code: no products, assignments, numpy calls, slices or
formulas written as code. The formula and the expected values belong to the third,
labelled reveal (`Exercise.formula`).

A diagnosis explanation is shown before any hint is opened, so it says what is
wrong and never how to fix it: no instruction (a clause that starts with a verb such
as reshape, swap, divide or use) and no recipe such as "X comes first".
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


# An instruction: a clause that opens with a verb of the fixing kind. Only the explanations outside the learner's
# code may instruct: restarting the kernel, replacing the stub.
FIX_VERBS = ("reshape swap transpose subtract divide multiply add append use compute centre center start scale round "
             "walk move mask put work keep skip leave return handle recompute pair build take apply normalise "
             "normalize sum average remove replace write check look print set give make call pick drop shift clip "
             "restart run").split()
INSTRUCTION = re.compile(r"(?:^|[.:;!?]\s+|,\s+(?:then|and|or)\s+|\bthen\s+)(" + "|".join(FIX_VERBS) + r")\b"
                         r"|\b(?:comes first|then swap)\b", re.I)
MAY_INSTRUCT = {"not-attempted", "grader-modified"}


def instructions_in(text):
    return [m.group(0).strip(" .:;,") for m in INSTRUCTION.finditer(text)]


def test_the_instruction_pattern_finds_fixes_and_lets_findings_through():
    assert instructions_in("The heads were split with a plain reshape. Reshape to (n, n_heads, d_head) and then "
                           "swap the first two axes.")
    assert instructions_in("The row vector meets W1 first and W2 second, so W1 comes first in the product.")
    assert instructions_in("The mask was applied after the softmax. Mask the scores, then take the softmax.")
    assert instructions_in("Every row was divided by n, but row i mixes only i + 1 rows: divide by i + 1.")
    assert not instructions_in("The mask was applied after the softmax, so the kept weights no longer sum to 1.")
    assert not instructions_in("You used the mean of all rows instead of the last row, and returned it.")


def test_explanations_say_what_is_wrong_not_how_to_fix_it():
    found = {k: instructions_in(v) for k, v in diagnoses.DIAGNOSES.items()
             if k not in MAY_INSTRUCT and instructions_in(v)}
    assert not found, found
