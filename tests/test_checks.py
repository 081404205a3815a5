"""The grader itself: outcomes, reports, and robustness against any learner code."""
import signal
import threading
import time

import numpy as np
import pytest

import attnlib as al
from attnlib import checks
from attnlib.checks import CheckFailed, check
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
    assert "<th>cat</th>" in html  # the grid is labelled by tokens
    assert "class=\"ra-grid\"" in html and "✗" in html


def test_report_never_shows_the_reference_code():
    import inspect
    html = fails("softmax", softmax_rows_over_columns).report._repr_html_()
    body = [ln.strip() for ln in inspect.getsource(al.softmax).splitlines()[-4:]]
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
    ("a string", "wrong-type"), (None, "wrong-type"), ([[0.0]], "wrong-type"),
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
        out = al.transformer_block(X, p, n_heads, causal)
        p["W1"] *= 0.0
        return out

    assert fails("transformer_block", sneaky).diagnosis == "mutates-input"


def test_not_callable_and_unknown_names():
    assert fails("softmax", np.zeros(3)).diagnosis == "wrong-type"
    with pytest.raises(ValueError, match="unknown exercise 'softmaxx'"):
        check("softmaxx", softmax_ok)


def test_handing_in_attnlibs_own_function_is_refused():
    assert fails("softmax", al.softmax).diagnosis == "uses-attnlib"


def test_off_the_main_thread_there_is_no_time_limit_but_it_still_works():
    results = []
    thread = threading.Thread(target=lambda: results.append(check("softmax", softmax_ok)))
    thread.start()
    thread.join(30)
    assert results and results[0].passed


# -- contract -------------------------------------------------------------------

DESIGN_NAMES = ["project", "project_rows", "uniform_causal_weights", "causal_average", "similarity",
                "causal_mask", "softmax", "attention_weights", "attention", "self_attention",
                "multi_head_attention", "layer_norm", "gelu", "transformer_block", "next_token_logits",
                "softmax_backward", "attend_step", "kv_cache_bytes"]


def test_names_cover_the_design_table_and_every_check_has_hints():
    assert set(DESIGN_NAMES) <= set(checks.NAMES)
    for name in checks.NAMES:
        h1, h2 = checks.hints(name)
        assert h1 and h2 and h1 != h2


def test_every_diagnosis_id_used_by_a_check_is_explained():
    for ex in checks.EXERCISES.values():
        for diagnosis, _ in ex.wrong:
            assert diagnosis in checks.DIAGNOSES, diagnosis


def test_probes_use_non_square_shapes():
    """Each matrix exercise has a probe whose sizes all differ, so shape-compatible mistakes cannot hide."""
    for name in ("similarity", "attention_weights", "attention"):
        shapes = [(p.args[0].shape, p.args[1].shape) for p in checks.EXERCISES[name].probes]
        assert any(len({q[0], k[0], q[1]}) == 3 for q, k in shapes), name  # n_q != n_k != d
    for name in ("self_attention", "cross_attention", "multi_head_attention"):
        dims = [{n for a in p.args if isinstance(a, np.ndarray) for n in a.shape} for p in checks.EXERCISES[name].probes]
        assert max(len(d) for d in dims) >= 3, name
    heads = [p.args[5] for p in checks.EXERCISES["multi_head_attention"].probes]
    assert min(heads) >= 2


def test_softmax_probes_overflow_without_max_subtraction():
    S = checks.EXERCISES["softmax"].probes[-1].args[0]
    with np.errstate(over="ignore"):
        assert not np.all(np.isfinite(np.exp(S)))


# -- references of the exercises that are not in attnlib's API, checked independently

def test_values_reference_by_hand():
    from attnlib.checks.catalog_basic import _values
    table = {"the": np.array([1.0, 0.0]), "cat": np.array([0.0, 2.0])}
    Wv = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    V = _values(["the", "cat", "the"], table, Wv)
    np.testing.assert_allclose(V, [[1, 2, 3], [8, 10, 12], [1, 2, 3]])


def test_cross_attention_reference_against_pytorch():
    torch = need("torch", "independent reference for cross-attention")
    from attnlib.checks.catalog_more import cross_attention
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    Wq, Wk, Wv = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 6))
    t = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
    ref = torch.nn.functional.scaled_dot_product_attention(t(X @ Wq), t(Z @ Wk), t(Z @ Wv)).numpy()
    np.testing.assert_allclose(cross_attention(X, Z, Wq, Wk, Wv), ref, rtol=1e-12, atol=1e-12)


def test_cache_step_reference_matches_full_causal_attention():
    from attnlib.checks.catalog_more import cache_step
    rng = np.random.default_rng(4)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 5))
    o, K_new, V_new = cache_step(Q[-1], K[-1], V[-1], K[:-1], V[:-1])
    S = Q @ K.T / np.sqrt(3)
    a = np.exp(S[-1] - S[-1].max())
    np.testing.assert_allclose(o, (a / a.sum()) @ V, rtol=1e-12)
    np.testing.assert_array_equal(K_new, K)
    np.testing.assert_array_equal(V_new, V)
