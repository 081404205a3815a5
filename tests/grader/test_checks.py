"""The grader itself: outcomes, reports, and robustness against any learner code."""
import html
import signal
import threading
import time

import numpy as np
import pytest

import attnlib as at
from attnlib import checks, course
from attnlib.checks import CheckFailed, check, registry
from attnlib.checks.generation_and_kv_cache import cache_step
from attnlib.checks.no_mask import cross_attention
from attnlib.checks.positions import embed
from attnlib.checks.runner import close
from attnlib.checks.tokens_and_values import values
from attnlib.checks.trained_attention import most_attended
from helpers import need


def softmax_ok(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_rows_over_columns(S, axis=-1):
    return softmax_ok(S, axis=0)


def stub(S, axis=-1):
    raise NotImplementedError("replace this line with your code")


def fails(name, fn, **kw):
    with pytest.raises(CheckFailed) as info:
        check(name, fn, **kw)
    assert isinstance(info.value, AssertionError)
    return info.value


# -- the three outcomes ---------------------------------------------------------

def test_pass_report_is_truthy_green_and_summarised():
    report = check("softmax", softmax_ok)
    assert report and report.passed
    assert repr(report).startswith("✓ softmax passed: ")
    html = report._repr_html_()
    assert 'class="ra-check ra-pass"' in html and 'data-exercise="softmax"' in html


def test_stub_is_not_attempted_without_raising():
    report = check("softmax", stub)
    assert not report and report.status == "not-attempted"
    assert "not attempted yet" in repr(report)
    assert "ra-not-attempted" in report._repr_html_()


def test_strict_mode_turns_not_attempted_into_a_failure(monkeypatch):
    monkeypatch.setenv("ATTNLIB_STRICT", "1")
    assert fails("softmax", stub).diagnosis == "not-attempted"


def test_failure_names_the_mistake_and_hides_hints_and_solution():
    err = fails("softmax", softmax_rows_over_columns)
    assert err.diagnosis == "softmax-wrong-axis"
    assert "softmax-wrong-axis" in str(err)
    html = err.report._repr_html_()
    assert 'class="ra-check ra-fail"' in html
    assert 'class="ra-diagnosis" data-diagnosis="softmax-wrong-axis"' in html
    assert html.count("<details") == 3  # hint 1, hint 2, solution: each revealed on request
    assert "<th>cat</th>" not in html and "<th>2</th>" in html  # random scores: the grid numbers the rows
    assert "class=\"ra-grid\"" in html and "✗" in html


def test_report_never_shows_the_reference_code():
    import inspect
    html = fails("softmax", softmax_rows_over_columns).report._repr_html_()
    body = [ln.strip() for ln in inspect.getsource(at.softmax).splitlines()[-4:]]
    assert all(line not in html for line in body if len(line) > 3)


def test_large_outputs_show_the_worst_entries_instead_of_a_grid():
    def wrong_on_last_rows(V):
        O = np.cumsum(V, axis=0) / np.arange(1, len(V) + 1)[:, None]
        if len(V) > 12:
            O[-1] += 1.0
        return O

    err = fails("causal_average", wrong_on_last_rows)
    html = err.report._repr_html_()
    assert 'class="ra-worst"' in html and "(15, 0)" in html


def test_shape_problems_come_first():
    err = fails("similarity", lambda Q, K: (Q @ K.T)[:, :-1])
    assert err.diagnosis == "wrong-shape"
    assert err.report.problems[0].startswith("shape: got (3, 4), expected (3, 5)")


def test_nan_positions_are_reported():
    def nan_corner(Q, K):
        S = Q @ K.T
        S[0, 1] = np.nan
        return S

    err = fails("similarity", nan_corner)
    assert err.diagnosis == "non-finite-output"
    assert any("first at (0, 1)" in p for p in err.report.problems)


# -- robustness -----------------------------------------------------------------

def test_learner_exception_becomes_a_report():
    def broken(Q, K):
        return Q @ K.T + undefined_name  # noqa: F821

    err = fails("similarity", broken)
    assert err.diagnosis == "raised-error"
    assert "NameError" in str(err)


def test_run_away_call_is_stopped_and_the_timer_restored():
    previous = signal.getsignal(signal.SIGALRM)

    def forever(n):
        while True:
            pass

    start = time.perf_counter()
    err = fails("causal_mask", forever, time_limit=0.2)
    assert err.diagnosis == "timeout"
    assert time.perf_counter() - start < 5
    assert signal.getsignal(signal.SIGALRM) is previous
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_catching_everything_cannot_swallow_the_time_limit():
    def stubborn(n):
        while True:
            try:
                while True:
                    pass
            except Exception:
                pass

    assert fails("causal_mask", stubborn, time_limit=0.2).diagnosis == "timeout"


@pytest.mark.parametrize("garbage, diagnosis", [
    ("a string", "wrong-type"), (None, "returned-none"), ([[0.0]], "wrong-type"),
    (np.array([["x"]]), "wrong-dtype"), (np.zeros((2, 2)), "wrong-shape"),
])
def test_garbage_return_values(garbage, diagnosis):
    assert fails("causal_mask", lambda n: garbage).diagnosis == diagnosis


def test_integer_results_are_a_dtype_problem():
    err = fails("uniform_causal_weights", lambda n: np.tril(np.ones((n, n), dtype=int)))
    assert any(p.startswith("dtype: got int") for p in err.report.problems)


def test_printing_is_captured_and_does_not_fail(capsys):
    def chatty(S, axis=-1):
        print("debugging", S.shape)
        return softmax_ok(S, axis)

    assert check("softmax", chatty)
    assert capsys.readouterr().out == ""


def test_warnings_are_captured_not_shown(recwarn):
    def overflowing(S, axis=-1):
        E = np.exp(S)
        return E / E.sum(axis=axis, keepdims=True)

    err = fails("softmax", overflowing)
    assert err.diagnosis == "softmax-no-max-subtraction"
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_sys_exit_does_not_stop_the_kernel():
    def quitter(n):
        raise SystemExit(1)

    assert fails("causal_mask", quitter).diagnosis == "raised-error"


def test_mutation_is_detected_and_the_probe_arrays_stay_intact():
    probe_arrays = [a.copy() for p in checks.EXERCISES["softmax"].probes for a in p.args]

    def in_place(S, axis=-1):
        S -= S.max(axis=axis, keepdims=True)
        np.exp(S, out=S)
        S /= S.sum(axis=axis, keepdims=True)
        return S

    err = fails("softmax", in_place)
    assert err.diagnosis == "mutates-input"
    assert "S" in err.report.problems[0]
    after = [a for p in checks.EXERCISES["softmax"].probes for a in p.args]
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(probe_arrays, after))


