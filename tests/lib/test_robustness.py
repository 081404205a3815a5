"""Every public callable on bad, odd and extreme input: the right answer or a clear error.

Each call below ends in one of two accepted outcomes:
  right  it returns, and the result equals an independent reference written here
         in plain numpy (or, for the model, checked against one);
  clear  it raises ValueError (or TypeError) and the message names the argument at fault.
Anything else is counted and fails: a silently wrong result (including NaN or inf
where the maths has none), a valid input refused, a RuntimeWarning, a cryptic
numpy error or any other exception. Inputs must come back unchanged.

The base calls are drawn by hypothesis; each drawn call is then retried with every
perturbation of every argument: wrong ranks, dtypes, containers, flag types,
NaN/inf and huge finite values. The totals are printed at the end of the module.
"""
import copy
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib import train as train_module
from attnlib.data import CopyTask, Tokenizer
from attnlib.model import KVCache, TinyLM
from attnlib.optim import Adam

TALLY = Counter()
PROBLEMS = []


@pytest.fixture(scope="module", autouse=True)
def summary(request):
    yield
    line = (f"robustness: {sum(TALLY[k] for k in ('right', 'clear', 'silent-wrong', 'cryptic', 'refused-valid'))} "
            f"calls tried, {TALLY['right']} right answers, {TALLY['clear']} clear errors, "
            f"{TALLY['silent-wrong']} silent-wrong, {TALLY['cryptic']} cryptic, "
            f"{TALLY['refused-valid']} valid inputs refused")
    request.config.cache.set("robustness/summary", line)  # also readable later: pytest --cache-show
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\n" + line)


# ----------------------------------------------------------------------------
# the classifier

class MustRaise(Exception):
    """Raised by a reference when the maths has no answer for these inputs."""


def snapshot(value):
    if isinstance(value, np.ma.MaskedArray):
        return ("masked", value.data.copy(), np.ma.getmaskarray(value).copy())
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    try:
        return copy.deepcopy(value)
    except Exception:  # generators and the like: nothing to compare
        return None


