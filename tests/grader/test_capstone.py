"""TinyLM(ops=...) and check("capstone", ops): the learner's functions inside the model.

The reference for the ops path is TinyLM on attnlib's own batched layers, a different
implementation from the learner-style ops: the two must agree on logits, loss, every gradient and the
generated tokens. The op functions used here are the learner-style numpy ones of
tests/grader/mutants/capstone.py, written without attnlib. The capstone runs each op's own
exercise check before training, so its report names an op that fails it even where training
cannot show the mistake.
"""
import contextlib
import io
import shutil
import subprocess
import sys
import textwrap

import nbformat
import numpy as np
import pytest

import attnlib
from attnlib import TinyLM
from attnlib.checks import CheckFailed, capstone, check, my_functions
from attnlib.learner_ops import NAMES
from attnlib.train import train
from helpers import ROOT
from mutants import capstone as learner


def pair(ops, **kw):
    args = dict(vocab_size=11, d_model=8, n_heads=2, n_layers=2, max_len=7, seed=3, **kw)
    return TinyLM(**args), TinyLM(**args, ops=ops)


def same_training(ref, mine, tokens, targets):
    """The two models' logits, loss and every gradient agree (to rounding)."""
    np.testing.assert_allclose(mine.forward(tokens), ref.forward(tokens), rtol=1e-10, atol=1e-12)
    (l0, g0), (l1, g1) = ref.loss_and_grads(tokens, targets), mine.loss_and_grads(tokens, targets)
    assert abs(l0 - l1) < 1e-12
    for key in g0:
        np.testing.assert_allclose(g1[key], g0[key], rtol=1e-8, atol=1e-12, err_msg=key)


def batch(seed=0, B=3, T=6):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 11, (B, T)), rng.integers(0, 11, (B, T))


@pytest.mark.parametrize("ops", [{}, learner.ALL], ids=["attnlib ops", "learner ops"])
def test_the_learners_ops_give_the_model_of_attnlibs_layers(ops):
    ref, mine = pair(ops)
    same_training(ref, mine, *batch())
    prompt = np.array([1, 4])
    assert np.array_equal(mine.generate(prompt, 5), ref.generate(prompt, 5))
    assert np.array_equal(mine.generate(prompt, 5, use_cache=False), ref.generate(prompt, 5))
    rng = (np.random.default_rng(7), np.random.default_rng(7))
    assert np.array_equal(mine.generate(prompt, 5, temperature=0.8, rng=rng[0]),
                          ref.generate(prompt, 5, temperature=0.8, rng=rng[1]))


def test_ignored_targets_and_a_non_causal_model_follow_attnlibs_layers():
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
    ref, mine = pair(learner.ALL)  # one model, one path: step runs through the learner's cache_step too
    np.testing.assert_allclose(mine.step(np.arange(2), mine.new_cache()), ref.step(np.arange(2), ref.new_cache()),
                               rtol=1e-10, atol=1e-12)


BROKEN = {"gelu-relu": "gelu", "layer-norm-backward-variance-term-missing": "layer_norm_backward",
          "scale-missing": "cache_step", "op-raised": "cross_entropy", "mutates-input": "layer_norm",
          "layer-norm-eps-ignored": "layer_norm"}


@pytest.mark.parametrize("expected, ops", learner.WRONG["capstone"],
                         ids=[e for e, _ in learner.WRONG["capstone"]])
def test_the_capstone_names_the_op_that_fails_its_own_check(expected, ops):
    diagnosis, _, own, _ = failed(ops)
    assert diagnosis == expected
    assert own == [BROKEN[expected]]


def own_diagnosis(name, fn):
    """The id the op's own check gives (it must fail)."""
    with pytest.raises(CheckFailed) as info:
        check(name, fn)
    return info.value.diagnosis


def test_the_capstone_is_not_attempted_without_ops_and_refuses_a_wrong_type():
    assert check("capstone", {}).status == "not-attempted"
    with pytest.raises(CheckFailed) as info:
        check("capstone", learner.softmax)
    assert info.value.diagnosis == "wrong-type"