def test_mutating_a_dict_of_parameters_is_detected():
    def sneaky(X, p, n_heads, causal=True):
        out = at.transformer_block(X, p, n_heads, causal)
        p["W1"] *= 0.0
        return out

    assert fails("transformer_block", sneaky).diagnosis == "mutates-input"


def test_not_callable_and_unknown_names():
    assert fails("softmax", np.zeros(3)).diagnosis == "wrong-type"
    with pytest.raises(ValueError, match="unknown exercise 'softmaxx'"):
        check("softmaxx", softmax_ok)


def test_handing_in_attnlibs_own_function_is_refused():
    assert fails("softmax", at.softmax).diagnosis == "uses-attnlib"


def test_off_the_main_thread_there_is_no_time_limit_but_it_still_works():
    results = []
    thread = threading.Thread(target=lambda: results.append(check("softmax", softmax_ok)))
    thread.start()
    thread.join(30)
    assert results and results[0].passed


# -- contract -------------------------------------------------------------------

def test_the_registry_holds_the_course_exercises_lesson_by_lesson():
    """One lesson module per lesson with exercises, named after its stem, holding its exercises in course order."""
    held = [(module.__name__.rsplit(".", 1)[-1], [ex.name for ex in module.EXERCISES])
            for module in registry.LESSON_MODULES]
    listed = [(les.stem[3:], list(les.exercises)) for les in course.EXERCISE_LESSONS if les.exercises != ("capstone",)]
    assert held == listed
    assert checks.NAMES == tuple(name for les in course.LESSONS for name in les.exercises)
    assert all(name == ex.name for name, ex in checks.EXERCISES.items())


def test_api_exercises_are_checkable_against_attnlib_itself():
    """Every exercise named after a public attnlib function (the API contract) is graded against that function;
    the others have their own by-hand reference tests at the end of this file."""
    course_names = {name for les in course.LESSONS for name in les.exercises}
    for name in course_names & set(at.__all__):
        assert checks.EXERCISES[name].reference is getattr(at, name), name
    assert course_names - set(at.__all__) == {
        "values", "embed", "most_attended", "cross_attention", "cache_step", "compose", "matmul_cost", "one_hot",
        "learned_scores", "score_scale", "future_leak", "sinusoidal_positions", "split_heads", "attention_entropy",
        "padding_mask", "generate", "max_cached_tokens", "rope_attention", "grouped_cache_step", "rolling_cache_step",
        "capstone"}


def test_every_check_has_three_different_hints():
    for name in checks.NAMES:
        h1, h2, h3 = checks.hints(name)
        assert h1 and h2 and h3 and len({h1, h2, h3}) == 3