def same(a, b):
    if isinstance(a, tuple) and a and isinstance(a[0], str) and a[0] == "masked":
        return isinstance(b, np.ma.MaskedArray) and same(a[1], b.data) and same(a[2], np.ma.getmaskarray(b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and (
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return True  # scalars and other objects cannot be changed in place


def close(got, want, rtol):
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(close(got[k], want[k], rtol) for k in want)
    if isinstance(want, str):
        return got == want
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(close(g, w, rtol) for g, w in zip(got, want))
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if got.dtype.kind in "iub" or want.dtype.kind in "iub":
        return np.array_equal(got, want)
    inf = np.isinf(want)
    if not np.array_equal(np.isinf(got), inf) or np.isnan(got).any():
        return False
    if not np.array_equal(got[inf], want[inf]):
        return False
    scale = max(1.0, float(np.max(np.abs(want[~inf]), initial=0.0)))
    return bool(np.allclose(got[~inf], want[~inf], rtol=rtol, atol=rtol * scale))


def outcome(label, fn, args, reference, names, valid=False, rtol=1e-9):
    """Call fn(**args), classify the result, record it. Returns the result (or None)."""
    before = {k: snapshot(v) for k, v in args.items()}
    if valid:  # a variant that is valid in kind but not for these sizes may be refused
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reference(**args)
        except MustRaise:
            valid = False
    problem = None
    result = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = fn(**args)
        except (ValueError, TypeError) as exc:
            message = str(exc)
            if valid:
                kind, problem = "refused-valid", f"refused a valid input: {exc!r}"
            elif any(name in message for name in names):
                kind = "clear"
            else:
                kind, problem = "cryptic", f"error does not name any of {names}: {exc!r}"
        except Exception as exc:  # noqa: BLE001 - anything else is what this test hunts for
            kind, problem = "cryptic", f"{type(exc).__name__}: {exc}"
        else:
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = reference(**args)
            except MustRaise as why:
                kind, problem = "silent-wrong", f"returned although {why}"
            else:
                if want is None or (isinstance(want, bool) and want):
                    kind = "right"
                elif isinstance(want, bool):
                    kind, problem = "silent-wrong", "the result fails its check"
                elif close(result, want, rtol):
                    kind = "right"
                else:
                    kind, problem = "silent-wrong", f"got {np.asarray(result)!r}, want {np.asarray(want)!r}"
    for k, v in before.items():
        if v is not None and not same(v, args[k]):
            kind, problem = "silent-wrong", f"argument {k} was modified"
    TALLY[kind] += 1
    if problem:
        PROBLEMS.append(f"{label}: {problem}")
    return result


def assert_clean():
    found = list(PROBLEMS)
    PROBLEMS.clear()
    assert not found, "\n".join(found[:15]) + (f"\n... and {len(found) - 15} more" if len(found) > 15 else "")


# ----------------------------------------------------------------------------
# perturbations

def array_variants(a, allow=""):
    """(label, value, kind) for one float array argument; kind: 'valid', 'maybe' (either outcome is fine)."""
    a = np.asarray(a, dtype=float)
    out = [("list", a.tolist(), "valid"), ("float32", a.astype(np.float32), "valid"),
           ("int", np.round(np.nan_to_num(a, posinf=9, neginf=-9)).astype(int), "maybe"), ("bool", a > 0, "maybe"),
           ("complex", a + 0j, "maybe"),
           ("string", "abc", "maybe"), ("None", None, "maybe"), ("object", a.astype(object), "maybe"),
           ("masked", np.ma.array(a, mask=np.ones(a.shape, dtype=bool) if a.ndim == 0 else
                                  (np.arange(a.size).reshape(a.shape) == 0)), "maybe"),
           ("rank+1", a[None], "maybe"), ("scalar", 1.5, "maybe")]
    if a.ndim >= 1:
        out += [("rank-1", a[0], "maybe"), ("empty", a[:0], "maybe")]
    for label, value in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
        b = a.copy()
        b.flat[-1] = value
        out.append((label, b, "valid" if label in allow else "maybe"))
    out += [("huge", a * 1e200 + 1e200, "maybe"), ("huge32", (a * 1e20 + 1e20).astype(np.float32), "maybe"),
            ("tiny", a * 1e-200, "maybe")]
    return out


FLAG_VARIANTS = [("np.bool_", np.True_, "valid"), ("'False'", "False", "maybe"), ("0", 0, "maybe"),
                 ("1", 1, "maybe"), ("None", None, "maybe"), ("1.0", 1.0, "maybe"),
                 ("array", np.array([True]), "maybe")]
INT_VARIANTS = [("np.int64", np.int64(2), "valid"), ("-1", -1, "maybe"), ("0", 0, "maybe"), ("1.5", 1.5, "maybe"),
                ("'3'", "3", "maybe"), ("True", True, "maybe"), ("None", None, "maybe"), ("2**40", 2**40, "maybe"),
                ("2.0", 2.0, "maybe")]
FLOAT_VARIANTS = [("np.float32", np.float32(0.25), "valid"), ("0", 0.0, "maybe"), ("-1", -1.0, "maybe"),
                  ("nan", float("nan"), "maybe"), ("inf", float("inf"), "maybe"), ("str", "1e-5", "maybe"),
                  ("None", None, "maybe"), ("True", True, "maybe"), ("1e300", 1e300, "maybe")]


def sweep(label, fn, args, reference, kinds, rtol=1e-9, names_for=None):
    """The base call, then every argument replaced by each of its variants in turn."""
    outcome(f"{label}(base)", fn, args, reference, list(args), valid=True, rtol=rtol)
    for name, kind in kinds.items():
        if kind.startswith("array"):
            variants = array_variants(args[name], allow=kind.partition(":")[2])
        else:
            variants = {"flag": FLAG_VARIANTS, "int": INT_VARIANTS, "float": FLOAT_VARIANTS}[kind]
        for vlabel, value, vkind in variants:
            trial = dict(args, **{name: value})
            loose = rtol if vlabel not in ("float32", "huge32") else 2e-3
            names = (names_for or {}).get(name, [name])
            outcome(f"{label}({name}={vlabel})", fn, trial, reference, names, valid=vkind == "valid", rtol=loose)


# ----------------------------------------------------------------------------
# independent references, plain numpy and loops

def F(a):
    """The reference's view of an argument: a float64 array, or MustRaise when the maths has no answer."""
    if isinstance(a, np.ma.MaskedArray):
        raise MustRaise("a masked array must be refused")
    arr = np.asarray(a)
    if arr.dtype.kind != "f":
        raise MustRaise(f"dtype {arr.dtype} must be refused")
    if np.isnan(arr).any():
        raise MustRaise("NaN has no answer")
    return arr.astype(np.float64)


def finite(R, what="the result overflows"):
    R = np.asarray(R)
    if not np.isfinite(R).all():
        raise MustRaise(what)
    return R


def need_finite(*arrays):
    for a in arrays:
        if not np.isfinite(a).all():
            raise MustRaise("inf has no answer here")


def need_rank(a, ndim):
    if a.ndim != ndim or a.size == 0:
        raise MustRaise(f"rank {a.ndim}/empty must be refused")


def need_bool(*flags):
    for f in flags:
        if not isinstance(f, (bool, np.bool_)):
            raise MustRaise(f"flag {f!r} must be refused")


def need_int(value, low=1, high=2**20):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise MustRaise(f"size {value!r} must be refused")
    if high is not None and value > high:
        raise MustRaise("too large to allocate")
    return int(value)


def ref_softmax_rows(S):
    out = np.zeros_like(S)
    for idx in np.ndindex(S.shape[:-1]):
        row = S[idx]
        if np.all(row == -np.inf):
            raise MustRaise("a row of all -inf has nothing to attend to")
        e = np.array([math.exp(s - max(row)) if s != -np.inf else 0.0 for s in row])
        out[idx] = e / e.sum()
    return out


def ref_scores(Q, K, causal, scale):
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    S = np.array([[float(np.dot(Q[i], K[j])) for j in range(n_k)] for i in range(n_q)]).reshape(n_q, n_k)
    finite(S, "Q @ K.T overflows")
    if scale:
        S = S / math.sqrt(d)
    if causal:
        if n_q > n_k:
            raise MustRaise("causal needs n_q <= n_k")
        for i in range(n_q):
            for j in range(n_k):
                if j > n_k - n_q + i:
                    S[i, j] = -np.inf
    return S


def ref_attention_weights(Q, K, causal=True, scale=True):
    need_bool(causal, scale)
    Q, K = F(Q), F(K)
    need_rank(Q, 2), need_rank(K, 2), need_finite(Q, K)
    if Q.shape[1] != K.shape[1]:
        raise MustRaise("d mismatch")
    return ref_softmax_rows(ref_scores(Q, K, causal, scale))


def ref_attention(Q, K, V, causal=True, scale=True):
    A = ref_attention_weights(Q, K, causal, scale)
    V = F(V)
    need_rank(V, 2), need_finite(V)
    if V.shape[0] != A.shape[1]:
        raise MustRaise("V rows")
    return finite(A @ V)


def ref_layer_norm(X, g, b, eps=1e-5):
    X, g, b = F(X), F(g), F(b)
    need_rank(X, 2), need_rank(g, 1), need_rank(b, 1), need_finite(X, g, b)
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, np.floating)) or not (
            np.isfinite(eps) and eps > 0):
        raise MustRaise("eps must be a finite positive number")
    eps = float(eps)
    if g.shape != (X.shape[1],) or b.shape != g.shape:
        raise MustRaise("g, b shape")
    out = np.zeros_like(X)
    for i, row in enumerate(X):
        mu = math.fsum(row) / len(row)
        var = math.fsum((x - mu) ** 2 for x in row) / len(row)
        out[i] = (row - mu) / math.sqrt(var + eps) * g + b
    return finite(out)


def ref_gelu_scalar(x):
    if x == -np.inf:
        return 0.0
    if x == np.inf:
        return np.inf
    if abs(x) > 1e100:  # tanh has saturated long before
        return x if x > 0 else 0.0
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def ref_gelu(X):
    X = F(X)
    return np.vectorize(ref_gelu_scalar, otypes=[float])(X).reshape(X.shape)


def ref_matmul(X, W, ndim_x=2):
    X, W = F(X), F(W)
    need_rank(X, ndim_x), need_rank(W, 2), need_finite(X, W)
    if X.shape[-1] != W.shape[0]:
        raise MustRaise("inner sizes")
    return finite(np.array([[math.fsum(X2[i] * W[:, j]) for j in range(W.shape[1])]
                            for X2 in [np.atleast_2d(X)] for i in range(X2.shape[0])]).reshape(
        X.shape[:-1] + (W.shape[1],)))


def ref_mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    need_bool(causal)
    n_heads = need_int(n_heads)
    X, Wq, Wk, Wv, Wo = (F(a) for a in (X, Wq, Wk, Wv, Wo))
    for a in (X, Wq, Wk, Wv, Wo):
        need_rank(a, 2), need_finite(a)
    if Wq.shape[1] % n_heads or Wq.shape != Wk.shape or Wv.shape[1] % n_heads or X.shape[1] != Wq.shape[0]:
        raise MustRaise("head layout")
    d_head, d_v = Wq.shape[1] // n_heads, Wv.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        q, k = finite(X @ Wq[:, h * d_head:(h + 1) * d_head]), finite(X @ Wk[:, h * d_head:(h + 1) * d_head])
        v = finite(X @ Wv[:, h * d_v:(h + 1) * d_v])
        heads.append(ref_attention(q, k, v, causal))
    return ref_matmul(np.concatenate(heads, axis=1), Wo)


def ref_gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    """Query head h against key/value group h // (n_heads // n_kv_heads), a loop over heads."""
    need_bool(causal)
    n_heads, n_kv_heads = need_int(n_heads), need_int(n_kv_heads)
    X, Wq, Wk, Wv, Wo = (F(a) for a in (X, Wq, Wk, Wv, Wo))
    for a in (X, Wq, Wk, Wv, Wo):
        need_rank(a, 2), need_finite(a)
    if (n_heads % n_kv_heads or Wq.shape[1] % n_heads or Wk.shape[1] % n_kv_heads or Wv.shape[1] % n_kv_heads
            or Wq.shape[1] // n_heads != Wk.shape[1] // n_kv_heads or Wk.shape[0] != Wq.shape[0]
            or Wv.shape[0] != Wq.shape[0] or X.shape[1] != Wq.shape[0]
            or Wo.shape[0] != n_heads * (Wv.shape[1] // n_kv_heads)):
        raise MustRaise("group layout")
    d_head, d_v, size = Wq.shape[1] // n_heads, Wv.shape[1] // n_kv_heads, n_heads // n_kv_heads
    heads = []
    for h in range(n_heads):
        g = h // size
        q, k = finite(X @ Wq[:, h * d_head:(h + 1) * d_head]), finite(X @ Wk[:, g * d_head:(g + 1) * d_head])
        v = finite(X @ Wv[:, g * d_v:(g + 1) * d_v])
        heads.append(ref_attention(q, k, v, causal))
    return ref_matmul(np.concatenate(heads, axis=1), Wo)


BLOCK_KEYS = ("ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_g", "ln2_b", "W1", "b1", "W2", "b2")


def ref_block(X, p, n_heads, causal=True):
    if not isinstance(p, dict) or set(p) != set(BLOCK_KEYS):
        raise MustRaise("p keys")
    X = F(X)
    need_rank(X, 2), need_finite(X)
    Y = X + ref_mha(ref_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = ref_layer_norm(Y, p["ln2_g"], p["ln2_b"])
    b1, b2 = F(p["b1"]), F(p["b2"])
    need_rank(b1, 1), need_rank(b2, 1)
    if b2.shape != (X.shape[1],):
        raise MustRaise("b2 shape")
    return finite(Y + ref_matmul(ref_gelu(ref_matmul(H, p["W1"]) + b1), p["W2"]) + b2)


# ----------------------------------------------------------------------------
# the public functions of attnlib.__all__

seeds = st.integers(0, 2**16)
sizes = st.integers(1, 4)


def normal(seed, *shape):
    return np.random.default_rng(seed).normal(size=shape)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=sizes, d=sizes, e=sizes)
def test_projection(seed, n, d, e):
    X, W = normal(seed, n, d), normal(seed + 1, d, e)
    sweep("project", attnlib.project, {"x": X[0], "W": W}, lambda x, W: ref_matmul(x, W, 1),
          {"x": "array", "W": "array"})
    sweep("project_rows", attnlib.project_rows, {"X": X, "W": W}, ref_matmul, {"X": "array", "W": "array"})
    assert_clean()


def ref_uniform(n):
    n = need_int(n)
    return np.array([[1 / (i + 1) if j <= i else 0.0 for j in range(n)] for i in range(n)])


def ref_mask(n):
    n = need_int(n)
    return np.array([[0.0 if j <= i else -np.inf for j in range(n)] for i in range(n)])


def ref_window_mask(n, window):
    n, window = need_int(n), need_int(window, high=None)
    return np.array([[0.0 if i - window < j <= i else -np.inf for j in range(n)] for i in range(n)])


def ref_causal_average(V):
    V = F(V)
    need_rank(V, 2), need_finite(V)
    return finite([[math.fsum(V[:i + 1, c]) / (i + 1) for c in range(V.shape[1])] for i in range(V.shape[0])])


def ref_softmax(S, axis=-1):
    S = F(S)
    if S.ndim == 0 or S.size == 0 or np.isposinf(S).any():
        raise MustRaise("S must be non-empty with no +inf")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)) or not -S.ndim <= axis < S.ndim:
        raise MustRaise(f"axis {axis!r} must be refused")
    return np.moveaxis(ref_softmax_rows(np.moveaxis(S, axis, -1)), -1, axis)


def ref_softmax_backward(A, dA):
    A, dA = F(A), F(dA)
    need_finite(A, dA)
    if A.shape != dA.shape or A.ndim == 0 or A.size == 0:
        raise MustRaise("shapes")
    out = np.zeros_like(A)
    for idx in np.ndindex(A.shape[:-1]):
        a = A[idx]
        J = np.diag(a) - np.outer(a, a)  # dA_i / dS_j of the softmax
        out[idx] = J.T @ dA[idx]
    return finite(out)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=sizes, d=sizes)
