"""The grader cannot be hung, crashed or fooled by the code it grades."""
import functools
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

import attnlib as at
import attnlib.mixing
from attnlib import checks
from attnlib.checks import CheckFailed, check, grade, runner
from attnlib.checks.generation_and_kv_cache import cache_step as grader_cache_step


def softmax_ok(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_wrong_axis(S, axis=-1):
    return softmax_ok(S, axis=0)


def stub(S, axis=-1):
    raise NotImplementedError


def fails(name, fn, **kw):
    with pytest.raises(CheckFailed) as info:
        check(name, fn, **kw)
    return info.value


@pytest.fixture(params=["fork", "thread"])
def isolation(request, monkeypatch):
    """Each test runs once with a forked child and once with the watchdog thread used where fork is missing."""
    if request.param == "thread":
        monkeypatch.setenv("ATTNLIB_NO_FORK", "1")
    else:
        monkeypatch.delenv("ATTNLIB_NO_FORK", raising=False)
    assert runner.can_fork() == (request.param == "fork")
    return request.param


# -- hangs and crashes ------------------------------------------------------------

def test_a_bare_except_cannot_swallow_the_time_limit(isolation):
    stop = threading.Event()  # lets the abandoned watchdog thread finish after the test

    def stubborn(n):
        while not stop.is_set():
            try:
                time.sleep(0.05)
            except:  # noqa: E722 - the point of the test
                continue

    start = time.perf_counter()
    try:
        assert fails("causal_mask", stubborn, time_limit=0.5).diagnosis == "timeout"
    finally:
        stop.set()
    assert time.perf_counter() - start < 3


def test_switching_off_sigalrm_first_does_not_help():
    def sly(n):
        if hasattr(signal, "SIGALRM"):
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            signal.setitimer(signal.ITIMER_REAL, 0)
        while True:
            pass

    start = time.perf_counter()
    err = fails("causal_mask", sly, time_limit=0.5)
    assert err.diagnosis == "timeout"
    assert "time limit" in str(err)
    assert time.perf_counter() - start < 3


@pytest.mark.parametrize("die, how", [
    (lambda: os._exit(3), "status 3"),
    (lambda: os.kill(os.getpid(), signal.SIGSEGV), "SIGSEGV"),
])
def test_a_dying_process_is_a_crash_report_not_a_dead_kernel(die, how):
    def fatal(n):
        die()

    err = fails("causal_mask", fatal)
    assert err.diagnosis == "crashed"
    assert how in str(err)


def test_sys_exit_is_an_error_report(isolation):
    assert fails("causal_mask", lambda n: sys.exit()).diagnosis == "raised-error"


def test_a_huge_allocation_fails_fast():
    def greedy(S, axis=-1):
        chunks = []
        while True:
            chunks.append(np.ones(10**8))  # 800 MB each, until memory runs out

    start = time.perf_counter()
    err = fails("softmax", greedy, time_limit=10)
    assert err.diagnosis in ("raised-error", "crashed", "timeout")
    assert time.perf_counter() - start < 12


def test_printing_ten_megabytes_is_captured(capsys, isolation):
    def chatty(S, axis=-1):
        print("x" * 10_000_000)
        return softmax_ok(S, axis)

    start = time.perf_counter()
    assert check("softmax", chatty).passed
    assert time.perf_counter() - start < 5
    assert capsys.readouterr().out == ""


# -- platforms without SIGALRM or fork -----------------------------------------------

@pytest.mark.parametrize("missing", ["SIGALRM", "fork", "both"])
def test_correct_code_passes_and_mistakes_are_named_without_sigalrm_or_fork(monkeypatch, missing):
    if missing in ("SIGALRM", "both"):
        monkeypatch.delattr(signal, "SIGALRM", raising=False)
    if missing in ("fork", "both"):
        monkeypatch.delattr(os, "fork", raising=False)
    assert runner.can_fork() == (missing == "SIGALRM")
    assert check("softmax", softmax_ok).passed
    assert fails("softmax", softmax_wrong_axis).diagnosis == "softmax-wrong-axis"


def test_mutation_is_still_detected(isolation):
    def in_place(S, axis=-1):
        S -= S.max(axis=axis, keepdims=True)
        np.exp(S, out=S)
        S /= S.sum(axis=axis, keepdims=True)
        return S

    err = fails("softmax", in_place)
    assert err.diagnosis == "mutates-input"
    assert "S" in err.report.problems[0]


# -- what the grader compares with cannot be patched from the kernel ---------------------

@pytest.mark.parametrize("target, attr", [
    (np, "allclose"), (np, "isclose"), (np, "isfinite"), (runner, "close"), (grade, "close"), (at, "softmax"),
    (attnlib.mixing, "softmax"),
])
def test_patching_what_the_grader_uses_is_reported_not_passed(monkeypatch, target, attr):
    monkeypatch.setattr(target, attr, lambda *a, **k: True)
    err = fails("softmax", softmax_wrong_axis)
    assert err.diagnosis == "grader-modified"
    assert "restart the kernel" in str(err)


def test_patching_the_reference_is_reported_not_passed(monkeypatch):
    monkeypatch.setattr(checks.EXERCISES["softmax"], "reference", softmax_wrong_axis)
    assert fails("softmax", softmax_wrong_axis).diagnosis == "grader-modified"


def test_patching_a_functions_code_is_reported(monkeypatch):
    monkeypatch.setattr(at.softmax.__wrapped__, "__code__", softmax_wrong_axis.__code__)  # its body
    assert fails("softmax", softmax_wrong_axis).diagnosis == "grader-modified"


def test_patching_numpy_inside_the_function_does_not_help(isolation):
    def cheat(S, axis=-1):
        np.allclose = lambda *a, **k: True
        return softmax_wrong_axis(S, axis)

    original = np.allclose
    try:
        err = fails("softmax", cheat)
    finally:
        np.allclose = original
    assert err.diagnosis in ("softmax-wrong-axis", "grader-modified")


def test_a_correct_function_passes_after_the_patches_are_undone(monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(np, "allclose", lambda *a, **k: True)
        fails("softmax", softmax_ok)
    assert check("softmax", softmax_ok).passed


# -- attnlib's own implementation ------------------------------------------------------

@pytest.mark.parametrize("fn", [
    functools.partial(at.softmax),
    functools.partial(attnlib.mixing.softmax, axis=-1),
    lambda S, axis=-1: at.softmax(S, axis),
    lambda S, axis=-1: attnlib.mixing.softmax(S, axis=axis) + 0.0,
], ids=["partial", "partial-mixing", "wrapper", "wrapper-mixing"])
def test_attnlibs_own_softmax_is_named_however_it_is_wrapped(fn, isolation):
    err = fails("softmax", fn)
    assert err.diagnosis == "uses-attnlib"
    assert "softmax" in str(err)


def test_the_graders_own_reference_is_named_too():
    def borrowed(q, k, v, K_cache, V_cache):
        return grader_cache_step(q, k, v, K_cache, V_cache)

    assert fails("cache_step", borrowed).diagnosis == "uses-attnlib"


def test_the_graders_own_pieces_are_named_too():
    from attnlib.checks.mask_and_softmax import softmax  # the pipeline with no choice made
    assert fails("softmax", lambda S, axis=-1: softmax(S, axis)).diagnosis == "uses-attnlib"


def test_a_check_cell_grades_even_after_check_was_redefined():
    cell = 'from attnlib.checks import check  # again here\ncheck("softmax", softmax)'
    namespace = {"check": lambda name, fn: None, "softmax": softmax_wrong_axis}
    with pytest.raises(CheckFailed):
        exec(cell, namespace)


def test_other_attnlib_functions_may_be_used():
    def weights(Q, K, causal=True, scale=True):
        S = at.similarity(Q, K) / (np.sqrt(Q.shape[1]) if scale else 1.0)
        if causal:
            n_q, n_k = S.shape
            S = S + at.causal_mask(n_k)[n_k - n_q:]
        return at.softmax(S)

    def step(q, k, v, K_cache, V_cache):
        K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
        return at.attend_step(q, K_new, V_new), K_new, V_new

    assert check("attention_weights", weights).passed
    assert check("cache_step", step).passed


# -- nothing to read, nothing to memorise -------------------------------------------------

def test_expected_values_cannot_be_read_from_the_graders_stack(isolation):
    def snoop(S, axis=-1):
        frame = sys._getframe(1)
        while frame is not None:
            for key in ("expected", "e"):
                found = frame.f_locals.get(key)
                if isinstance(found, list) and found and isinstance(found[0], np.ndarray):
                    return found[0]
                if isinstance(found, np.ndarray) and found.shape == S.shape:
                    return found
            frame = frame.f_back
        return np.zeros_like(S)

    fails("softmax", snoop)


def test_memorised_outputs_for_the_fixed_probes_fail():
    memo = {p.args[0].tobytes(): at.softmax(*p.args, **p.kwargs) for p in checks.EXERCISES["softmax"].probes}

    def memorised(S, axis=-1):
        return memo.get(S.tobytes(), np.full(S.shape, 1.0 / S.shape[axis]))

    assert all(memorised(*p.args, **p.kwargs) is memo[p.args[0].tobytes()] for p in checks.EXERCISES["softmax"].probes)
    err = fails("softmax", memorised)
    assert "fresh random values, seed" in err.report.probe
    # the failing probe can be rebuilt from the seed the report gives
    seed = int(err.report.probe.rsplit("seed ", 1)[1].split("]")[0])
    probes = checks.EXERCISES["softmax"].probes
    fixed = probes[int(err.report.probe.split(" of ")[0]) - 1 - len(probes)]
    again = fixed.fresh(seed)
    assert again.args[0].tobytes() not in memo
    assert np.array_equal(again.args[0], fixed.fresh(seed).args[0])
    assert not np.array_equal(again.args[0], fixed.fresh(seed + 1).args[0])


def test_fresh_probes_keep_shapes_and_infinities_and_change_the_values():
    for name in ("softmax", "transformer_block", "cache_step", "values"):
        for p in checks.EXERCISES[name].probes:
            q = p.fresh(123)
            flat = [(a, b) for a, b in zip(_arrays(p.args), _arrays(q.args))]
            assert flat and all(a.shape == b.shape for a, b in flat)
            assert all(np.array_equal(np.isinf(a), np.isinf(b)) for a, b in flat)
            assert any(not np.array_equal(a, b) for a, b in flat if a.dtype.kind == "f")
    assert all(p.fresh(1) is None for p in checks.EXERCISES["kv_cache_bytes"].probes)


def _arrays(x):
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, dict):
        return [a for v in x.values() for a in _arrays(v)]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays(v)]
    return []