def test_probes_use_non_square_shapes():
    """Each matrix exercise has a probe whose sizes all differ, so shape-compatible mistakes cannot hide."""
    for name in ("similarity", "attention_weights", "attention"):
        shapes = [(p.args[0].shape, p.args[1].shape) for p in checks.EXERCISES[name].probes]
        assert any(len({q[0], k[0], q[1]}) == 3 for q, k in shapes), name  # n_q != n_k != d
    for name in ("self_attention", "cross_attention", "multi_head_attention"):
        probes = checks.EXERCISES[name].probes
        dims = [{n for a in p.args if isinstance(a, np.ndarray) for n in a.shape} for p in probes]
        assert max(len(d) for d in dims) >= 3, name
    heads = [p.args[5] for p in checks.EXERCISES["multi_head_attention"].probes]
    assert sum(h >= 2 for h in heads) >= 3 and 1 in heads  # heads that can be mixed up, and the one-head edge


def test_softmax_probes_overflow_without_max_subtraction():
    with np.errstate(over="ignore"):
        assert any(not np.all(np.isfinite(np.exp(p.args[0]))) for p in checks.EXERCISES["softmax"].probes)


# -- references of the exercises that are not in attnlib's API, checked independently

def test_values_reference_by_hand():
    table = {"the": np.array([1.0, 0.0]), "cat": np.array([0.0, 2.0])}
    Wv = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    V = values(["the", "cat", "the"], table, Wv)
    np.testing.assert_allclose(V, [[1, 2, 3], [8, 10, 12], [1, 2, 3]])


def test_embed_reference_by_hand():
    tok_emb = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    pos_emb = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0], [7.0, 7.0]])  # more rows than the sentence
    X = embed(np.array([2, 0, 2]), tok_emb, pos_emb)
    np.testing.assert_array_equal(X, [[12, 2], [1, 10], [7, 7]])  # the repeated word differs by its position


def test_most_attended_reference_by_hand():
    A = np.array([[1.0, 0.0, 0.0], [0.2, 0.8, 0.0], [0.4, 0.2, 0.4]])
    assert list(most_attended(A, ["the", "cat", "sat"])) == ["the", "cat", "the"]  # a tie keeps the earlier key


def test_the_deeper_exercises_references_by_hand():
    from attnlib.checks import (attention_module as m07, batches as m02, generation_and_kv_cache as m14, heads as m09,
                                learned_mixing as m05, mask_and_softmax as m06, no_mask as m13, positions as m08,
                                projection as m01, tokens_and_values as m03, trained_attention as m12)
    W1, W2 = np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[1.0], [3.0]])
    np.testing.assert_array_equal(m01.compose(W1, W2), [[7.0], [3.0]])  # x = (1, 0): (1, 2) then 1 + 6
    assert m02.matmul_cost(10**6, 768, 3072) == 2_359_296_000_000 and m02.matmul_cost(2, 3, 4) == 24
    np.testing.assert_array_equal(m03.one_hot(np.array([2, 0, 2]), 3), [[0, 0, 1], [1, 0, 0], [0, 0, 1]])
    X, Wq, Wk = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[1.0], [1.0]]), np.array([[2.0], [0.0]])
    np.testing.assert_array_equal(m05.learned_scores(X, Wq, Wk), [[2.0, 0.0], [4.0, 0.0]])  # q = (1, 2), k = (2, 0)
    assert m06.score_scale(16) == 0.25
    assert m07.future_leak(m07.LEAKY["two_ahead"], np.random.default_rng(0).normal(size=(6, 3))) == 2
    assert m07.future_leak(m07.LEAKY["causal"], np.random.default_rng(0).normal(size=(6, 3))) == 0
    P = m08.sinusoidal_positions(2, 4)  # row t: sin(t), cos(t), sin(t / 100), cos(t / 100)
    np.testing.assert_allclose(P, [[0, 1, 0, 1], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)]])
    M = np.arange(12.0).reshape(2, 6)
    np.testing.assert_array_equal(m09.split_heads(M, 3)[1], [[2, 3], [8, 9]])  # head 1: columns 2 and 3
    H = m12.attention_entropy(np.array([[1.0, 0.0], [0.5, 0.5]]))
    np.testing.assert_allclose(H, [0.0, np.log(2)])
    np.testing.assert_array_equal(m13.padding_mask(2, 1, 3), [[0, -np.inf, -np.inf]] * 2)
    assert m14.max_cached_tokens(80 * 2**30, 32, 32, 128) == 163_840  # 2 * 32 * 32 * 128 * 2 = 512 kB a token
    assert m14.max_cached_tokens(1023, 1, 1, 256) == 0  # 1 kB a token: nothing fits