def test_mixing(seed, n, d):
    sweep("uniform_causal_weights", attnlib.uniform_causal_weights, {"n": n}, ref_uniform, {"n": "int"})
    sweep("causal_mask", attnlib.causal_mask, {"n": n}, ref_mask, {"n": "int"})
    sweep("sliding_window_mask", attnlib.sliding_window_mask, {"n": n, "window": max(1, d // 2)}, ref_window_mask,
          {"n": "int", "window": "int"})
    sweep("causal_average", attnlib.causal_average, {"V": normal(seed, n, d)}, ref_causal_average, {"V": "array"})
    S = normal(seed, n, d + 1)
    S[0, 1:] = -np.inf  # the mask is part of a valid input
    sweep("softmax", attnlib.softmax, {"S": S, "axis": -1}, ref_softmax, {"S": "array:-inf"},
          names_for={"S": ["S"]})
    for label, axis, kind in (("1.0", 1.0, "maybe"), ("None", None, "maybe"), ("tuple", (0,), "maybe"),
                              ("'0'", "0", "maybe"), ("True", True, "maybe"), ("5", 5, "maybe"),
                              ("-3", -3, "maybe"), ("np.int64(0)", np.int64(0), "valid"), ("0", 0, "valid")):
        outcome(f"softmax(axis={label})", attnlib.softmax, {"S": normal(seed, n, d), "axis": axis}, ref_softmax,
                ["axis"], valid=kind == "valid")
    A = ref_softmax_rows(normal(seed, n, d))
    sweep("softmax_backward", attnlib.softmax_backward, {"A": A, "dA": normal(seed + 1, n, d)}, ref_softmax_backward,
          {"A": "array", "dA": "array"})
    assert_clean()


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=sizes, m=sizes, d=sizes, causal=st.booleans(), scale=st.booleans())
def test_attention(seed, n, m, d, causal, scale):
    n_k = n + m - 1  # n_q <= n_k, as causal attention needs
    Q, K, V = normal(seed, n, d), normal(seed + 1, n_k, d), normal(seed + 2, n_k, d + 1)

    def ref_similarity(Q, K):
        return ref_scores(*_qk(Q, K), False, False)

    def _qk(Q, K):
        Q, K = F(Q), F(K)
        need_rank(Q, 2), need_rank(K, 2), need_finite(Q, K)
        if Q.shape[1] != K.shape[1]:
            raise MustRaise("d mismatch")
        return Q, K

    sweep("similarity", attnlib.similarity, {"Q": Q, "K": K}, ref_similarity, {"Q": "array", "K": "array"})
    qk_names = {"Q": ["Q"], "K": ["K"]}
    sweep("attention_weights", attnlib.attention_weights, {"Q": Q, "K": K, "causal": causal, "scale": scale},
          ref_attention_weights, {"Q": "array", "K": "array", "causal": "flag", "scale": "flag"}, names_for=qk_names)
    sweep("attention", attnlib.attention, {"Q": Q, "K": K, "V": V, "causal": causal, "scale": scale},
          ref_attention, {"Q": "array", "K": "array", "V": "array", "causal": "flag", "scale": "flag"})

    def ref_tiled(Q, K, V, causal=True, block=64):
        need_int(block, high=None)  # a block larger than n is one tile
        return ref_attention(Q, K, V, causal, True)

    sweep("tiled_attention", attnlib.tiled_attention, {"Q": Q, "K": K, "V": V, "causal": causal, "block": 2},
          ref_tiled, {"Q": "array", "K": "array", "V": "array", "causal": "flag", "block": "int"})

    def ref_step(q, K_cache, V_cache):
        q = F(q)
        need_rank(q, 1)
        return ref_attention(q[None], K_cache, V_cache, False, True)[0]

    sweep("attend_step", attnlib.attend_step, {"q": Q[0], "K_cache": K, "V_cache": V}, ref_step,
          {"q": "array", "K_cache": "array", "V_cache": "array"})
    assert_clean()


@settings(max_examples=6, deadline=None)
@given(seed=seeds, n=sizes, n_heads=st.integers(1, 2), d_head=st.integers(1, 2), causal=st.booleans())
def test_heads(seed, n, n_heads, d_head, causal):
    d = n_heads * d_head
    X = normal(seed, n, d)
    Wq, Wk, Wv, Wo = (normal(seed + i, d, d) for i in range(1, 5))

    def ref_self(X, Wq, Wk, Wv, Wo=None, causal=True):
        need_bool(causal)
        X, Wq, Wk, Wv = F(X), F(Wq), F(Wk), F(Wv)
        O = ref_attention(ref_matmul(X, Wq), ref_matmul(X, Wk), ref_matmul(X, Wv), causal)
        return O if Wo is None else ref_matmul(O, Wo)

    sweep("self_attention", attnlib.self_attention,
          {"X": X, "Wq": Wq[:, :d_head], "Wk": Wk[:, :d_head], "Wv": Wv, "Wo": Wo, "causal": causal}, ref_self,
          {"X": "array", "Wq": "array", "Wk": "array", "Wv": "array", "Wo": "array", "causal": "flag"})
    sweep("multi_head_attention", attnlib.multi_head_attention,
          {"X": X, "Wq": Wq, "Wk": Wk, "Wv": Wv, "Wo": Wo, "n_heads": n_heads, "causal": causal}, ref_mha,
          {"X": "array", "Wq": "array", "Wk": "array", "Wv": "array", "Wo": "array", "n_heads": "int",
           "causal": "flag"},
          names_for={"n_heads": ["n_heads"]})
    n_q = 2 * n_heads  # query heads: two per K/V group
    sweep("grouped_query_attention", attnlib.grouped_query_attention,
          {"X": X, "Wq": normal(seed + 5, d, n_q * d_head), "Wk": Wk, "Wv": Wv, "Wo": normal(seed + 6, n_q * d_head, d),
           "n_heads": n_q, "n_kv_heads": n_heads, "causal": causal}, ref_gqa,
          {"X": "array", "Wq": "array", "Wk": "array", "Wv": "array", "Wo": "array", "n_heads": "int",
           "n_kv_heads": "int", "causal": "flag"},
          names_for={"n_heads": ["n_heads"], "n_kv_heads": ["n_kv_heads"]})
    assert_clean()


@settings(max_examples=6, deadline=None)
@given(seed=seeds, n=sizes, d=st.integers(2, 4))
def test_layers(seed, n, d):
    X = normal(seed, n, d)
    g, b = 1 + 0.1 * normal(seed + 1, d), normal(seed + 2, d)
    sweep("layer_norm", attnlib.layer_norm, {"X": X, "g": g, "b": b, "eps": 1e-5}, ref_layer_norm,
          {"X": "array", "g": "array", "b": "array", "eps": "float"})
    sweep("gelu", attnlib.gelu, {"X": 3 * X}, ref_gelu, {"X": "array:inf,-inf"})
    outcome("gelu(±inf)", attnlib.gelu, {"X": np.array([-np.inf, np.inf, 0.0])},
            lambda X: np.array([0.0, np.inf, 0.0]), ["X"], valid=True)
    outcome("layer_norm(constant row)", attnlib.layer_norm,
            {"X": np.full((2, d), 7.0), "g": g, "b": b, "eps": 1e-5}, ref_layer_norm, ["X"], valid=True)
    sweep("next_token_logits", attnlib.next_token_logits, {"H": X, "W_vocab": normal(seed + 3, d, 5)},
          lambda H, W_vocab: ref_matmul(F(H)[-1:] if F(H).ndim == 2 else F(H)[None], W_vocab)[0]
          if F(H).ndim == 2 and F(H).size else (_ for _ in ()).throw(MustRaise("H rank")),
          {"H": "array", "W_vocab": "array"})
    p = {k: 0.3 * normal(seed + i, *((d,) if k.startswith("ln") or k == "b2" else (4 * d,) if k == "b1" else
                                      (d, 4 * d) if k == "W1" else (4 * d, d) if k == "W2" else (d, d)))
         for i, k in enumerate(BLOCK_KEYS)}
    args = {"X": X, "p": p, "n_heads": 2 if d % 2 == 0 else 1, "causal": True}
    sweep("transformer_block", attnlib.transformer_block, args, ref_block,
          {"X": "array", "n_heads": "int", "causal": "flag"})
    for key in ("Wq", "ln1_g", "b1", "W2"):  # a bad entry of p is named by its key
        for vlabel, value, vkind in array_variants(p[key]):
            trial = dict(args, p=dict(p, **{key: value}))
            outcome(f"transformer_block(p[{key}]={vlabel})", attnlib.transformer_block, trial, ref_block,
                    [key], valid=vkind == "valid", rtol=2e-3 if vlabel == "float32" else 1e-9)
    for label, bad in (("missing", {k: v for k, v in p.items() if k != "W1"}), ("list", list(p.values())),
                       ("None", None), ("extra", dict(p, W3=p["W2"]))):
        outcome(f"transformer_block(p={label})", attnlib.transformer_block, dict(args, p=bad), ref_block,
                ["p", "W1", "W3"])
    assert_clean()


def ref_rope(X, positions, theta=10000.0):
    """Each pair (2i, 2i+1) of row t times the 2x2 rotation by positions[t] * theta^(-2i/d), one pair at a time."""
    X = F(X)
    need_rank(X, 2)
    need_finite(X)
    if X.shape[1] % 2:
        raise MustRaise("d must be even")
    if isinstance(positions, np.ma.MaskedArray):
        raise MustRaise("masked positions")
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu" or pos.shape != (X.shape[0],) or (pos.size and pos.min() < 0):
        raise MustRaise("positions are n integers from 0")
    if isinstance(theta, (bool, np.bool_)) or not isinstance(theta, (int, float, np.floating)) or not (
            np.isfinite(theta) and theta > 0):
        raise MustRaise("theta is a positive number")
    out = np.empty_like(X)
    n, d = X.shape
    for t in range(n):
        for i in range(d // 2):
            a = float(pos[t]) * float(theta) ** (-2 * i / d)
            R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            out[t, 2 * i:2 * i + 2] = R @ X[t, 2 * i:2 * i + 2]
    return finite(out)


@settings(max_examples=6, deadline=None)
@given(seed=seeds, n=sizes, pairs=st.integers(1, 3), theta=st.sampled_from([10000.0, 100.0, 1.0, 0.5]))
def test_rope(seed, n, pairs, theta):
    X = normal(seed, n, 2 * pairs)
    positions = np.random.default_rng(seed).integers(0, 50, n)
    args = {"X": X, "positions": positions, "theta": theta}
    sweep("rope", attnlib.rope, args, ref_rope, {"X": "array", "theta": "float"})
    for label, value in (("list", positions.tolist()), ("int32", positions.astype(np.int32)),
                         ("uint8", positions.astype(np.uint8)), ("float", positions.astype(float)),
                         ("bool", positions > 10), ("negative", positions - 60), ("short", positions[:-1]),
                         ("2-D", positions[None]), ("None", None), ("string", "0123"),
                         ("masked", np.ma.array(positions)), ("huge", positions + 2**40)):
        outcome(f"rope(positions={label})", attnlib.rope, dict(args, positions=value), ref_rope, ["positions"],
                valid=label in ("list", "int32", "uint8", "huge"), rtol=1e-6 if label == "huge" else 1e-9)
    outcome("rope(odd d)", attnlib.rope, dict(args, X=normal(seed, n, 2 * pairs + 1)), ref_rope, ["X", "d="])
    assert_clean()


def test_kv_cache_bytes():
    def ref(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2, n_kv_heads=None):
        sizes = (n_layers, n_heads, d_head, seq_len, batch, bytes_per_value) + ((n_kv_heads,) if n_kv_heads else ())
        for v in sizes + ((0,) if n_kv_heads is not None and not n_kv_heads else ()):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
                raise MustRaise("sizes are positive ints")
        if n_kv_heads is not None and n_heads % n_kv_heads:
            raise MustRaise("n_kv_heads divides n_heads")
        kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        return 2 * int(n_layers) * int(kv_heads) * int(d_head) * int(seq_len) * int(batch) * int(bytes_per_value)

    base = {"n_layers": 2, "n_heads": 6, "d_head": 4, "seq_len": 5, "batch": 1, "bytes_per_value": 2, "n_kv_heads": 3}
    for name in base:
        for vlabel, value, vkind in INT_VARIANTS:
            outcome(f"kv_cache_bytes({name}={vlabel})", attnlib.kv_cache_bytes, dict(base, **{name: value}), ref,
                    [name], valid=vkind == "valid")
    outcome("kv_cache_bytes(huge)", attnlib.kv_cache_bytes, dict(base, seq_len=2**40), ref, ["seq_len"], valid=True)
    assert_clean()


def ref_targets(targets, n, vocab):
    """The reference's view of the targets: n ints in [0, vocab), or MustRaise."""
    if isinstance(targets, np.ma.MaskedArray):
        raise MustRaise("a masked array must be refused")
    t = np.asarray(targets)
    if t.dtype.kind not in "iu" or t.shape != (n,) or (t < 0).any() or (t >= vocab).any():
        raise MustRaise(f"targets {t.dtype} {t.shape} must be n ints in [0, vocab)")
    return t.astype(int)


def ref_cross_entropy(logits, targets):
    Z = F(logits)
    need_rank(Z, 2), need_finite(Z)
    t = ref_targets(targets, *Z.shape)
    n = Z.shape[0]
    loss, dZ = 0.0, np.zeros_like(Z)
    for i, row in enumerate(Z):
        m = max(row)
        lse = m + math.log(math.fsum(math.exp(z - m) for z in row))
        loss += (lse - row[t[i]]) / n
        dZ[i] = [(math.exp(z - lse) - (j == t[i])) / n for j, z in enumerate(row)]
    return finite(loss), dZ


def ref_attention_backward(Q, K, V, dO, causal=True, scale=True):
    A = ref_attention_weights(Q, K, causal, scale)  # (n_q, n_k)
    Q, K, V, dO = F(Q), F(K), F(V), F(dO)
    need_rank(V, 2), need_rank(dO, 2), need_finite(V, dO)
    if V.shape[0] != A.shape[1] or dO.shape != (A.shape[0], V.shape[1]):
        raise MustRaise("V rows or dO shape")
    s = 1 / math.sqrt(Q.shape[1]) if scale else 1.0
    dA = finite(dO @ V.T)
    dS = np.array([[A[i, j] * (dA[i, j] - math.fsum(A[i] * dA[i])) * s for j in range(A.shape[1])]
                   for i in range(A.shape[0])])
    return finite(dS @ K), finite(dS.T @ Q), finite(A.T @ dO)


def ref_layer_norm_backward(X, g, dY, eps=1e-5):
    ref_layer_norm(X, g, np.zeros_like(F(g)), eps)  # the same input rules as the forward pass
    X, g, dY = F(X), F(g), F(dY)
    need_rank(dY, 2), need_finite(dY)
    if dY.shape != X.shape:
        raise MustRaise("dY shape")
    dX, dg, db = np.zeros_like(X), np.zeros_like(g), np.zeros_like(g)
    for i, row in enumerate(X):
        mu = math.fsum(row) / len(row)
        r = 1 / math.sqrt(math.fsum((x - mu) ** 2 for x in row) / len(row) + float(eps))
        xhat = (row - mu) * r
        dxhat = dY[i] * g
        dX[i] = r * (dxhat - math.fsum(dxhat) / len(row) - xhat * math.fsum(dxhat * xhat) / len(row))
        dg += dY[i] * xhat
        db += dY[i]
    return finite(dX), finite(dg), finite(db)


def ref_sample_next(logits, temperature, u):
    z = F(logits) if not (isinstance(logits, np.ndarray) and logits.dtype.kind == "f") else logits.astype(float)
    if isinstance(logits, np.ma.MaskedArray) or np.isnan(z).any() or np.isposinf(z).any():
        raise MustRaise("logits must be finite floats or -inf")
    need_rank(z, 1)
    for v, low, high in ((temperature, 0.0, math.inf), (u, 0.0, 1.0)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.floating, np.integer)) or not (
                math.isfinite(v) and low <= v < high):
            raise MustRaise(f"{v!r} out of range")
    if np.isneginf(z).all():
        raise MustRaise("nothing to sample")
    if temperature == 0:
        return int(np.argmax(z))
    m = max(z)
    e = [math.exp((x - m) / temperature) if x != -np.inf else 0.0 for x in z]
    total, running = math.fsum(e), 0.0
    for i, x in enumerate(e):
        running += x / total
        if running > u and x > 0:
            return i
    return max(i for i, x in enumerate(e) if x > 0)  # u above every rounded running total: the last possible id


def _logits(logits):
    z = F(logits) if not (isinstance(logits, np.ndarray) and logits.dtype.kind == "f") else logits.astype(float)
    if isinstance(logits, np.ma.MaskedArray) or np.isnan(z).any() or np.isposinf(z).any():
        raise MustRaise("logits must be finite floats or -inf")
    need_rank(z, 1)
    if np.isneginf(z).all():
        raise MustRaise("nothing to keep")
    return z


def ref_top_k_filter(logits, k):
    z, k = _logits(logits), need_int(k, high=None)
    return np.array([x if sum(y > x for y in z) < k else -np.inf for x in z])  # fewer than k beat it


def ref_top_p_filter(logits, p):
    z = _logits(logits)
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.floating, np.integer)) or not (
            math.isfinite(p) and 0 < p <= 1):
        raise MustRaise(f"p={p!r} out of range")
    if p == 1:
        return z.copy()
    m = max(z)
    e = [math.exp(x - m) if x != -np.inf else 0.0 for x in z]
    P = [x / math.fsum(e) for x in e]
    out, above = np.full(len(z), -np.inf), []
    for i in sorted(range(len(z)), key=lambda i: (-P[i], i)):
        if math.fsum(above) >= p:
            break
        out[i] = z[i]
        above.append(P[i])
    return out