# -- blank submissions under nbgrader -------------------------------------------------------

@pytest.mark.parametrize("name, value", [("NBGRADER_EXECUTION", "autograde"), ("ATTNLIB_STRICT", "1"),
                                         ("ATTNLIB_STRICT", "true"), ("ATTNLIB_STRICT", "Yes"),
                                         ("ATTNLIB_STRICT", "TRUE")])
def test_not_attempted_fails_under_nbgrader_and_strict(monkeypatch, name, value):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("ATTNLIB_STRICT", raising=False)
    monkeypatch.setenv(name, value)
    assert fails("softmax", stub).diagnosis == "not-attempted"


@pytest.mark.parametrize("value", ["0", "no", "false", ""])
def test_not_attempted_is_grey_otherwise(monkeypatch, value):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("ATTNLIB_STRICT", value)
    assert check("softmax", stub).status == "not-attempted"


# -- odd things a function can do or return -----------------------------------------------------

def _gen(S, axis=-1):
    yield S


@pytest.mark.parametrize("name, fn", [
    ("softmax", lambda S, axis=-1: (_ for _ in ()).throw(StopIteration)),
    ("softmax", _gen),
    ("softmax", lambda S, axis=-1: softmax_ok(S, axis) > 0.2),
    ("softmax", lambda S, axis=-1: softmax_ok(S, axis).tolist()),
    ("softmax", lambda S, axis=-1: None),
    ("softmax", lambda S, axis=-1: np.array(0.5)),
    ("softmax", lambda S, axis=-1: softmax_ok(S, axis).astype(object)),
    ("softmax", lambda S, axis=-1: np.array([lambda: 0] * 3, dtype=object)),
    ("softmax", lambda S, axis=-1: np.zeros((4000, 4000))),
    ("softmax", lambda S, axis=-1: np.ma.masked_array(softmax_ok(S, axis), mask=True)),
    ("similarity", lambda Q, K: iter([Q @ K.T])),
], ids=["stop-iteration", "generator", "bool-mask", "list", "none", "0-d", "object-array", "object-lambdas",
        "huge-array", "masked-array", "iterator"])