def test_the_generate_reference_matches_attention_recomputed_from_scratch():
    from attnlib.checks.generation_and_kv_cache import _model, generate
    p, prompt = _model(3, 7, 4, 10), np.array([3, 1, 4])
    tokens = list(prompt)
    while len(tokens) < 3 + 5:  # no cache: full causal attention over everything so far, every time
        X = p["tok_emb"][tokens] + p["pos_emb"][:len(tokens)]
        O = at.attention(X @ p["Wq"], X @ p["Wk"], X @ p["Wv"])
        tokens.append(int(np.argmax((X[-1] + O[-1]) @ p["W_out"])))
    np.testing.assert_array_equal(generate(p, prompt, 5, cache_step), tokens)


def test_a_list_of_words_is_compared_word_by_word():
    assert close(["the", "cat"], ["the", "cat"]) and close(("the", "cat"), ["the", "cat"])
    assert close(np.array(["the", "cat"]), ["the", "cat"])
    assert not close(["cat", "the"], ["the", "cat"]) and not close(["the"], ["the", "cat"])
    assert not close(np.array([0, 1]), ["the", "cat"])


def test_cross_attention_reference_against_pytorch():
    torch = need("torch", "independent reference for cross-attention")
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    Wq, Wk, Wv = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 6))
    t = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
    ref = torch.nn.functional.scaled_dot_product_attention(t(X @ Wq), t(Z @ Wk), t(Z @ Wv)).numpy()
    np.testing.assert_allclose(cross_attention(X, Z, Wq, Wk, Wv), ref, rtol=1e-12, atol=1e-12)


def test_cache_step_reference_matches_full_causal_attention():
    rng = np.random.default_rng(4)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 5))
    o, K_new, V_new = cache_step(Q[-1], K[-1], V[-1], K[:-1], V[:-1])
    S = Q @ K.T / np.sqrt(3)
    a = np.exp(S[-1] - S[-1].max())
    np.testing.assert_allclose(o, (a / a.sum()) @ V, rtol=1e-12)
    np.testing.assert_array_equal(K_new, K)
    np.testing.assert_array_equal(V_new, V)


# -- property findings, nudges and report wording --------------------------------

def weights_seeing_one_ahead(Q, K, causal=True, scale=True):
    S = Q @ K.T / np.sqrt(Q.shape[1]) if scale else Q @ K.T
    n_q, n_k = S.shape
    if causal:
        S = np.where(np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + (n_k - n_q) + 1, S, -np.inf)
    return softmax_ok(S)


def test_a_one_position_future_leak_is_named_with_its_offset_first():
    err = fails("attention_weights", weights_seeing_one_ahead)
    assert err.diagnosis == "future-leak"
    assert "by 1 position" in err.report.problems[0]
    lines = err.report.text().splitlines()
    assert lines[1].startswith("  diagnosis future-leak")  # the finding comes right after the headline


def test_the_nudge_replaces_hint_two_and_the_answer_is_a_labelled_third_hint():
    err = fails("softmax", softmax_rows_over_columns)
    nudge = checks.registry.CHOICE_NUDGES["softmax axis"]  # the nudge of the choice the learner got wrong
    assert err.report.hint2 == nudge != checks.hints("softmax")[1]
    page = err.report._repr_html_()
    assert html.escape(nudge) in page and "Hint 3, the answer" in page


def test_every_diagnosis_has_a_nudge_that_shows_no_code():
    generic = {"raised-error", "wrong-type", "wrong-shape", "wrong-dtype", "non-finite-output", "not-attempted",
               "uses-attnlib"}
    nudges = checks.diagnoses.NUDGES
    assert set(nudges) <= set(checks.DIAGNOSES)
    from_choices = set()  # the ids a pipeline's choice names: that choice's nudge is theirs
    for ex in checks.EXERCISES.values():
        if ex.pipeline is not None:
            for chosen in checks.choices.neighbours(ex.pipeline, ex.probes)[0]:
                (choice, option), = chosen.items()
                if checks.registry.CHOICE_NUDGES.get(choice):
                    from_choices.add(checks.choices.mistake_id(choice, option))
    for diagnosis in set(checks.DIAGNOSES) - generic - from_choices:
        assert diagnosis in nudges, diagnosis
        assert "np." not in nudges[diagnosis] and "@" not in nudges[diagnosis], diagnosis


def test_a_mutation_only_failure_says_the_values_are_right():
    def softmax_in_place(S, axis=-1):
        S -= S.max(axis=axis, keepdims=True)
        return softmax_ok(S, axis)

    err = fails("softmax", softmax_in_place)
    assert err.diagnosis == "mutates-input"
    text = " ".join(err.report.problems)
    assert "values it returned are right" in text and "some values differ" not in text


def test_a_boolean_mask_is_called_boolean():
    err = fails("causal_mask", lambda n: np.triu(np.ones((n, n)), k=1).astype(bool))
    assert err.diagnosis == "mask-boolean"
    assert any("dtype bool" in p for p in err.report.problems)
    assert not any("got an array of shape" in p for p in err.report.problems)