TARGET_VARIANTS = [("list", "list", "valid"), ("np.int32", "int32", "valid"), ("float", "float", "maybe"),
                   ("-1", "negative", "maybe"), ("vocab", "outside", "maybe"), ("short", "short", "maybe"),
                   ("2-D", "2d", "maybe"), ("bool", "bool", "maybe"), ("None", "none", "maybe")]


def target_variant(t, how, vocab):
    return {"list": t.tolist(), "int32": t.astype(np.int32), "float": t.astype(float),
            "negative": np.where(np.arange(len(t)) == 0, -1, t), "outside": np.full_like(t, vocab),
            "short": t[:-1], "2d": t[None], "bool": t > 0, "none": None}[how]


@settings(max_examples=6, deadline=None)
@given(seed=seeds, n=sizes, m=sizes, d=sizes, causal=st.booleans(), scale=st.booleans())
def test_backward_passes(seed, n, m, d, causal, scale):
    vocab = d + 2
    logits, targets = 3 * normal(seed, n, vocab), np.random.default_rng(seed).integers(0, vocab, n)
    sweep("cross_entropy", attnlib.cross_entropy, {"logits": logits, "targets": targets}, ref_cross_entropy,
          {"logits": "array"})
    for vlabel, how, vkind in TARGET_VARIANTS:
        outcome(f"cross_entropy(targets={vlabel})", attnlib.cross_entropy,
                {"logits": logits, "targets": target_variant(targets, how, vocab)}, ref_cross_entropy,
                ["targets"], valid=vkind == "valid")
    n_k = n + m - 1
    Q, K, V = normal(seed, n, d), normal(seed + 1, n_k, d), normal(seed + 2, n_k, d + 1)
    sweep("attention_backward", attnlib.attention_backward,
          {"Q": Q, "K": K, "V": V, "dO": normal(seed + 3, n, d + 1), "causal": causal, "scale": scale},
          ref_attention_backward, {"Q": "array", "K": "array", "V": "array", "dO": "array", "causal": "flag",
                                   "scale": "flag"})
    X = normal(seed, n, d + 1)
    sweep("layer_norm_backward", attnlib.layer_norm_backward,
          {"X": X, "g": 1 + 0.1 * normal(seed + 1, d + 1), "dY": normal(seed + 2, n, d + 1), "eps": 1e-5},
          ref_layer_norm_backward, {"X": "array", "g": "array", "dY": "array", "eps": "float"})
    assert_clean()