def test_odd_results_give_a_report_never_a_grader_crash(name, fn, isolation):
    try:
        report = check(name, fn)
    except CheckFailed as err:
        report = err.report
    assert report.status in ("pass", "fail")
    assert report.text()
    report._repr_html_()


def test_scaling_q_in_place_in_cache_step_is_a_mutation_report():
    def cache_step(q, k, v, K_cache, V_cache):
        q /= np.sqrt(q.shape[0])
        K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
        s = K_new @ q
        a = np.exp(s - s.max())
        return (a / a.sum()) @ V_new, K_new, V_new

    err = fails("cache_step", cache_step)
    assert err.diagnosis == "mutates-input"
    assert "q" in err.report.problems[0]


def test_huge_results_are_described_not_sent_back(isolation):
    err = fails("softmax", lambda S, axis=-1: np.zeros((4000, 4000)))
    assert err.diagnosis == "wrong-shape"
    assert "(4000, 4000)" in str(err)


def test_a_generator_is_named_as_such(isolation):
    err = fails("softmax", _gen)
    assert err.diagnosis == "wrong-type"
    assert "generator" in str(err)


# -- speed --------------------------------------------------------------------------------------

def _layer_norm(X, g, b, eps=1e-5):
    mu, var = X.mean(axis=1, keepdims=True), X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _block(X, p, n_heads, causal=True):
    """A transformer block written out in numpy, independent of attnlib."""
    H = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    d_head = p["Wq"].shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q, K, V = H @ p["Wq"][:, cols], H @ p["Wk"][:, cols], H @ p["Wv"][:, cols]
        S = Q @ K.T / np.sqrt(d_head)
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        heads.append(softmax_ok(S) @ V)
    Y = X + np.concatenate(heads, axis=1) @ p["Wo"]
    Z = _layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]
    return Y + 0.5 * Z * (1 + np.tanh(np.sqrt(2 / np.pi) * (Z + 0.044715 * Z**3))) @ p["W2"] + p["b2"]


@pytest.mark.parametrize("name, fn", [("softmax", softmax_ok), ("transformer_block", _block)])
def test_a_check_stays_fast(name, fn, isolation):
    assert check(name, fn).passed
    start = time.perf_counter()
    for _ in range(3):
        assert check(name, fn).passed
    assert (time.perf_counter() - start) / 3 < 1.0


def test_close_matches_numpy_allclose():
    """The grader's own closeness test (numpy's functions captured at import) agrees with np.allclose."""
    inf, nan = np.inf, np.nan
    cases = [([0.0, -inf], [0.0, -inf]), ([0.0, 0.0], [0.0, -inf]), ([inf], [-inf]), ([nan], [nan]), ([nan], [1.0]),
             ([1.0 + 1e-9], [1.0]), ([1.0 + 1e-3], [1.0]), ([1e-9], [0.0]), ([1e6 + 1.0], [1e6]), ([2.0, 3.0], [2.0])]
    for got, expected in cases:
        got, expected = np.array(got), np.array(expected)
        same_shape = got.shape == expected.shape
        want = same_shape and np.allclose(got, expected, rtol=runner.RTOL, atol=runner.ATOL, equal_nan=True)
        assert runner.close(got, expected) == want, (got, expected)