def test_a_right_minus_infinity_is_not_counted_as_a_bad_entry():
    def mask_with_nan_diagonal(n):
        M = np.triu(np.full((n, n), -np.inf), k=1)
        np.fill_diagonal(M, np.nan)
        return M

    err = fails("causal_mask", mask_with_nan_diagonal)
    bad = [p for p in err.report.problems if "NaN/inf" in p]
    n = 5  # the first probe is causal_mask(5): its n NaN diagonal entries are wrong, its -inf entries right
    assert bad and bad[0].startswith(f"{n} NaN/inf entries")


@pytest.mark.parametrize("factor, diagnosis", [(lambda d: np.sqrt(d), "scale-inverted"),
                                               (lambda d: 1.0, "scale-missing"),
                                               (lambda d: 1.0 / d, "scale-by-d")])
def test_the_scale_factor_is_inferred(factor, diagnosis):
    def weights(Q, K, causal=True, scale=True):
        S = Q @ K.T * (factor(Q.shape[1]) if scale else 1.0)
        n_q, n_k = S.shape
        if causal:
            S = np.where(np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + (n_k - n_q), S, -np.inf)
        return softmax_ok(S)

    assert fails("attention_weights", weights).diagnosis == diagnosis


def test_a_count_that_overflows_int32_is_named():
    def kv_int32(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
        sizes = np.array([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value], dtype=np.int32)
        with np.errstate(over="ignore"):
            return int(np.prod(sizes, dtype=np.int32))

    assert fails("kv_cache_bytes", kv_int32).diagnosis == "integer-overflow"


def test_name_pattern_reads_visibility_matrices():
    from attnlib.checks.properties import name_pattern
    i, j = np.indices((4, 4))
    assert name_pattern(j <= i) is None
    assert name_pattern(np.ones((4, 4), bool)) == "mask-not-applied"
    assert name_pattern(j <= i + 2)[0] == "future-leak" and "by 2 positions" in name_pattern(j <= i + 2)[1]
    assert name_pattern(j < i)[0] == "mask-hides-diagonal"
    assert name_pattern(j >= i)[0] == "mask-hides-past"


def test_interleaved_heads_are_named_by_the_columns_they_move():
    def mha_interleaved(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
        heads = [at.attention(X @ Wq[:, h::n_heads], X @ Wk[:, h::n_heads], X @ Wv[:, h::n_heads], causal)
                 for h in range(n_heads)]
        return np.concatenate(heads, axis=1) @ Wo

    assert fails("multi_head_attention", mha_interleaved).diagnosis == "heads-interleaved"


# -- the float32 policy: float32 passes unless a probe stresses precision ------------------------------------------

def layer_norm_float32(X, g, b, eps=1e-5):
    X = X.astype(np.float32)
    centred = X - X.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + eps) * g + b


def layer_norm_moments(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt((X ** 2).mean(axis=1, keepdims=True) - mu ** 2 + eps) * g + b


def softmax_backward_float32(A, dA):
    A, dA = A.astype(np.float32), dA.astype(np.float32)
    return A * (dA - (A * dA).sum(axis=-1, keepdims=True))


def test_precision_probes_name_float32_and_cancellation():
    assert fails("layer_norm", layer_norm_float32).diagnosis == "precision-loss"
    assert fails("layer_norm", layer_norm_moments).diagnosis == "variance-cancellation"
    assert fails("softmax_backward", softmax_backward_float32).diagnosis == "precision-loss"


def test_float32_passes_where_no_probe_stresses_precision():
    def gelu_float32(X):
        X = X.astype(np.float32)
        return 0.5 * X * (1.0 + np.tanh(np.float32(0.7978845608) * (X + np.float32(0.044715) * X ** 3)))

    def weights_float32(Q, K, causal=True, scale=True):
        Q, K = Q.astype(np.float32), K.astype(np.float32)
        S = Q @ K.T / (np.float32(np.sqrt(Q.shape[1])) if scale else 1)
        if causal:
            n_q, n_k = S.shape
            S = np.where(np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + (n_k - n_q), S, -np.inf)
        return softmax_ok(S)

    assert check("gelu", gelu_float32).passed
    assert check("attention_weights", weights_float32).passed  # fresh random probes too, huge scores included


def test_the_same_function_gets_the_same_verdict_on_every_run_and_another_gets_other_draws():
    """The fresh probes' seed comes from the learner's code: rerunning a check never changes its verdict, and an
    edited function is drawn new probes."""
    from attnlib.checks.grade import code_seed

    def softmax_rows(S, axis=-1):
        E = np.exp(S - S.max(axis=axis, keepdims=True))
        return E / E.sum(axis=axis, keepdims=True)

    def softmax_rows_edited(S, axis=-1):
        E = np.exp(S - S.max(axis=axis, keepdims=True))
        return E / np.sum(E, axis=axis, keepdims=True)

    assert code_seed(softmax_rows) == code_seed(softmax_rows) != code_seed(softmax_rows_edited)
    memo = {p.args[0].tobytes(): at.softmax(*p.args, **p.kwargs) for p in checks.EXERCISES["softmax"].probes}

    def memorised(S, axis=-1):  # right on the fixed probes only: it fails on a fresh one, named by its seed
        return memo.get(S.tobytes(), np.full(S.shape, 1.0 / S.shape[axis]))

    probes = {fails("softmax", memorised).report.probe for _ in range(3)}
    assert len(probes) == 1 and "fresh random values, seed" in probes.pop()


def test_fresh_probes_leave_room_for_float32_but_not_for_memorised_values():
    from attnlib.checks.runner import FRESH_TOL
    ex = checks.EXERCISES["attention_weights"]
    for seed in range(1000):  # about 1 in 400 draws puts two huge scores within float32's reach of each other
        memorised_passes = []
        for p in ex.probes:
            q = p.fresh(seed)
            Q, K = (a.astype(np.float32) for a in q.args)
            S = Q @ K.T / np.float32(np.sqrt(Q.shape[1])) if q.kwargs.get("scale", True) else Q @ K.T
            if q.kwargs.get("causal", True):
                S = np.where(np.tril(np.ones(S.shape, bool), k=S.shape[1] - S.shape[0]), S, -np.inf)
            expected = ex.reference(*q.args, **q.kwargs)
            assert close(softmax_ok(S), expected, FRESH_TOL), (seed, q.describe())
            memorised_passes.append(close(ex.reference(*p.args, **p.kwargs), expected, FRESH_TOL))
        assert not all(memorised_passes), seed


def test_a_failure_points_at_the_earlier_functions_it_may_call():
    """A learner's transformer_block built on their own wrong layer_norm: the report says where to look first."""
    def layer_norm(X, g, b, eps=1e-5):  # unbiased variance: wrong
        return (X - X.mean(1, keepdims=True)) / np.sqrt(X.var(1, ddof=1, keepdims=True) + eps) * g + b

    def transformer_block(X, p, n_heads, causal=True):
        H = layer_norm(X, p["ln1_g"], p["ln1_b"])
        Y = X + at.multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
        return Y + at.gelu(layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]

    with pytest.raises(CheckFailed) as info:
        check("transformer_block", transformer_block)
    assert "calls your own layer_norm or gelu or multi_head_attention" in str(info.value)
    with pytest.raises(CheckFailed) as info:
        check("project", lambda x, W: W @ x)
    assert "calls your own" not in str(info.value)  # project builds on nothing


# -- terminal reports, wording and labels ------------------------------------------

def test_the_terminal_report_keeps_the_hints_behind_the_hint_command():
    """python -m attnlib check, pytest and nbval print report.text(): the hints stay hidden there as in a notebook."""
    err = fails("softmax", softmax_rows_over_columns)
    hint1, hint2, formula = checks.hints("softmax")
    nudge = checks.registry.CHOICE_NUDGES["softmax axis"]
    for text in (err.report.text(), str(err)):
        assert hint1 not in text and hint2 not in text and nudge not in text and formula not in text
        assert "python -m attnlib hint 06 --level 1 (the idea), --level 2 (where to look), --level 3 (the answer)" \
            in text
    capstone = course.lesson("capstone").number
    assert f"python -m attnlib hint {capstone} --level 1" in fails("capstone", {"gelu": lambda X: np.maximum(X, 0.0)}) \
        .report.text()


def test_a_requirement_failure_reads_as_a_sentence():
    def one_hot_ints(ids, vocab_size):
        return np.eye(vocab_size, dtype=int)[np.asarray(ids)]

    err = fails("one_hot", one_hot_ints)
    assert err.diagnosis == "one-hot-not-float"
    first = err.report.text().splitlines()[0]
    assert first.startswith("✗ one_hot failed on the extra check after all ") and first.endswith(" probes passed")
    assert "on probe the" not in err.report._repr_html_()
    numbered = fails("softmax", softmax_rows_over_columns).report.text().splitlines()[0]
    assert numbered.startswith("✗ softmax failed on probe 1 of ")


def test_values_that_differ_in_several_outputs_are_said_once():
    def attention_backward_doubled(Q, K, V, dO, causal=True, scale=True):
        s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
        S = Q @ K.T * s
        if causal:
            n_q, n_k = S.shape
            S = np.where(np.arange(n_k)[None, :] > np.arange(n_k - n_q, n_k)[:, None], -np.inf, S)
        A = softmax_ok(S)
        dS = A * (dO @ V.T - (A * (dO @ V.T)).sum(axis=1, keepdims=True)) * s
        return 2 * (dS @ K), 2 * (dS.T @ Q), 2 * (A.T @ dO)  # every gradient twice too large

    text = fails("attention_backward", attention_backward_doubled).report.text()
    assert text.count("differ from the expected ones") == 1, text
    assert "some values of outputs 0, 1 and 2 differ from the expected ones (the grid shows output 0)" in text
    assert "of the returned tuple is wrong" not in text  # the line above already says which outputs

    def attention_backward_dk_doubled(Q, K, V, dO, causal=True, scale=True):
        dQ, dK, dV = attention_backward_doubled(Q, K, V, dO, causal, scale)
        return dQ / 2, dK, dV / 2  # only dK is wrong

    text = fails("attention_backward", attention_backward_dk_doubled).report.text()
    assert text.count("output 1") == 1 and "some values of output 1 differ from the expected ones" in text, text


def _holds_floats(a):
    if isinstance(a, np.ndarray):
        return a.dtype.kind == "f"
    if isinstance(a, dict):
        return any(_holds_floats(v) for v in a.values())
    if isinstance(a, (list, tuple)):
        return any(_holds_floats(v) for v in a)
    return False


def test_only_probes_of_a_sentence_label_their_rows_with_words():
    """A grid of random numbers labelled "the cat sat on" would pretend they are those words' values."""
    from attnlib.checks.probes import WORDS
    worded = []
    for ex in checks.EXERCISES.values():
        for i, p in enumerate(ex.probes):
            if any(w in WORDS for w in (p.rows or []) + (p.cols or [])):
                worded.append(ex.name)
                sentence = {"tokens", "ids"} & set(p.names)  # the probe passes a sentence's tokens
                assert sentence or not _holds_floats((p.args, p.kwargs)), (ex.name, i, p.rows, p.cols)
    assert {"causal_mask", "values", "embed", "most_attended"} <= set(worded)
    page = fails("causal_mask", lambda n: np.triu(np.full((n, n), -1e9), k=1)).report._repr_html_()
    assert "<th>cat</th>" in page  # a mask's rows are the sentence's positions


# -- a name only where the named mistake reproduces the output ---------------------------------------------------

def test_dividing_by_the_column_index_is_named_for_what_it_does_not_for_a_missing_keepdims():
    def by_column(n):  # no reduction anywhere: the counts 1..n laid along the columns
        return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[None, :]

    err = fails("uniform_causal_weights", by_column)
    assert err.diagnosis == "normalised-by-column"
    assert "reduction" not in err.report.hint2 and "keepdims" not in err.report.hint2
    # what the name says, checked by hand: entry (i, j) is 1 / (j + 1) on and below the diagonal
    assert np.array_equal(by_column(4), [[1, 0, 0, 0], [1, 1 / 2, 0, 0], [1, 1 / 2, 1 / 3, 0],
                                         [1, 1 / 2, 1 / 3, 1 / 4]])


def test_a_softmax_summed_over_the_wrong_axis_is_not_blamed_on_its_max():
    def sum_down_columns(S, axis=-1):
        E = np.exp(S - S.max(axis=-1, keepdims=True))  # the max along the rows, as it should be
        return E / E.sum(axis=0, keepdims=True)

    err = fails("softmax", sum_down_columns)  # both axes written in: the softmax ignores `axis`, the sum runs down
    assert err.diagnosis == "softmax-ignores-axis+softmax-sum-wrong-axis"
    assert "sum" in err.report.hint2 and "axis of your max." not in err.report.hint2
    assert not any("maximum" in p for p in err.report.problems)


def test_the_shifted_row_probe_compares_the_learner_with_itself_and_names_rows_of_the_probe_shown():
    """Adding 800 to row 0 moves no other row of a function whose max is right, however wrong its sum; and when
    other rows do move, the rows it names are rows of the probe the report shows."""
    from attnlib.checks.mask_and_softmax import shifted_rows
    from attnlib.checks.properties import Ask
    from attnlib.checks.runner import call_many

    def seen_of(fn):
        ex = checks.EXERCISES["softmax"]
        outcomes = call_many(fn, [(p.args, p.kwargs, p.names) for p in ex.probes], 5.0)
        return [(p, o, at.softmax(*p.args, **p.kwargs)) for p, o in zip(ex.probes, outcomes)]

    def ask(fn):
        return Ask(lambda calls: call_many(fn, calls, 5.0))

    def l2_rows(S, axis=-1):  # shift invariant row by row: its max is right, its divisor is not
        E = np.exp(S - S.max(axis=axis, keepdims=True))
        return E / np.sqrt((E ** 2).sum(axis=axis, keepdims=True))

    assert shifted_rows(ask(l2_rows), seen_of(l2_rows)) is None

    def column_max_2d_only(S, axis=-1):
        if S.ndim != 2:
            raise ValueError("2-D only")
        E = np.exp(S - S.max(axis=0, keepdims=True))
        return E / E.sum(axis=axis, keepdims=True)

    diagnosis, detail = shifted_rows(ask(column_max_2d_only), seen_of(column_max_2d_only))
    assert diagnosis == "softmax-max-wrong-axis"
    assert checks.EXERCISES["softmax"].probes[0].args[0].shape == (3, 5)
    assert "row 0 of probe 1's S changed rows 1 and 2 as well" in detail  # probe 1 has rows 0, 1 and 2


def test_a_log_softmax_is_named_even_where_the_softmax_underflows():
    def log_softmax(S, axis=-1):
        m = S.max(axis=axis, keepdims=True)
        return S - m - np.log(np.exp(S - m).sum(axis=axis, keepdims=True))

    assert fails("softmax", log_softmax).diagnosis == "log-softmax"


def test_nan_only_on_the_huge_probe_is_called_an_overflow_only_when_smaller_scores_cure_it():
    from attnlib.checks.properties import Ask, huge_scores
    from attnlib.checks.runner import Outcome, call_many
    from attnlib.checks.spec import Probe

    rng = np.random.default_rng(5)
    ordinary, huge = Probe((rng.normal(size=(4, 5)),)), Probe((900.0 * rng.normal(size=(3, 4)),))

    def seen_and_ask(fn):
        seen = [(p, Outcome("ok", fn(*p.args)), softmax_ok(*p.args)) for p in (ordinary, huge)]
        return seen, Ask(lambda calls: call_many(fn, calls, 5.0))

    def no_max(S, axis=-1):
        E = np.exp(S)
        return E / E.sum(axis=axis, keepdims=True)

    def nan_on_three_rows(S, axis=-1):  # a NaN from the shape, whatever the size of the scores
        A = softmax_ok(S, axis)
        A[0] = np.nan if len(S) == 3 else A[0]
        return A

    with np.errstate(all="ignore"):
        assert huge_scores(0)(*reversed(seen_and_ask(no_max)))[0] == "softmax-no-max-subtraction"
        assert huge_scores(0)(*reversed(seen_and_ask(nan_on_three_rows))) is None


# -- the terminal shows what its words point at ------------------------------------------------------------------

def test_the_terminal_report_prints_the_grid_it_points_at():
    report = fails("softmax", softmax_rows_over_columns).report
    text = report.text().splitlines()
    assert any("(see the grid)" in line for line in text)
    S = checks.EXERCISES["softmax"].probes[0].args[0]  # probe 1, (3, 5): the grid has its 3 rows and 5 columns
    wrong = ~np.isclose(softmax_ok(S, axis=0), softmax_ok(S), rtol=1e-5, atol=1e-5)
    start = text.index(f"  {int(wrong.sum())} of 15 entries wrong (✗):")
    assert text[start + 1].split() == ["0", "1", "2", "3", "4"]
    for i in range(3):
        assert text[start + 2 + i].split() == [str(i)] + ["✗" if w else "✓" for w in wrong[i]]


def test_the_terminal_report_of_a_large_output_points_at_its_worst_entries():
    def wrong_on_the_last_row(V):
        O = np.cumsum(V, axis=0) / np.arange(1, len(V) + 1)[:, None]
        if len(V) > 12:
            O[-1] += 1.0
        return O

    text = fails("causal_average", wrong_on_the_last_row).report.text()
    assert "(see the grid)" not in text and "(see the worst entries)" in text
    assert "worst entries (index: got, expected):" in text and "    (15, 0): " in text


def test_an_error_is_located_in_the_learners_code_not_in_numpy_or_attnlib():
    def softmax_einsum(S, axis=-1):
        E = np.exp(S - S.max(axis=axis, keepdims=True))
        return np.einsum("ij,jk->ik", E, 1 / E.sum(axis=axis, keepdims=True))  # (3, 5) by (3, 1): numpy refuses

    def softmax_with_a_mask(S, axis=-1):
        M = at.causal_mask(-len(S))  # attnlib refuses a negative size
        return softmax_ok(S + M, axis)

    for fn, line, below in ((softmax_einsum, 'return np.einsum("ij,jk->ik"', 2),
                            (softmax_with_a_mask, "M = at.causal_mask(", 1)):
        text = fails("softmax", fn).report.text()
        assert f"(at line {fn.__code__.co_firstlineno + below}: {line}" in text, text


def test_a_check_cell_does_not_import_nbformat():
    """my_functions (which reads notebooks with nbformat, seconds to import) loads on first use only."""
    import subprocess
    import sys
    code = ("import sys, attnlib.checks; print('nbformat' in sys.modules); "
            "from attnlib.checks import my_functions; print('nbformat' in sys.modules, my_functions.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "my_functions"]