@settings(max_examples=6, deadline=None)
@given(seed=seeds, vocab=st.integers(1, 6), temperature=st.sampled_from([0.0, 0.5, 1.0, 3.0]),
       u=st.floats(0.0, 1.0, exclude_max=True))
def test_sample_next(seed, vocab, temperature, u):
    logits = 2 * normal(seed, vocab)
    sweep("sample_next", attnlib.sample_next, {"logits": logits, "temperature": temperature, "u": u},
          ref_sample_next, {"logits": "array:-inf", "temperature": "float", "u": "float"})
    masked = np.where(np.arange(vocab) % 2 == 1, -np.inf, logits)  # -inf logits are never picked
    outcome("sample_next(-inf logits)", attnlib.sample_next, {"logits": masked, "temperature": 1.0, "u": u},
            ref_sample_next, ["logits"], valid=True)
    assert_clean()


@settings(max_examples=6, deadline=None)
@given(seed=seeds, vocab=st.integers(1, 6), k=st.integers(1, 8), p=st.sampled_from([0.1, 0.5, 0.9, 1.0]))
def test_decoding_filters(seed, vocab, k, p):
    logits = 2 * normal(seed, vocab)
    sweep("top_k_filter", attnlib.top_k_filter, {"logits": logits, "k": k}, ref_top_k_filter,
          {"logits": "array:-inf", "k": "int"})
    sweep("top_p_filter", attnlib.top_p_filter, {"logits": logits, "p": p}, ref_top_p_filter,
          {"logits": "array:-inf", "p": "float"})
    assert_clean()


def test_huge_sizes_are_refused_before_allocating():
    for fn in (attnlib.uniform_causal_weights, attnlib.causal_mask):
        outcome(f"{fn.__name__}(10**6)", fn, {"n": 10**6}, lambda n: (_ for _ in ()).throw(MustRaise("too big")),
                ["n"])
    outcome("sliding_window_mask(10**6)", attnlib.sliding_window_mask, {"n": 10**6, "window": 4},
            lambda **k: (_ for _ in ()).throw(MustRaise("too big")), ["n"])
    outcome("KVCache(huge)", KVCache, {"n_layers": 10**4, "n_heads": 10**4, "d_head": 64, "max_len": 10**4},
            lambda **k: (_ for _ in ()).throw(MustRaise("too big")), ["n_layers"])
    outcome("TinyLM(huge vocab)", TinyLM, {"vocab_size": 10**9, "d_model": 64, "n_heads": 1, "n_layers": 1,
                                           "max_len": 8}, lambda **k: (_ for _ in ()).throw(MustRaise("too big")),
            ["vocab_size"])
    assert_clean()


# ----------------------------------------------------------------------------
# TinyLM, KVCache, Adam, Tokenizer, attnlib.train

def ref_ln_rows(X, g, b, eps=1e-5):
    mu = X.mean(-1, keepdims=True)
    return (X - mu) / np.sqrt(((X - mu) ** 2).mean(-1, keepdims=True) + eps) * g + b


def ref_model_logits(model, tokens):
    """The model's forward for one sequence, written out head by head."""
    p, T, d_head = model.params, len(tokens), model.d_head
    X = np.stack([p["tok_emb"][t] + p["pos_emb"][i] for i, t in enumerate(tokens)]).astype(np.float64)
    for layer in range(model.n_layers):
        b = {k: p[f"blocks.{layer}.{k}"].astype(np.float64) for k in BLOCK_KEYS}
        H = ref_ln_rows(X, b["ln1_g"], b["ln1_b"])
        heads = []
        for h in range(model.n_heads):
            cols = slice(h * d_head, (h + 1) * d_head)
            S = (H @ b["Wq"][:, cols]) @ (H @ b["Wk"][:, cols]).T / math.sqrt(d_head)
            S[np.triu_indices(T, 1)] = -np.inf
            heads.append(ref_softmax_rows(S) @ (H @ b["Wv"][:, cols]))
        X = X + np.concatenate(heads, axis=1) @ b["Wo"]
        H = ref_ln_rows(X, b["ln2_g"], b["ln2_b"])
        X = X + ref_gelu(H @ b["W1"] + b["b1"]) @ b["W2"] + b["b2"]
    return ref_ln_rows(X, p["ln_f_g"], p["ln_f_b"]) @ p["W_out"]


def model_kwargs(**kw):
    return dict({"vocab_size": 7, "d_model": 4, "n_heads": 2, "n_layers": 1, "max_len": 6, "seed": 0,
                 "dtype": np.float64, "init_std": 0.3}, **kw)


def ref_build(**kw):
    for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
        need_int(kw[name])
    need_int(kw["seed"], low=0, high=None)
    if kw["d_model"] % kw["n_heads"]:
        raise MustRaise("n_heads must divide d_model")
    if kw["dtype"] not in (np.float32, np.float64, "float32", "float64"):
        raise MustRaise("dtype")
    std = kw["init_std"]
    if isinstance(std, (bool, np.bool_)) or not isinstance(std, (int, float, np.floating)) or not (
            np.isfinite(std) and std > 0):
        raise MustRaise("init_std")
    return None