def test_my_functions_reads_written_functions_and_skips_stubs(capsys):
    assert my_functions(folder=ROOT / "exercises") == {}
    found = my_functions(folder=ROOT / "solutions")
    assert set(found) == set(NAMES)
    assert "yours, from 06_mask_and_softmax.ipynb" in capsys.readouterr().out
    S = np.array([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(found["softmax"](S), learner.softmax(S))


def test_the_capstone_is_graded_again_when_another_exercise_notebook_changes(tmp_path):
    """status (and grading/) cache each notebook's grades by its content; the capstone also reads its neighbours."""
    from attnlib.course.workspace import grade_key as _fingerprint
    capstone, other, plain = tmp_path / "15_capstone.ipynb", tmp_path / "10_block.ipynb", tmp_path / "01_a.ipynb"
    capstone.write_text('{"cells": [{"source": "mine = my_functions()"}]}')
    plain.write_text('{"cells": [{"source": "check(\\"project\\", project)"}]}')
    other.write_text('{"cells": [{"source": "def gelu(X): return X"}]}')
    before = _fingerprint(capstone), _fingerprint(plain)
    other.write_text('{"cells": [{"source": "def gelu(X): return 0.5 * X"}]}')
    assert _fingerprint(capstone) != before[0]  # a learner's change in 10 re-grades the capstone
    assert _fingerprint(plain) == before[1]  # and nothing else


# ---------------------------------------------------------------------------
# the capstone names the op whose own check fails

def softmax_axis0(S, axis=-1):
    """Normalises every column, whatever axis says."""
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)


def cross_entropy_gradient_not_divided(logits, targets):
    """The right loss; the gradient of the summed loss instead of the mean (Adam hides most of the factor n)."""
    n = len(targets)
    P = learner.softmax(logits)
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1
    return -np.mean(np.log(P[np.arange(n), targets])), dlogits


def failed(ops):
    """(diagnosis, the op named alone in attnlib's model or None, the ops failing their own check, problems) of a
    failing capstone. The op alone comes first, then the lines for the ops failing their own check."""
    with pytest.raises(CheckFailed) as info:
        check("capstone", ops)
    problems = info.value.report.problems
    alone = [p.split()[1] for p in problems if p.startswith("your ") and " alone, in attnlib's model" in p]
    assert len(alone) <= 1 and all(" alone, in attnlib's model" in p for p in problems[:len(alone)]), problems
    own = [p.split()[1] for p in problems if " does not pass its own check (" in p]
    assert all(" does not pass its own check (" in p for p in problems[len(alone):len(alone) + len(own)]), problems
    return info.value.diagnosis, (alone or [None])[0], own, problems


def attnlibs_softmax_wrapped(S, axis=-1):
    """Right values, but attnlib's softmax: its own check says uses-attnlib, and the capstone reports that too."""
    return attnlib.softmax(S, axis)


def named(ops):
    """(diagnosis, the op named alone, problems), where one op alone parts the runs."""
    diagnosis, name, _, problems = failed(ops)
    assert name, problems
    return diagnosis, name, problems


def line(problems, start):
    return next(p for p in problems if p.startswith(start))


@pytest.mark.parametrize("ops", [{"softmax": softmax_axis0}, {**learner.ALL, "softmax": softmax_axis0}],
                         ids=["alone", "beside an attention with its own softmax"])
def test_a_softmax_over_the_wrong_axis_is_named_even_when_the_model_never_calls_it(ops):
    diagnosis, name, problems = named(ops)
    assert (diagnosis, name) == ("softmax-wrong-axis", "softmax")  # the id of the op's own check
    assert problems[1].startswith("your softmax does not pass its own check (06_mask_and_softmax.ipynb): "
                                  "softmax-wrong-axis — "), problems
    assert "from step 0" in line(problems, "your softmax alone")


def test_a_short_run_is_the_start_of_the_full_one():
    """Isolation runs stop early but keep the full run's schedule; the full run is attnlib's train()."""
    t = capstone.task()
    model = TinyLM(len(t.tokenizer), **capstone.MODEL)
    expected = train(model, t, capstone.STEPS, lr=capstone.LR, batch_size=capstone.BATCH, seed=0,
                     warmup=capstone.WARMUP, progress=False)
    full = capstone.run({})[0]
    np.testing.assert_allclose(full, expected, rtol=1e-13)
    for stop in (1, 8, 17):
        np.testing.assert_array_equal(capstone.run({}, stop=stop)[0], full[:stop])


@pytest.mark.parametrize("ops", [
    {"cross_entropy": cross_entropy_gradient_not_divided},
    {"softmax": learner.softmax, "cross_entropy": cross_entropy_gradient_not_divided},
    {"gelu": learner.gelu, "cross_entropy": cross_entropy_gradient_not_divided},
    {"softmax": attnlibs_softmax_wrapped, "cross_entropy": cross_entropy_gradient_not_divided},
], ids=["alone", "beside softmax", "beside gelu", "beside attnlib's softmax, wrapped"])
def test_a_late_parting_cross_entropy_is_named_beside_correct_ops(ops):
    diagnosis, name, own, problems = failed(ops)
    assert name == "cross_entropy" and diagnosis == own_diagnosis("cross_entropy", cross_entropy_gradient_not_divided)
    assert "cross-entropy-gradient-not-averaged" in diagnosis
    assert own[0] == "cross_entropy"  # the op that parts the runs first, then any other op failing its own check
    assert own[1:] == (["softmax"] if ops.get("softmax") is attnlibs_softmax_wrapped else [])  # uses-attnlib
    step = int(line(problems, "with all your ops").split("from step ")[1].split(":")[0])
    assert step > 5, problems  # it parts after the warm-up: the schedule matters
    assert f"from step {step}:" in line(problems, "your cross_entropy alone")  # alone, it parts where all part
    for other in set(ops) - {"cross_entropy"}:
        assert capstone.difference(capstone.run({other: ops[other]}), capstone.run({})) == ""


# ---------------------------------------------------------------------------
# the learner's notebooks make one model: their block calls their heads, which call their attention

@pytest.fixture(scope="module")
def broken_attention_notebooks(tmp_path_factory):
    """Copies of the solutions notebooks, with exercise 07's attention forgetting its mask."""
    folder = tmp_path_factory.mktemp("notebooks")
    for path in (ROOT / "solutions").glob("*.ipynb"):
        shutil.copy(path, folder)
    nb = nbformat.read(folder / "07_attention_module.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.source.startswith("def attention("))
    cell.source = cell.source.replace("if causal:", "if False:  # the mask forgotten")
    assert "forgotten" in cell.source
    nbformat.write(nb, folder / "07_attention_module.ipynb")
    return folder


def test_my_functions_links_the_block_to_the_learners_heads_and_attention(broken_attention_notebooks, capsys):
    mine = my_functions(folder=broken_attention_notebooks)
    out = capsys.readouterr().out
    assert "transformer_block yours, from 10_block.ipynb, with your multi_head_attention" in " ".join(out.split())
    assert "with your attention as its attend" in out
    p = TinyLM(11, d_model=8, n_heads=2, n_layers=1, max_len=6, seed=1).block_params(0)
    X = np.random.default_rng(0).normal(size=(6, 8))
    mha = attnlib.multi_head_attention(attnlib.layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"],
                                       p["Wo"], 2, causal=False)  # what a block without a mask computes
    Y = X + mha
    Z = Y + attnlib.gelu(attnlib.layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    np.testing.assert_allclose(mine["transformer_block"](X, p, 2), Z, rtol=1e-10, atol=1e-12)


def test_a_broken_attention_among_all_the_learners_ops_parts_the_loss_at_step_0(broken_attention_notebooks):
    with contextlib.redirect_stdout(io.StringIO()):
        mine = my_functions(folder=broken_attention_notebooks)
    assert set(mine) == set(NAMES)
    diagnosis, name, own, problems = failed(mine)
    assert name == "attention" and own[0] == "attention"  # their heads and block run it, and fail their checks too
    assert set(own) == {"attention", "multi_head_attention", "transformer_block"}, own
    assert diagnosis == own_diagnosis("attention", mine["attention"])
    assert line(problems, "with all your ops").startswith("with all your ops: the loss differs from step 0:")


# ---------------------------------------------------------------------------
# what the report says is true: the tolerance it passed within, and where a generation-only difference lies

def softmax_float32(S, axis=-1):
    S = S.astype(np.float32)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def test_a_float32_softmax_passes_within_the_stated_tolerance_not_as_equal():
    report = check("capstone", {"softmax": softmax_float32})
    assert report.passed and "equal to attnlib's" not in report.summary
    runs = []
    for ops in ({}, {"softmax": softmax_float32}):  # the capstone's runs, made again with attnlib's train()
        t = capstone.task()
        model = TinyLM(len(t.tokenizer), ops=ops, **capstone.MODEL)
        runs.append(np.array(train(model, t, capstone.STEPS, lr=capstone.LR, batch_size=capstone.BATCH, seed=0,
                                   warmup=capstone.WARMUP, progress=False)))
    gap = np.max(np.abs(runs[1] - runs[0]) / runs[0])
    assert 1e-12 < gap < capstone.RTOL == 1e-6 and abs(runs[1][0] - runs[0][0]) > 0  # apart from step 0 on
    assert f"within a relative 1e-06 of attnlib's at every step (the largest gap is {gap:.0e})" in report.summary
    exact = check("capstone", learner.ALL).summary  # float64 ops: their gap is rounding, and its digits are not shown
    assert "within a relative 1e-06 of attnlib's at every step (the largest gap is below 1e-12)" in exact


def embed_positions_from_the_end(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]  # the last n position rows instead of the first n


def test_training_rows_are_shorter_than_the_model_so_a_wrong_embed_parts_the_loss_at_step_0():
    assert capstone.task().seq_len < capstone.MODEL["max_len"]
    diagnosis, name, problems = named({"embed": embed_positions_from_the_end})
    assert (diagnosis, name) == ("positions-from-the-end", "embed")
    assert "the loss differs from step 0" in line(problems, "your embed alone")


def layer_norm_one_row_unnormalised(X, g, b, eps=1e-5):
    if len(X) == 1:  # "one row has no statistics": generation's single new token is left as it is
        return X * g + b
    return learner.layer_norm(X, g, b, eps)


def test_a_difference_only_in_generation_is_pinned_on_the_op_that_makes_it():
    assert check("layer_norm", layer_norm_one_row_unnormalised).passed  # its own check has no one-row probe
    diagnosis, name, problems = named({"layer_norm": layer_norm_one_row_unnormalised, "cache_step": learner.cache_step})
    assert (diagnosis, name) == ("op-changes-generation", "layer_norm")
    advice = problems[-1]
    assert "your layer_norm" in advice and "10_block.ipynb" in advice and "cache_step" not in advice
    with pytest.raises(CheckFailed) as info:
        check("capstone", {"layer_norm": layer_norm_one_row_unnormalised})
    hint = info.value.report.hint2
    assert "the function the report names" in hint and "Look at the functions only generation uses" not in hint
    with pytest.raises(CheckFailed) as info:  # the cache step is only ever called by generation
        check("capstone", learner.WRONG["capstone"][2][1])
    assert "training never calls your cache_step" in info.value.report.problems[-1]


# ---------------------------------------------------------------------------
# what training cannot show, each op's own check does: Adam rescales every gradient, and an input changed in place
# may never be read again

def layer_norm_backward_dg_doubled(X, g, dY, eps=1e-5):
    dX, dg, db = learner.layer_norm_backward(X, g, dY, eps)
    return dX, 2 * dg, db


def layer_norm_backward_dg_doubled_off_the_model(X, g, dY, eps=1e-5):
    """dg doubled, except at the model's width: a stand-in for a mistake training cannot see."""
    dX, dg, db = learner.layer_norm_backward(X, g, dY, eps)
    return dX, dg if X.shape[1] == capstone.MODEL["d_model"] else 2 * dg, db


@pytest.mark.parametrize("ops", [{"layer_norm_backward": layer_norm_backward_dg_doubled},
                                 learner._with(layer_norm_backward=layer_norm_backward_dg_doubled)],
                         ids=["alone", "among all the ops"])
def test_a_gradient_off_by_a_constant_factor_is_named_by_its_own_check(ops):
    own_id = own_diagnosis("layer_norm_backward", layer_norm_backward_dg_doubled)
    diagnosis, name, own, problems = failed(ops)
    assert own == ["layer_norm_backward"] and name == "layer_norm_backward"
    assert diagnosis == own_id == "layer-norm-backward-dg-sum-doubled"  # the own check's fit of dg's term
    assert problems[1].startswith("your layer_norm_backward does not pass its own check (11_next_token.ipynb): ")
    assert "(see the grid)" not in problems[1]  # that grid is in the op's own report, not in this one


def test_an_op_failing_its_own_check_fails_the_capstone_where_training_agrees():
    ops = {"layer_norm_backward": layer_norm_backward_dg_doubled_off_the_model}
    assert capstone.difference(capstone.run(ops), capstone.run({})) == ""  # training cannot see it
    own_id = own_diagnosis("layer_norm_backward", layer_norm_backward_dg_doubled_off_the_model)
    diagnosis, name, own, problems = failed(ops)
    assert (own, name) == (["layer_norm_backward"], None)
    assert diagnosis == own_id == "layer-norm-backward-dg-sum-doubled"
    assert problems[1].startswith("with all your ops, training does not show it: they trained the model: loss ")


@pytest.mark.parametrize("expected, wrong", [("mutates-input", learner.layer_norm_centres_in_place),
                                             ("layer-norm-eps-ignored", learner.layer_norm_eps_ignored)])
def test_a_layer_norm_training_cannot_tell_apart_is_named_by_its_own_check(expected, wrong):
    ops = learner._with(layer_norm=wrong)
    assert capstone.difference(capstone.run(ops), capstone.run({})) == ""  # training cannot see it
    diagnosis, name, own, problems = failed(ops)
    assert (diagnosis, name, own) == (expected, None, ["layer_norm"])
    assert problems[0].startswith(f"your layer_norm does not pass its own check (10_block.ipynb): {expected} — ")
    with pytest.raises(CheckFailed) as info:
        check("capstone", ops)
    assert "layer_norm" in info.value.report.hint2  # the nudge of the op's own check, where to look


@pytest.mark.parametrize("ops", learner.RIGHT["capstone"], ids=lambda ops: "+".join(sorted(ops))[:40])
def test_right_ops_pass_their_own_checks_and_the_capstone(ops):
    report = check("capstone", ops)
    assert report.passed and f"your {len(ops)} ops ({', '.join(ops)}) each pass their own check" in report.summary


def test_the_own_checks_reports_are_not_displayed_only_the_capstones():
    """In a notebook a failing check displays its report: the capstone shows one report, its own."""
    script = textwrap.dedent("""
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        from IPython.utils.capture import capture_output
        sys.path.insert(0, "tests/grader")
        from attnlib.checks import CheckFailed, check
        from mutants import capstone as learner
        InteractiveShell.instance()
        with capture_output() as shown:
            try:
                check("capstone", learner._with(layer_norm=learner.layer_norm_centres_in_place))
            except CheckFailed:
                pass
        print([o.data["text/html"].split('data-exercise="')[1].split('"')[0] for o in shown.outputs])
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1:] == ["['capstone']"], out.stdout + out.stderr


# ---------------------------------------------------------------------------
# the learner's rope: it turns q and k in a model with positions="rope", and the capstone trains that model too

def test_tinylm_with_attnlibs_rope_as_the_op_is_the_rope_model_exactly():
    ref, mine = pair({"rope": attnlib.rope}, positions="rope")
    tokens, targets = batch()
    np.testing.assert_array_equal(mine.forward(tokens), ref.forward(tokens))
    (l0, g0), (l1, g1) = ref.loss_and_grads(tokens, targets), mine.loss_and_grads(tokens, targets)
    assert l0 == l1 and all(np.array_equal(g0[k], g1[k]) for k in g0)
    prompt = np.array([1, 4])
    assert np.array_equal(mine.generate(prompt, 5), ref.generate(prompt, 5))
    assert np.array_equal(mine.generate(prompt, 5, use_cache=False), ref.generate(prompt, 5))


def test_the_learners_rope_turns_q_and_k_beside_their_other_ops():
    ops = {k: f for k, f in learner.ALL.items() if k not in capstone.REFUSED["rope"]}
    ref, mine = pair(ops, positions="rope")
    tokens, targets = batch(2)
    same_training(ref, mine, tokens, targets)
    assert np.array_equal(mine.generate(np.array([2, 5]), 4), ref.generate(np.array([2, 5]), 4))
    _, wrong = pair({"rope": learner.rope_halves}, positions="rope")
    assert not np.allclose(wrong.forward(tokens), ref.forward(tokens))


def test_a_rope_is_optional_and_used_only_by_a_model_asked_for_rope():
    without = {k: f for k, f in learner.ALL.items() if k not in capstone.REFUSED["learned"]}
    assert capstone.models(without) == [("learned", list(without))]  # graded as before rope came in
    assert capstone.models({"rope": learner.rope}) == [("rope", ["rope"])]
    assert [(p, "rope" in names, "transformer_block" in names) for p, names in capstone.models(learner.ALL)] == \
        [("learned", False, True), ("rope", True, False), ("grouped", False, False), ("window", False, False)]
    ref, mine = pair({"rope": learner.rope_halves})  # learned positions: the rope is never called
    np.testing.assert_array_equal(mine.forward(batch()[0]), ref.forward(batch()[0]))


@pytest.mark.parametrize("ops", [{"rope": learner.rope}, learner.ALL], ids=["alone", "among all the ops"])
def test_a_right_rope_passes_the_capstone(ops):
    report = check("capstone", ops)
    assert report.passed, report.problems
    assert "rope" in report.summary.split(" each pass their own check")[0]
    assert ("with positions='rope'" if len(ops) == 1 else "Then the same again with positions='rope'") in \
        report.summary
    assert ("with n_kv_heads=1" in report.summary) == ("grouped_query_attention" in ops)
    assert ("with window=4 and n_sinks=1" in report.summary) == ("rolling_cache_step" in ops)


@pytest.mark.parametrize("expected, wrong", [("rope-halves", learner.rope_halves),
                                             ("rope-positions-from-one", learner.rope_positions_from_one)])
@pytest.mark.parametrize("alone", [True, False], ids=["alone", "among all the ops"])
def test_a_wrong_rope_is_named_with_its_mistake(expected, wrong, alone):
    ops = {"rope": wrong} if alone else learner._with(rope=wrong)
    diagnosis, name, own, problems = failed(ops)
    assert (diagnosis, name, own) == (expected, "rope", ["rope"])
    assert problems[1].startswith(f"your rope does not pass its own check (16_rope.ipynb): {expected} — "), problems
    with pytest.raises(CheckFailed) as info:
        check("capstone", ops)
    assert "positions='rope'" in info.value.report.probe


# ---------------------------------------------------------------------------
# the learner's grouped attention and grouped cache: a model whose heads share one K/V group

def test_the_learners_grouped_ops_give_the_grouped_model_exactly():
    ops = {k: f for k, f in learner.ALL.items() if k not in capstone.REFUSED["grouped"]}
    calls = {"grouped_query_attention": 0, "grouped_cache_step": 0}

    def counted(name, fn):
        def op(*args):
            calls[name] += 1
            return fn(*args)
        return op
    ops.update({name: counted(name, ops[name]) for name in calls})
    ref, mine = pair(ops, n_kv_heads=1)
    same_training(ref, mine, *batch(2))
    prompt = np.array([2, 5])
    assert np.array_equal(mine.generate(prompt, 4), ref.generate(prompt, 4))
    assert calls["grouped_query_attention"] > 0 and calls["grouped_cache_step"] > 0  # both ran the model
    assert capstone.models({"grouped_cache_step": learner.grouped_cache_step}) == \
        [("grouped", ["grouped_cache_step"])]


def test_a_right_grouped_pair_passes_and_a_wrong_routing_is_named():
    report = check("capstone", {"grouped_query_attention": learner.grouped_query_attention,
                                "grouped_cache_step": learner.grouped_cache_step})
    assert report.passed, report.problems
    assert "with n_kv_heads=1" in report.summary
    diagnosis, name, own, problems = failed(learner._with(grouped_cache_step=learner.grouped_routed_by_modulo))
    assert (diagnosis, name, own) == ("gqa-routed-by-modulo", None, ["grouped_cache_step"]), problems


# ---------------------------------------------------------------------------
# the learner's rolling cache: a windowed model generates through it

def test_the_learners_rolling_cache_generates_the_windowed_model_exactly():
    ops = {k: f for k, f in learner.ALL.items() if k not in capstone.REFUSED["window"]}
    assert "rolling_cache_step" in ops and "softmax" not in ops
    ref, mine = pair(ops, window=3, n_sinks=1)
    same_training(ref, mine, *batch(2))
    tokens = batch(2)[0][0]  # 6 tokens, one at a time through a window of 3

    def cached(model):
        cache = model.new_cache()
        return np.concatenate([model.step(tokens[t:t + 1], cache) for t in range(len(tokens))])
    np.testing.assert_allclose(cached(mine), ref.forward(tokens), rtol=1e-10, atol=1e-12)
    _, wrong = pair({"rolling_cache_step": learner.rolling_evicts_newest}, window=3, n_sinks=1)
    wrong.params = ref.params
    assert not np.allclose(cached(wrong), ref.forward(tokens), rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="cannot run a model with window=3"):
        pair(learner.ALL, window=3)


def test_a_right_rolling_cache_passes_and_a_wrong_one_is_named():
    report = check("capstone", {"rolling_cache_step": learner.rolling_cache_step})
    assert report.passed, report.problems
    assert "with window=4, n_sinks=1" in report.summary
    diagnosis, name, own, problems = failed({"rolling_cache_step": learner.rolling_evicts_newest})
    assert (diagnosis, name, own) == ("cache-evicts-newest", "rolling_cache_step", ["rolling_cache_step"]), problems
