"""TinyLM(ops=...) and check("capstone", ops): the learner's functions inside the model.

The reference for the ops path is TinyLM's own batched engine (attnlib/backprop.py), a
different implementation: the two must agree on logits, loss, every gradient and the
generated tokens. The op functions used here are the learner-style numpy ones of
tests/mutants/capstone.py, written without attnlib.
"""
import pathlib

import numpy as np
import pytest

from attnlib import TinyLM
from attnlib.checks import CheckFailed, check, my_functions
from attnlib.ops import OPS
from mutants import capstone as learner

ROOT = pathlib.Path(__file__).resolve().parent.parent


def pair(ops, **kw):
    args = dict(vocab_size=11, d_model=8, n_heads=2, n_layers=2, max_len=7, seed=3, **kw)
    return TinyLM(**args), TinyLM(**args, ops=ops)


def batch(seed=0, B=3, T=6):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 11, (B, T)), rng.integers(0, 11, (B, T))


@pytest.mark.parametrize("ops", [{}, learner.ALL], ids=["attnlib ops", "learner ops"])
def test_the_ops_path_equals_the_batched_engine(ops):
    ref, mine = pair(ops)
    tokens, targets = batch()
    np.testing.assert_allclose(mine.forward(tokens), ref.forward(tokens), rtol=1e-10, atol=1e-12)
    (l0, g0), (l1, g1) = ref.loss_and_grads(tokens, targets), mine.loss_and_grads(tokens, targets)
    assert abs(l0 - l1) < 1e-12
    for key in g0:
        np.testing.assert_allclose(g1[key], g0[key], rtol=1e-8, atol=1e-12, err_msg=key)
    prompt = np.array([1, 4])
    assert np.array_equal(mine.generate(prompt, 5), ref.generate(prompt, 5))
    assert np.array_equal(mine.generate(prompt, 5, use_cache=False), ref.generate(prompt, 5))
    rng = (np.random.default_rng(7), np.random.default_rng(7))
    assert np.array_equal(mine.generate(prompt, 5, temperature=0.8, rng=rng[0]),
                          ref.generate(prompt, 5, temperature=0.8, rng=rng[1]))


def test_ignored_targets_and_a_non_causal_model_follow_the_engine():
    ref, mine = pair(learner.ALL, causal=False)
    tokens, targets = batch(1)
    targets[:, :2] = -1
    (l0, g0), (l1, g1) = ref.loss_and_grads(tokens, targets), mine.loss_and_grads(tokens, targets)
    assert abs(l0 - l1) < 1e-12 and all(np.allclose(g0[k], g1[k], rtol=1e-8, atol=1e-12) for k in g0)


def test_a_given_softmax_is_used_inside_attnlibs_attention():
    calls = []

    def counting_softmax(S, axis=-1):
        calls.append(S.shape)
        return learner.softmax(S, axis)

    _, mine = pair({"softmax": counting_softmax})
    mine.forward(np.arange(5))
    assert len(calls) == 2 * 2  # one call per head per layer
    assert calls[0] == (5, 5)


def test_bad_ops_get_a_clear_error():
    with pytest.raises(ValueError, match="unknown names \\['softmaxx'\\]"):
        pair({"softmaxx": learner.softmax})
    with pytest.raises(ValueError, match="ops\\['gelu'\\] must be a function"):
        pair({"gelu": 3})
    with pytest.raises(ValueError, match="ops must be a dict"):
        pair([learner.softmax])
    _, mine = pair({"layer_norm": lambda X, g, b, eps=1e-5: X[:, :-1]})
    with pytest.raises(ValueError, match="layer_norm returned shape \\(6, 7\\), the model needs \\(6, 8\\)"):
        mine.forward(np.arange(6))
    _, mine = pair({})
    with pytest.raises(ValueError, match="generates through your cache_step"):
        mine.step(np.arange(2), mine.new_cache())


@pytest.mark.parametrize("expected, ops", learner.WRONG["capstone"],
                         ids=[e for e, _ in learner.WRONG["capstone"]])
def test_the_capstone_names_the_op_that_parts_the_runs(expected, ops):
    broken = {"op-changes-loss": ("gelu", "layer_norm_backward"), "op-changes-generation": ("cache_step",),
              "op-raised": ("cross_entropy",)}[expected]
    with pytest.raises(CheckFailed) as info:
        check("capstone", ops)
    assert info.value.diagnosis == expected
    first = info.value.report.problems[0]
    assert any(first.startswith(f"your {name} alone") for name in broken), first


def test_the_capstone_is_not_attempted_without_ops_and_refuses_a_wrong_type():
    assert check("capstone", {}).status == "not-attempted"
    with pytest.raises(CheckFailed) as info:
        check("capstone", learner.softmax)
    assert info.value.diagnosis == "wrong-type"


def test_my_functions_reads_written_functions_and_skips_stubs(capsys):
    assert my_functions(folder=ROOT / "exercises") == {}
    found = my_functions(folder=ROOT / "solutions")
    assert set(found) == set(OPS)
    assert "yours, from 06_mask_and_softmax.ipynb" in capsys.readouterr().out
    S = np.array([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(found["softmax"](S), learner.softmax(S))


def test_the_capstone_is_graded_again_when_another_exercise_notebook_changes(tmp_path):
    """status caches each notebook's grades by its content; the capstone also reads its neighbours."""
    from attnlib.checks.notebooks import _fingerprint
    capstone, other, plain = tmp_path / "15_capstone.ipynb", tmp_path / "10_block.ipynb", tmp_path / "01_a.ipynb"
    capstone.write_text('{"cells": [{"source": "mine = my_functions()"}]}')
    plain.write_text('{"cells": [{"source": "check(\\"project\\", project)"}]}')
    other.write_text('{"cells": [{"source": "def gelu(X): return X"}]}')
    before = _fingerprint(capstone), _fingerprint(plain)
    other.write_text('{"cells": [{"source": "def gelu(X): return 0.5 * X"}]}')
    assert _fingerprint(capstone) != before[0]  # a learner's change in 10 re-grades the capstone
    assert _fingerprint(plain) == before[1]  # and nothing else