def test_tinylm_constructor():
    base = model_kwargs()
    kinds = {"vocab_size": INT_VARIANTS, "d_model": INT_VARIANTS, "n_heads": INT_VARIANTS,
             "n_layers": INT_VARIANTS, "max_len": INT_VARIANTS, "seed": INT_VARIANTS + [("0", 0, "valid")],
             "init_std": FLOAT_VARIANTS,
             "dtype": [("float32", np.float32, "valid"), ("'float64'", "float64", "valid"), ("int", int, "maybe"),
                       ("'bogus'", "bogus", "maybe"), ("None", None, "maybe"), ("float16", np.float16, "maybe")]}
    for name, variants in kinds.items():
        for vlabel, value, vkind in variants:
            if name in ("vocab_size", "max_len", "n_layers") and vlabel == "2**40":
                continue  # covered (without allocating) by test_huge_sizes_are_refused_before_allocating
            outcome(f"TinyLM({name}={vlabel})", TinyLM, dict(base, **{name: value}), ref_build, [name],
                    valid=vkind == "valid" and not (name in ("n_heads",) and base["d_model"] % value))
    for flag in ("attn_scale", "causal"):
        for vlabel, value, vkind in FLAG_VARIANTS:
            outcome(f"TinyLM({flag}={vlabel})", TinyLM, dict(base, **{flag: value}),
                    lambda **kw: need_bool(kw.get("attn_scale", True), kw.get("causal", True)), [flag],
                    valid=vkind == "valid")
    for vlabel, value in (("'rope'", "rope"), ("'sinusoid'", "sinusoid"), ("'learned'", "learned"),
                          ("'RoPE'", "RoPE"), ("None", None), ("1", 1), ("'absolute'", "absolute")):
        outcome(f"TinyLM(positions={vlabel})", TinyLM, dict(base, positions=value),
                lambda **kw: None if kw["positions"] in ("learned", "sinusoid", "rope") else
                (_ for _ in ()).throw(MustRaise("positions is one of three names")), ["positions"],
                valid=value in ("learned", "sinusoid", "rope"))
    for wlabel, window, n_sinks in (("4", 4, 0), ("4, 3 sinks", 4, 3), ("np.int64", np.int64(2), 1), ("0", 0, 0),
                                    ("-1", -1, 0), ("1.5", 1.5, 0), ("'4'", "4", 0), ("True", True, 0),
                                    ("4, 4 sinks", 4, 4), ("None, 2 sinks", None, 2), ("4, -1 sinks", 4, -1),
                                    ("4, 1.0 sinks", 4, 1.0)):
        valid = (window is None or (isinstance(window, (int, np.integer)) and not isinstance(window, bool)
                                    and window >= 1)) and isinstance(n_sinks, int) and 0 <= n_sinks < (window or 1)
        outcome(f"TinyLM(window={wlabel})", TinyLM, dict(base, window=window, n_sinks=n_sinks),
                lambda **kw: None, ["window", "n_sinks"], valid=valid)
    outcome("TinyLM(window=4, causal=False)", TinyLM, dict(base, window=4, causal=False),
            lambda **kw: (_ for _ in ()).throw(MustRaise("a window is causal")), ["window"])
    outcome("TinyLM(positions='rope', odd d_head)", TinyLM, dict(base, d_model=6, n_heads=2, positions="rope"),
            lambda **kw: (_ for _ in ()).throw(MustRaise("odd d_head cannot be paired")), ["d_head"])
    model = outcome("TinyLM(init_std=np.float32)", TinyLM, dict(base, init_std=np.float32(0.02)), ref_build,
                    ["init_std"], valid=True)
    assert model is not None and model.init_std == pytest.approx(0.02)
    assert_clean()


def token_variants(tokens):
    t = np.asarray(tokens)
    return [("list", t.tolist(), "valid"), ("int32", t.astype(np.int32), "valid"),
            ("float", t.astype(float), "maybe"), ("bool", t > 0, "maybe"), ("string", "abc", "maybe"),
            ("None", None, "maybe"), ("masked", np.ma.array(t, mask=t == t.flat[0]), "maybe"),
            ("rank+1", t[None], "maybe"), ("empty", t[..., :0], "maybe"), ("negative", t - 100, "maybe"),
            ("too big", t + 100, "maybe"), ("too long", np.tile(t, 10), "maybe")]


@settings(max_examples=6, deadline=None)
@given(seed=seeds, T=st.integers(1, 5), dtype=st.sampled_from([np.float64, np.float32]))
def test_tinylm_methods(seed, T, dtype):
    model = TinyLM(**model_kwargs(seed=seed % 100, dtype=dtype))
    rtol = 1e-9 if dtype == np.float64 else 2e-3
    tokens = np.random.default_rng(seed).integers(0, 7, T)

    def ref_forward(tokens):
        t = np.asarray(tokens)
        if t.dtype.kind not in "iu" or isinstance(tokens, np.ma.MaskedArray):
            raise MustRaise("token ids are ints")
        if t.ndim not in (1, 2) or t.size == 0 or t.shape[-1] > 6 or t.min() < 0 or t.max() >= 7:
            raise MustRaise("token shape/range")
        return ref_model_logits(model, t) if t.ndim == 1 else np.stack([ref_model_logits(model, r) for r in t])

    for vlabel, value, vkind in [("base", tokens, "valid"), *token_variants(tokens)]:
        outcome(f"forward(tokens={vlabel})", model.forward, {"tokens": value}, ref_forward, ["tokens"],
                valid=vkind == "valid", rtol=rtol)

    def ref_loss(tokens, targets):
        ref_forward(tokens)
        tg = np.asarray(targets)
        if isinstance(targets, np.ma.MaskedArray) or tg.dtype.kind not in "iu" or tg.shape != np.shape(tokens):
            raise MustRaise("targets must be ints of the shape of tokens")
        if tg.min() < 0 or tg.max() >= 7:
            raise MustRaise("target range")
        return None

    def loss_only(tokens, targets):
        loss, grads = model.loss_and_grads(tokens, targets)
        assert set(grads) == set(model.params) and all(grads[k].shape == v.shape for k, v in model.params.items())
        assert all(np.isfinite(g).all() for g in grads.values())
        return loss

    targets = np.roll(tokens, -1)

    def ref_loss_value(tokens, targets):
        ref_loss(tokens, targets)
        logits = ref_forward(tokens)
        z = logits - logits.max(-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return -np.mean(logp[np.arange(len(np.asarray(targets))), np.asarray(targets)])

    for vlabel, value, vkind in [("base", tokens, "valid"), *token_variants(tokens)]:
        outcome(f"loss_and_grads(tokens={vlabel})", loss_only, {"tokens": value, "targets": targets}, ref_loss_value,
                ["tokens", "targets"], valid=vkind == "valid", rtol=rtol)
        outcome(f"loss_and_grads(targets={vlabel})", loss_only, {"tokens": tokens, "targets": value},
                ref_loss_value, ["targets"], valid=vkind == "valid", rtol=rtol)
    outcome("loss_and_grads((2, T) vs (T,))", loss_only, {"tokens": np.stack([tokens, tokens]), "targets": targets},
            ref_loss_value, ["tokens", "targets"])

    def greedy(prompt, n_new, temperature=0.0, use_cache=True, rng=None):
        ref_forward(prompt)
        n_new = need_int(n_new, low=0)
        need_bool(use_cache)
        if len(np.asarray(prompt)) + n_new > 6 or np.asarray(prompt).ndim != 1:
            raise MustRaise("too long")
        if isinstance(temperature, (bool, np.bool_)) or not isinstance(temperature, (int, float)) or not (
                np.isfinite(temperature) and temperature >= 0):
            raise MustRaise("temperature")
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise MustRaise("rng")
        seq = [int(t) for t in np.asarray(prompt)]
        for _ in range(n_new):
            seq.append(int(np.argmax(ref_model_logits(model, np.array(seq))[-1])))
        return np.array(seq)

    prompt = tokens[:2]
    base = {"prompt": prompt, "n_new": 6 - len(prompt), "temperature": 0.0, "use_cache": True, "rng": None}
    outcome("generate(base)", model.generate, base, greedy, ["prompt"], valid=True)
    for vlabel, value, vkind in token_variants(prompt):
        outcome(f"generate(prompt={vlabel})", model.generate, dict(base, prompt=value, n_new=1), greedy, ["prompt"],
                valid=vkind == "valid")
    for vlabel, value, vkind in INT_VARIANTS:
        outcome(f"generate(n_new={vlabel})", model.generate, dict(base, n_new=value), greedy, ["n_new"],
                valid=vkind == "valid")
    for vlabel, value, vkind in FLAG_VARIANTS:
        outcome(f"generate(use_cache={vlabel})", model.generate, dict(base, use_cache=value), greedy, ["use_cache"],
                valid=vkind == "valid")
    for vlabel, value in (("-1", -1.0), ("nan", float("nan")), ("inf", float("inf")), ("'0'", "0"), ("None", None)):
        outcome(f"generate(temperature={vlabel})", model.generate, dict(base, temperature=value), greedy,
                ["temperature"])
    for vlabel, value in (("int", 3), ("'rng'", "rng"), ("RandomState", np.random.RandomState(0))):
        outcome(f"generate(rng={vlabel})", model.generate, dict(base, rng=value, temperature=1.0), greedy, ["rng"])

    def ref_step(tokens, cache):
        ref_forward(tokens)
        if not isinstance(cache, KVCache):
            raise MustRaise("cache")
        return ref_model_logits(model, np.asarray(tokens))

    outcome("step(new cache)", model.step, {"tokens": tokens, "cache": model.new_cache()}, ref_step,
            ["tokens"], valid=True, rtol=rtol)
    used = TinyLM(**model_kwargs(seed=1 + seed % 100)).new_cache()
    TinyLM(**model_kwargs(seed=1 + seed % 100)).step(tokens[:1], used)
    for vlabel, cache in (("None", None), ("dict", {}), ("another model's", used),
                          ("wrong size", KVCache(1, 1, 4, 6)), ("int dtype", "int")):
        if cache == "int":
            outcome("KVCache(dtype=int)", KVCache, {"n_layers": 1, "n_heads": 2, "d_head": 2, "max_len": 6,
                                                    "dtype": int},
                    lambda **k: (_ for _ in ()).throw(MustRaise("int dtype")), ["dtype"])
            continue
        outcome(f"step(cache={vlabel})", model.step, {"tokens": tokens, "cache": cache}, ref_step, ["cache"])

    def ref_maps(tokens):
        ref_forward(tokens)  # one sequence or a batch: whatever forward takes
        return None

    for vlabel, value, vkind in [("base", tokens, "valid"), *token_variants(tokens)]:
        outcome(f"attention_maps(tokens={vlabel})", model.attention_maps, {"tokens": value}, ref_maps,
                ["tokens"], valid=vkind == "valid")
    assert_clean()


def test_tampered_params_are_named():
    model = TinyLM(**model_kwargs())
    tokens = np.array([1, 2, 3])
    good = dict(model.params)
    cases = [("missing", "W_out", None), ("extra", "blocks.9.Wq", np.zeros((4, 4))),
             ("wrong shape", "blocks.0.W1", np.zeros((4, 3))), ("transposed", "W_out", good["W_out"].T.copy()),
             ("list", "ln_f_g", good["ln_f_g"].tolist()), ("int", "pos_emb", np.zeros((6, 4), dtype=int)),
             ("nan", "blocks.0.Wq", np.full((4, 4), np.nan)), ("inf", "tok_emb", np.full((7, 4), np.inf)),
             ("huge", "blocks.0.Wv", np.full((4, 4), 1e200)), ("scalar", "blocks.0.b1", 0.0)]
    for label, key, value in cases:
        model.params = dict(good)
        if value is None:
            del model.params[key]
        else:
            model.params[key] = value
        for method, args in (("forward", {"tokens": tokens}), ("generate", {"prompt": tokens, "n_new": 1}),
                             ("loss_and_grads", {"tokens": tokens, "targets": tokens})):
            outcome(f"{method} with params {label} {key}", getattr(model, method), args,
                    lambda **k: (_ for _ in ()).throw(MustRaise("tampered params")), [key])
    model.params = good
    assert_clean()


def ref_adam_step(params, grads, lr, betas, eps, weight_decay, clip):
    """One AdamW step from zero moments, written out."""
    b1, b2 = (float(b) for b in betas)
    lr, eps, weight_decay = float(lr), float(eps), float(weight_decay)
    clip = None if clip is None else float(clip)
    norm = math.sqrt(sum(float(np.sum(np.asarray(g, dtype=float) ** 2)) for g in grads.values()))
    factor = min(1.0, clip / norm) if clip is not None and norm > 0 else 1.0
    out = {}
    for k, p in params.items():
        g = np.asarray(grads[k], dtype=float) * factor
        m, v = (1 - b1) * g, (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1), v / (1 - b2)
        q = p * (1 - lr * weight_decay) if p.ndim == 2 else p.copy()
        out[k] = q - lr * m_hat / (np.sqrt(v_hat) + eps)
    return out


def test_adam():
    rng = np.random.default_rng(0)
    P = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    G = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    settings_ = {"lr": 0.1, "betas": (0.9, 0.99), "eps": 1e-8, "weight_decay": 0.01, "clip": 1.0}

    def run(params, grads, **kw):
        params = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in params.items()} \
            if isinstance(params, dict) else params
        opt = Adam(params, **kw)
        opt.step(grads)
        return opt.params

    def ref(params, grads, lr, betas, eps, weight_decay, clip):
        if not isinstance(params, dict) or any(not isinstance(v, np.ndarray) or v.dtype.kind != "f"
                                               for v in params.values()):
            raise MustRaise("params")
        for name, value, low in (("lr", lr, 0), ("eps", eps, 0)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.floating)) or not (
                    np.isfinite(value) and value > low):
                raise MustRaise(name)
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float, np.floating)) or not (
                np.isfinite(weight_decay) and weight_decay >= 0):
            raise MustRaise("weight_decay")
        if clip is not None and (isinstance(clip, bool) or not isinstance(clip, (int, float, np.floating)) or not (
                np.isfinite(clip) and clip > 0)):
            raise MustRaise("clip")
        if not isinstance(betas, (tuple, list)) or len(betas) != 2 or not all(
                isinstance(b, (int, float)) and not isinstance(b, bool) and 0 <= b < 1 for b in betas):
            raise MustRaise("betas")
        if not isinstance(grads, dict) or set(grads) < set(params):
            raise MustRaise("grads keys")
        for k, p in params.items():
            g = np.asarray(grads[k])
            if isinstance(grads[k], np.ma.MaskedArray) or g.dtype.kind != "f" or g.shape != p.shape or \
                    not np.isfinite(g).all() or np.abs(g).max() > 1e100:
                raise MustRaise(f"grads[{k}]")
        return ref_adam_step(params, grads, lr, betas, eps, weight_decay, clip)

    base = {"params": P, "grads": G, **settings_}
    outcome("Adam(base)", run, base, ref, ["params"], valid=True)
    outcome("Adam(grads as lists)", run, dict(base, grads={k: v.tolist() for k, v in G.items()}), ref, ["grads"],
            valid=True)
    outcome("Adam(clip=None)", run, dict(base, clip=None), ref, ["clip"], valid=True)
    for name in ("lr", "eps", "weight_decay", "clip"):
        for vlabel, value, vkind in FLOAT_VARIANTS:
            outcome(f"Adam({name}={vlabel})", run, dict(base, **{name: value}), ref, [name],
                    valid=vkind == "valid" and not (name == "weight_decay" and False))
    for vlabel, value in (("(1, 1)", (1, 1)), ("(0.9,)", (0.9,)), ("(-0.5, 2)", (-0.5, 2)), ("None", None),
                          ("'ab'", "ab"), ("(nan, 0.9)", (float("nan"), 0.9)), ("[0, 0]", [0.0, 0.0])):
        outcome(f"Adam(betas={vlabel})", run, dict(base, betas=value), ref, ["betas"], valid=vlabel == "[0, 0]")
    for vlabel, value in (("int", {"W": np.zeros((3, 2), dtype=int), "b": P["b"]}), ("list", [P["W"]]),
                          ("None", None), ("empty", {}), ("lists", {"W": P["W"].tolist(), "b": P["b"]})):
        outcome(f"Adam(params={vlabel})", run, dict(base, params=value), ref, ["params"])
    for key in G:
        for vlabel, value, vkind in array_variants(G[key]):
            outcome(f"Adam.step(grads[{key}]={vlabel})", run, dict(base, grads=dict(G, **{key: value})), ref,
                    [f"grads['{key}']", "grads"], valid=vkind == "valid", rtol=1e-6)
    outcome("Adam.step(broadcastable grad)", run, dict(base, grads=dict(G, W=G["W"][:1])), ref, ["grads['W']"])
    outcome("Adam.step(missing grad)", run, dict(base, grads={"W": G["W"]}), ref, ["grads"])
    outcome("Adam.step(grads=None)", run, dict(base, grads=None), ref, ["grads"])
    assert_clean()


def test_tokenizer():
    words = ["the", "cat", "sat"]

    def ref_build(words):
        if isinstance(words, str) or not isinstance(words, (list, tuple)) or not words or \
                not all(isinstance(w, str) for w in words) or len(set(words)) != len(words):
            raise MustRaise("words must be a list of distinct strings")
        return None

    for label, value, valid in (("base", words, True), ("tuple", tuple(words), True), ("string", "abc", False),
                                ("ints", [1, 2], False), ("repeat", ["a", "a"], False), ("empty", [], False),
                                ("None", None, False), ("mixed", ["a", 1], False)):
        outcome(f"Tokenizer({label})", lambda words: repr(Tokenizer(words)), {"words": value}, ref_build,
                ["words"], valid=valid)
    tok = Tokenizer(words)
    for label, value, want in (("str", "the cat", [0, 1]), ("list", ["sat", "the"], [2, 0]),
                               ("unknown", "the dog", None), ("None", None, None), ("int", 3, None),
                               ("ints", [1, 2], None)):
        outcome(f"encode({label})", tok.encode, {"text": value},
                lambda text, want=want: np.array(want) if want is not None else (_ for _ in ()).throw(
                    MustRaise("refuse")), ["text", "vocabulary", "words"], valid=want is not None)
    for label, value, want in (("list", [0, 2], "the sat"), ("array", np.array([1]), "cat"), ("empty", [], ""),
                               ("float", [0.0], None), ("bool", [True], None), ("2-D", [[0]], None),
                               ("range", [5], None), ("None", None, None), ("str", "0", None),
                               ("masked", np.ma.array([0, 1], mask=[1, 0]), None)):
        outcome(f"decode({label})", tok.decode, {"ids": value},
                lambda ids, want=want: want if want is not None else (_ for _ in ()).throw(MustRaise("refuse")),
                ["ids"], valid=want is not None)
    assert_clean()


def test_training_functions():
    task = CopyTask(span=2)

    def build():
        return TinyLM(len(task.tokenizer), 8, 2, 1, task.seq_len, seed=0)

    def run_train(model, task, **kw):
        history = train_module.train(model, task, progress=False, **kw)
        assert len(history) == kw.get("steps") and all(np.isfinite(history))
        return history

    def ref_train(model, task, steps=2, **kw):
        if not isinstance(model, TinyLM) or not hasattr(task, "batch"):
            raise MustRaise("model and task")
        return True

    base = {"model": build(), "task": task, "steps": 2}
    outcome("train(base)", run_train, dict(base, model=build()), ref_train, ["model"], valid=True)
    for name, value in (("task", None), ("task", "copy"), ("model", None), ("model", "tiny"),
                        ("plot_every", 0), ("steps", 0), ("steps", 1.5), ("lr", float("nan")), ("lr", -1.0),
                        ("batch_size", 0), ("seed", -1), ("warmup", -2), ("rule_only", "yes"),
                        ("weight_decay", -1.0), ("clip", 0.0), ("threads", 0)):
        trial = dict(base, model=build())
        trial[name] = value
        outcome(f"train({name}={value!r})", run_train, trial,
                lambda **k: (_ for _ in ()).throw(MustRaise("bad setting")), [name])
    for args in ({"step": -1, "steps": 10, "lr": 1.0}, {"step": 0, "steps": 0, "lr": 1.0},
                 {"step": 0, "steps": 10, "lr": float("inf")}, {"step": 0, "steps": 10, "lr": 1.0, "warmup": -1}):
        bad = [k for k, v in args.items() if (k == "lr" and not np.isfinite(v)) or (k != "lr" and (
            v < 0 or (k == "steps" and v == 0)))]
        outcome(f"lr_at({args})", train_module.lr_at, args,
                lambda **k: (_ for _ in ()).throw(MustRaise("bad")), bad)
    outcome("lr_at(valid)", train_module.lr_at, {"step": 5, "steps": 10, "lr": 1.0, "warmup": 10},
            lambda **k: 0.6, ["step"], valid=True)
    model = build()
    batch = task.batch(4, np.random.default_rng(0))

    def ref_accuracy(model, batch):
        if not isinstance(model, TinyLM) or not isinstance(batch, tuple) or len(batch) != 3:
            raise MustRaise("model and batch")
        tokens, targets, mask = (np.asarray(a) for a in batch)
        if mask.dtype != bool or mask.shape != tokens.shape:
            raise MustRaise("mask")
        pred = np.stack([ref_model_logits(model, t).argmax(-1) for t in tokens])
        return float(np.mean(pred[mask] == targets[mask]))

    outcome("accuracy(base)", train_module.accuracy, {"model": model, "batch": batch}, ref_accuracy, ["batch"],
            valid=True)
    for label, value in (("None", None), ("list", [1, 2]), ("mask int", batch._replace(mask=batch.mask.astype(int))),
                         ("mask shape", batch._replace(mask=batch.mask[:1]))):
        outcome(f"accuracy(batch={label})", train_module.accuracy, {"model": model, "batch": value}, ref_accuracy,
                ["batch"])
    outcome("accuracy(model=None)", train_module.accuracy, {"model": None, "batch": batch}, ref_accuracy, ["model"])
    outcome("evaluate(task=None)", train_module.evaluate, {"model": model, "task": None},
            lambda **k: (_ for _ in ()).throw(MustRaise("task")), ["task"])
    outcome("evaluate(batch_size=0)", train_module.evaluate, {"model": model, "task": task, "batch_size": 0},
            lambda **k: (_ for _ in ()).throw(MustRaise("batch_size")), ["batch_size"])
    for label, args in (("name", {"name": "nope"}), ("name None", {"name": None}),
                        ("model_kwargs", {"name": "copy", "model_kwargs": "big"}),
                        ("seed", {"name": "copy", "seed": -1, "steps": 1}),
                        ("steps", {"name": "copy", "steps": 0})):
        outcome(f"train_task({label})", lambda **k: train_module.train_task(progress=False, **k), args,
                lambda **k: (_ for _ in ()).throw(MustRaise("bad")), [*args, "preset"])
    assert_clean()


def test_every_public_name_is_covered():
    """A new public name must get its own robustness cases here: every name of attnlib.__all__ is the callable
    of some outcome(...) or sweep(...) call in this module."""
    import ast
    import pathlib
    tree = ast.parse(pathlib.Path(__file__).read_text(encoding="utf-8"))
    helpers = {d.name: d for d in ast.walk(tree) if isinstance(d, ast.FunctionDef)}  # e.g. run() around Adam
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("outcome", "sweep") and len(node.args) > 1:
            fn = node.args[1]  # the callable, or a lambda around it
            body = fn if isinstance(fn, ast.Lambda) else helpers.get(getattr(fn, "id", None))
            inner = [fn] + ([n.func for n in ast.walk(body) if isinstance(n, ast.Call)] if body else [])
            called |= {f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None) for f in inner}
    missing = set(attnlib.__all__) - called
    assert not missing, f"public names without robustness cases: {sorted(missing)}"


# ----------------------------------------------------------------------------
# circuits (notebook 15): scores read off attention maps, and a head silenced in W_o

def ref_previous_token_score(A):
    A = F(A)
    need_finite(A)
    if A.ndim < 2 or A.size == 0 or A.shape[-1] != A.shape[-2]:
        raise MustRaise("maps (..., T, T) only")
    out = np.zeros(A.shape[:-2])
    for idx in np.ndindex(A.shape[:-2]):
        T = A.shape[-1]
        out[idx] = sum(A[idx][t, t - 1] for t in range(1, T)) / (T - 1) if T > 1 else 0.0
    return out


def ref_prefix_matching_score(A, tokens):
    A = F(A)
    need_finite(A)
    if isinstance(tokens, np.ma.MaskedArray):
        raise MustRaise("a masked array must be refused")
    x = np.asarray(tokens)
    if A.ndim < 2 or A.size == 0 or A.shape[-1] != A.shape[-2]:
        raise MustRaise("maps (..., T, T) only")
    if x.dtype.kind not in "iu" or x.shape != (A.shape[-1],):
        raise MustRaise("tokens (T,) ints only")
    out = np.zeros(A.shape[:-2])
    for idx in np.ndindex(A.shape[:-2]):
        sums = [sum(A[idx][t, j + 1] for j in range(t) if x[j] == x[t]) for t in range(len(x)) if x[t] in x[:t]]
        out[idx] = np.mean(sums) if sums else 0.0
    return out


def ref_ablate_head(Wo, head, n_heads):
    Wo = F(Wo)
    need_finite(Wo)
    need_rank(Wo, 2)
    head, n_heads = need_int(head, low=0, high=None), need_int(n_heads, high=None)
    if Wo.shape[0] % n_heads or head >= n_heads:
        raise MustRaise("the heads must share the rows, and head must be one of them")
    d = Wo.shape[0] // n_heads
    return np.array([[0.0 if head * d <= i < (head + 1) * d else v for v in row] for i, row in enumerate(Wo)])


@settings(max_examples=6, deadline=None)
@given(seed=seeds, T=st.integers(1, 6), n_heads=st.integers(1, 3), d_head=st.integers(1, 3))
def test_circuits(seed, T, n_heads, d_head):
    rng = np.random.default_rng(seed)
    A = np.tril(rng.random((T, T)) + 0.1)
    A /= A.sum(axis=-1, keepdims=True)  # (T, T): a causal map
    tokens = rng.integers(0, 3, T)      # few distinct ids: repeats are likely
    sweep("previous_token_score", attnlib.previous_token_score, {"A": A}, ref_previous_token_score,
          {"A": "array"})
    sweep("prefix_matching_score", attnlib.prefix_matching_score, {"A": A, "tokens": tokens},
          ref_prefix_matching_score, {"A": "array"})
    for vlabel, value, vkind in token_variants(tokens):
        outcome(f"prefix_matching_score(tokens={vlabel})", attnlib.prefix_matching_score, {"A": A, "tokens": value},
                ref_prefix_matching_score, ["tokens"], valid=vkind == "valid")
    Wo = normal(seed, n_heads * d_head, 4)
    sweep("ablate_head", attnlib.ablate_head, {"Wo": Wo, "head": int(rng.integers(0, n_heads)), "n_heads": n_heads},
          ref_ablate_head, {"Wo": "array", "head": "int", "n_heads": "int"}, names_for={"Wo": ["Wo", "n_heads"]})
    assert_clean()
