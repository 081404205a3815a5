"""The public backward passes: cross_entropy, attention_backward and layer_norm_backward.

Each is checked three independent ways: against central finite differences of the
public forward functions (which never look at the backward code), against small
cases worked out by hand, and against PyTorch's autograd when torch is installed.
Then the input policy: bad input is a ValueError naming the argument and the shapes,
float32 stays float32, no input is modified, huge values stay finite or are refused.
"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib as at
import test_robustness as rb  # its classifier and plain-numpy references, for the robustness sweep
from helpers import need, numeric_grad, rel_error, rng


def plain_loss(logits, targets):
    """Mean -log softmax(logits)[target], written out with a log-sum-exp (no attnlib)."""
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(len(targets)), targets]))


# -- against finite differences -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n_q, n_k, causal", [(5, 5, True), (3, 6, True), (4, 4, False), (6, 3, False)])
@pytest.mark.parametrize("scale", [True, False])
def test_attention_backward_matches_finite_differences(n_q, n_k, causal, scale):
    r = rng(n_q * 10 + n_k)
    Q, K, V, dO = r.normal(size=(n_q, 4)), r.normal(size=(n_k, 4)), r.normal(size=(n_k, 3)), r.normal(size=(n_q, 3))
    grads = at.attention_backward(Q, K, V, dO, causal=causal, scale=scale)

    def loss():
        return float(np.sum(at.attention(Q, K, V, causal=causal, scale=scale) * dO))

    for name, M, G in zip("QKV", (Q, K, V), grads):
        assert G.shape == M.shape, name
        assert rel_error(numeric_grad(loss, M), G) <= 1e-7, name


@pytest.mark.parametrize("eps", [1e-5, 0.1])
def test_layer_norm_backward_matches_finite_differences(eps):
    r = rng(3)
    X, g, b, dY = r.normal(size=(4, 6)) * 2 + 1, r.normal(size=6) + 1, r.normal(size=6), r.normal(size=(4, 6))
    dX, dg, db = at.layer_norm_backward(X, g, dY, eps=eps)

    def loss():
        return float(np.sum(at.layer_norm(X, g, b, eps=eps) * dY))

    for name, M, G in (("X", X, dX), ("g", g, dg), ("b", b, db)):
        assert G.shape == M.shape, name
        assert rel_error(numeric_grad(loss, M), G) <= 1e-7, name


def test_cross_entropy_gradient_matches_finite_differences():
    r = rng(4)
    logits, targets = r.normal(size=(5, 7)) * 2, np.array([0, 6, 3, 3, 1])
    loss, dlogits = at.cross_entropy(logits, targets)
    assert loss == pytest.approx(plain_loss(logits, targets), rel=1e-13)
    assert rel_error(numeric_grad(lambda: plain_loss(logits, targets), logits), dlogits) <= 1e-7


# -- small cases by hand --------------------------------------------------------------------------------------------

def test_cross_entropy_by_hand():
    # equal logits: every word has probability 1/4, the loss is ln 4 and the gradient (1/4 - one_hot) / n
    loss, dlogits = at.cross_entropy(np.zeros((2, 4)), np.array([1, 3]))
    assert loss == pytest.approx(math.log(4), rel=1e-15)
    np.testing.assert_allclose(dlogits, [[0.125, -0.375, 0.125, 0.125], [0.125, 0.125, 0.125, -0.375]])
    # logits (0, ln 3): p = (1/4, 3/4); the target 1 costs -ln(3/4) and is pulled up by 1 - 3/4
    loss, dlogits = at.cross_entropy(np.array([[0.0, math.log(3.0)]]), np.array([1]))
    assert loss == pytest.approx(-math.log(0.75), rel=1e-14)
    np.testing.assert_allclose(dlogits, [[0.25, -0.25]], rtol=1e-14)
    assert isinstance(loss, float) and loss.shape == ()  # np.float64: a Python float and a 0-d numpy value


def test_cross_entropy_is_stable_for_huge_logits():
    logits = np.array([[1e4, 0.0, -1e4], [0.0, 1e4, 2e4]])
    loss, dlogits = at.cross_entropy(logits, np.array([2, 0]))  # both targets have probability ~ exp(-2e4) = 0.0
    assert loss == pytest.approx(2e4, rel=1e-15)  # the mean of 2e4 and 2e4, not inf
    np.testing.assert_allclose(dlogits, [[0.5, 0.0, -0.5], [-0.5, 0.0, 0.5]], atol=1e-300)


def test_attention_backward_by_hand():
    # one query with score 0 on both keys: A = (1/2, 1/2), dV = dO / 2 each, dA = (1, 3), dS = A (dA - 2)
    Q, K, V, dO = np.zeros((1, 2)), np.eye(2), np.array([[1.0], [3.0]]), np.array([[1.0]])
    dQ, dK, dV = at.attention_backward(Q, K, V, dO, causal=False, scale=False)
    np.testing.assert_allclose(dV, [[0.5], [0.5]], rtol=1e-15)
    np.testing.assert_allclose(dQ, [[-0.5, 0.5]], rtol=1e-15)  # dS K with dS = (-1/2, 1/2)
    np.testing.assert_allclose(dK, np.zeros((2, 2)), atol=0)  # dS^T Q and Q = 0
    # scale=True multiplies dQ (and dK) by 1/sqrt(2); dV does not change
    dQs, _, dVs = at.attention_backward(Q, K, V, dO, causal=False, scale=True)
    np.testing.assert_allclose(dQs, dQ / math.sqrt(2), rtol=1e-15)
    np.testing.assert_allclose(dVs, dV, rtol=1e-15)


def test_masked_entries_get_no_gradient():
    r = rng(6)
    Q, K, V, dO = r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=(4, 2)), r.normal(size=(4, 2))
    dQ, dK, dV = at.attention_backward(Q, K, V, dO)
    assert np.all(dQ[0] == 0.0)  # query 0 sees only key 0: its softmax row is exactly (1, 0, 0, 0)
    A = at.attention_weights(Q, K)
    np.testing.assert_allclose(dV[-1], A[-1, -1] * dO[-1], rtol=1e-14)  # only the last query sees the last key
    # with fewer queries than keys the queries are the last positions: key 0 is seen by every query
    dQ, dK, dV = at.attention_backward(Q[2:], K, V, dO[2:])
    A = at.attention_weights(Q[2:], K)
    np.testing.assert_allclose(dV, A.T @ dO[2:], rtol=1e-14)
    assert np.all(dK[-1] != 0.0) and A[0, -1] == 0.0


def test_layer_norm_backward_by_hand():
    # ones everywhere upstream with g = 1: every output moves together, which the normalisation undoes: dX = 0
    X = rng(7).normal(size=(3, 5))
    dX, dg, db = at.layer_norm_backward(X, np.ones(5), np.ones((3, 5)))
    np.testing.assert_allclose(dX, 0.0, atol=1e-14)
    np.testing.assert_allclose(db, np.full(5, 3.0), rtol=1e-15)
    Xhat = (X - X.mean(1, keepdims=True)) / np.sqrt(X.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(dg, Xhat.sum(axis=0), rtol=1e-12)
    # a row (1, -1): mean 0, variance 1, Xhat = (1, -1) / sqrt(1 + eps). With dY = (1, 0) and g = 1 the
    # two corrections leave dX = (1/2, -1/2) eps / (1 + eps)^(3/2): two features normalise to almost exactly +-1
    eps = 0.25
    dX, dg, db = at.layer_norm_backward(np.array([[1.0, -1.0]]), np.ones(2), np.array([[1.0, 0.0]]), eps=eps)
    np.testing.assert_allclose(dX, [[0.5 * eps / (1 + eps) ** 1.5, -0.5 * eps / (1 + eps) ** 1.5]], rtol=1e-14)
    np.testing.assert_allclose(dg, [1 / math.sqrt(1 + eps), 0.0], atol=1e-16)
    np.testing.assert_allclose(db, [1.0, 0.0])


def test_layer_norm_backward_rows_lose_their_mean_and_their_component_along_xhat():
    r = rng(8)
    X, g, dY = r.normal(size=(4, 6)) * 3 - 2, r.normal(size=6), r.normal(size=(4, 6))
    dX, _, _ = at.layer_norm_backward(X, g, dY)
    np.testing.assert_allclose(dX.sum(axis=1), 0.0, atol=1e-12)  # shifting a row does not change its output
    # nor does scaling it, but for eps: the component along the centred row is eps / (var + eps) of its share
    Xc, var = X - X.mean(axis=1, keepdims=True), X.var(axis=1)
    expected = (dY * g * Xc).sum(axis=1) / np.sqrt(var + 1e-5) * 1e-5 / (var + 1e-5)
    np.testing.assert_allclose((dX * Xc).sum(axis=1), expected, rtol=1e-6)


# -- against PyTorch ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch():
    return need("torch", "install the parity extra: pip install -r requirements-parity.txt")


def t64(torch, a):
    return torch.tensor(a, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("n_q, n_k, causal, scale", [(5, 5, True, True), (3, 6, True, False), (4, 2, False, True)])
def test_attention_backward_matches_pytorch(torch, n_q, n_k, causal, scale):
    r = rng(9)
    Q, K, V, dO = r.normal(size=(n_q, 4)), r.normal(size=(n_k, 4)), r.normal(size=(n_k, 3)), r.normal(size=(n_q, 3))
    q, k, v = t64(torch, Q), t64(torch, K), t64(torch, V)
    mask = None
    if causal:  # query i sits at position n_k - n_q + i (torch's is_causal would align the first positions)
        mask = torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q)
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=None if scale else 1.0)
    o.backward(torch.tensor(dO))
    for name, G, t in zip("QKV", at.attention_backward(Q, K, V, dO, causal, scale), (q, k, v)):
        np.testing.assert_allclose(G, t.grad.numpy(), rtol=1e-11, atol=1e-13, err_msg=name)


def test_layer_norm_backward_matches_pytorch(torch):
    r = rng(10)
    X, g, b, dY = r.normal(size=(4, 6)) * 3 + 1, r.normal(size=6), r.normal(size=6), r.normal(size=(4, 6))
    x, gt, bt = t64(torch, X), t64(torch, g), t64(torch, b)
    torch.nn.functional.layer_norm(x, (6,), gt, bt, eps=1e-5).backward(torch.tensor(dY))
    for name, G, t in zip(("X", "g", "b"), at.layer_norm_backward(X, g, dY), (x, gt, bt)):
        np.testing.assert_allclose(G, t.grad.numpy(), rtol=1e-11, atol=1e-13, err_msg=name)


def test_cross_entropy_matches_pytorch(torch):
    r = rng(11)
    logits, targets = r.normal(size=(6, 9)) * 3, np.array([0, 8, 2, 2, 5, 1])
    z = t64(torch, logits)
    expected = torch.nn.functional.cross_entropy(z, torch.tensor(targets))  # mean over the rows
    expected.backward()
    loss, dlogits = at.cross_entropy(logits, targets)
    assert loss == pytest.approx(expected.item(), rel=1e-13)
    np.testing.assert_allclose(dlogits, z.grad.numpy(), rtol=1e-12, atol=1e-15)


# -- the input policy -----------------------------------------------------------------------------------------------

r = rng(12)
Q4, K6, V6, dO4 = r.normal(size=(4, 3)), r.normal(size=(6, 3)), r.normal(size=(6, 2)), r.normal(size=(4, 2))
X4, g5, dY4 = r.normal(size=(4, 5)), r.normal(size=5), r.normal(size=(4, 5))
Z4 = r.normal(size=(4, 7))
T4 = np.array([0, 6, 2, 2])


@pytest.mark.parametrize("call, message", [
    (lambda: at.cross_entropy(Z4, np.array([0, 6, 2])), r"targets must have shape \(4,\).* targets \(3,\)"),
    (lambda: at.cross_entropy(Z4, np.array([0, 7, 2, 2])), r"targets\[1\] = 7 is not a column of logits \(4, 7\)"),
    (lambda: at.cross_entropy(Z4, np.array([0, -1, 2, 2])), r"targets\[1\] = -1"),
    (lambda: at.cross_entropy(Z4, T4.astype(float)), r"targets must be an integer array"),
    (lambda: at.cross_entropy(Z4, T4 > 0), r"targets must be an integer array"),
    (lambda: at.cross_entropy(Z4[0], T4[:1]), r"logits must be a 2-D array .* got shape \(7,\)"),
    (lambda: at.cross_entropy(np.where(Z4 > 0, np.nan, Z4), T4), r"logits contains NaN"),
    (lambda: at.cross_entropy(np.array([[1e308, -1e308]]), np.array([1])), r"cross-entropy overflows .* logits"),
    (lambda: at.attention_backward(Q4, K6, V6, dO4[:3]), r"dO must have the shape of the output O, \(4, 2\), "
                                                          r"got dO \(3, 2\)"),
    (lambda: at.attention_backward(Q4, K6, V6, dO4[:, :1]), r"dO .* got dO \(4, 1\)"),
    (lambda: at.attention_backward(Q4, K6[:, :2], V6, dO4), r"Q has d=3 but K has d=2"),
    (lambda: at.attention_backward(Q4, K6, V6[:5], dO4), r"K has 6 rows but V has 5"),
    (lambda: at.attention_backward(K6, Q4, V6[:4], r.normal(size=(6, 2))), r"causal attention needs n_q <= n_k"),
    (lambda: at.attention_backward(Q4, K6, V6, dO4, causal="False"), r"causal must be True or False"),
    (lambda: at.attention_backward(Q4, K6, V6, dO4, scale=1), r"scale must be True or False"),
    (lambda: at.attention_backward(Q4, K6, V6, dO4.astype(int)), r"dO must be a float array"),
    (lambda: at.attention_backward(Q4 * 1e200, K6 * 1e200, V6, dO4), r"Q @ K.T overflows .* scale Q and K"),
    (lambda: at.layer_norm_backward(X4, g5[:4], dY4), r"g must have shape \(5,\) to match X \(4, 5\)"),
    (lambda: at.layer_norm_backward(X4, g5, dY4.T), r"dY must have the shape of X .* \(4, 5\), got dY \(5, 4\)"),
    (lambda: at.layer_norm_backward(X4, g5, dY4, eps=0.0), r"eps must be > 0"),
    (lambda: at.layer_norm_backward(X4, g5, dY4, eps="1e-5"), r"eps must be a finite real number"),
    (lambda: at.layer_norm_backward(X4[0], g5, dY4[0]), r"X must be a 2-D array"),
    (lambda: at.layer_norm_backward(X4 * 1e200, g5, dY4), r"variance of X's rows overflows"),
    (lambda: at.layer_norm_backward(X4, g5 * 1e300, dY4 * 1e300), r"dY \* g overflows .* dY .* g"),
])
def test_bad_input_raises_named_value_error(call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clear error, never a RuntimeWarning on the way
        with pytest.raises(ValueError, match=message):
            call()


CALLS = {
    "cross_entropy": lambda dt: at.cross_entropy(Z4.astype(dt), T4),
    "attention_backward": lambda dt: at.attention_backward(*(a.astype(dt) for a in (Q4, K6, V6, dO4))),
    "layer_norm_backward": lambda dt: at.layer_norm_backward(*(a.astype(dt) for a in (X4, g5, dY4))),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_float32_stays_float32_and_agrees_with_float64(name):
    got, want = CALLS[name](np.float32), CALLS[name](np.float64)
    for g, w in zip(got, want):  # the loss is a numpy scalar (np.float64 is also a Python float)
        assert g.dtype == np.float32 and w.dtype == np.float64
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5 * np.abs(w).max())


@pytest.mark.parametrize("name, args", [
    ("cross_entropy", (Z4, T4)),
    ("attention_backward", (Q4, K6, V6, dO4)),
    ("attention_backward", (Q4, K6[:4], V6[:4], dO4)),
    ("layer_norm_backward", (X4, g5, dY4)),
])
def test_no_input_is_modified(name, args):
    saved = [a.copy() for a in args]
    getattr(at, name)(*args)
    for before, after in zip(saved, args):
        assert np.array_equal(before, after) and before.dtype == after.dtype


def test_huge_scores_give_finite_gradients():
    r = rng(13)
    Q, K, V, dO = r.normal(size=(3, 4)) * 60, r.normal(size=(5, 4)) * 60, r.normal(size=(5, 2)), r.normal(size=(3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grads = at.attention_backward(Q, K, V, dO)
    assert all(np.isfinite(G).all() for G in grads)
    np.testing.assert_allclose(grads[2], at.attention_weights(Q, K).T @ dO, rtol=1e-14)  # dV = A^T dO


# -- robustness: every argument perturbed, with test_robustness's classifier --------------------------------------

@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 4), m=st.integers(1, 3), d=st.integers(1, 3),
       causal=st.booleans(), scale=st.booleans())
def test_robustness_sweep(seed, n, m, d, causal, scale):
    def ref_attention_backward(Q, K, V, dO, causal=True, scale=True):
        A = rb.ref_attention_weights(Q, K, causal, scale)  # checks Q, K and the flags
        V, dO = rb.F(V), rb.F(dO)
        rb.need_rank(V, 2), rb.need_rank(dO, 2), rb.need_finite(V, dO)
        if V.shape[0] != A.shape[1] or dO.shape != (A.shape[0], V.shape[1]):
            raise rb.MustRaise("shapes")
        s = 1 / math.sqrt(rb.F(Q).shape[1]) if scale else 1.0
        dA = dO @ V.T
        dS = np.array([J @ da for J, da in zip([np.diag(a) - np.outer(a, a) for a in A], dA)]) * s
        return {"dQ": rb.finite(dS @ rb.F(K)), "dK": rb.finite(dS.T @ rb.F(Q)), "dV": rb.finite(A.T @ dO)}

    def ref_layer_norm_backward(X, g, dY, eps=1e-5):
        X, g, dY = rb.F(X), rb.F(g), rb.F(dY)
        rb.ref_layer_norm(X, g, np.zeros_like(g), eps)  # the same checks as the forward
        rb.need_rank(dY, 2), rb.need_finite(dY)
        if dY.shape != X.shape:
            raise rb.MustRaise("dY shape")
        Xc = X - X.mean(axis=1, keepdims=True)
        rstd = 1 / np.sqrt((Xc ** 2).mean(axis=1, keepdims=True) + float(eps))
        Xhat, dXhat, k = Xc * rstd, dY * g, X.shape[1]
        dX = rstd * (dXhat - dXhat.sum(1, keepdims=True) / k - Xhat * (dXhat * Xhat).sum(1, keepdims=True) / k)
        return {"dX": rb.finite(dX), "dg": rb.finite((dY * Xhat).sum(0)), "db": rb.finite(dY.sum(0))}

    def ref_cross_entropy(logits, targets):
        Z = rb.F(logits)
        rb.need_rank(Z, 2), rb.need_finite(Z)
        t = np.asarray(targets)
        if t.dtype.kind not in "iu" or t.shape != (Z.shape[0],) or (t < 0).any() or (t >= Z.shape[1]).any():
            raise rb.MustRaise("targets")
        P = np.array([[math.exp(z - max(row)) for z in row] for row in Z])
        P /= P.sum(axis=1, keepdims=True)
        loss = rb.finite(plain_loss(Z, t))
        return {"loss": loss, "dlogits": (P - np.eye(Z.shape[1])[t]) / len(t)}

    def named(fn, keys):
        return lambda **kw: dict(zip(keys, fn(**kw)))

    n_k = n + m - 1
    Q, K, V = rb.normal(seed, n, d), rb.normal(seed + 1, n_k, d), rb.normal(seed + 2, n_k, d + 1)
    rb.sweep("attention_backward", named(at.attention_backward, ("dQ", "dK", "dV")),
             {"Q": Q, "K": K, "V": V, "dO": rb.normal(seed + 3, n, d + 1), "causal": causal, "scale": scale},
             ref_attention_backward, {"Q": "array", "K": "array", "V": "array", "dO": "array", "causal": "flag",
                                      "scale": "flag"})
    X = rb.normal(seed + 4, n, d + 1)
    rb.sweep("layer_norm_backward", named(at.layer_norm_backward, ("dX", "dg", "db")),
             {"X": X, "g": 1 + 0.1 * rb.normal(seed + 5, d + 1), "dY": rb.normal(seed + 6, n, d + 1), "eps": 1e-5},
             ref_layer_norm_backward, {"X": "array", "g": "array", "dY": "array", "eps": "float"})
    targets = np.random.default_rng(seed).integers(0, d + 2, size=n)
    rb.sweep("cross_entropy", named(at.cross_entropy, ("loss", "dlogits")),
             {"logits": 3 * rb.normal(seed + 7, n, d + 2), "targets": targets}, ref_cross_entropy, {"logits": "array"})
    for label, bad in (("float", targets.astype(float)), ("bool", targets > 0), ("list", targets.tolist()),
                       ("too-large", targets + d + 2), ("negative", targets - d - 2), ("2-D", targets[None]),
                       ("short", targets[1:]), ("None", None), ("string", "0")):
        rb.outcome(f"cross_entropy(targets={label})", named(at.cross_entropy, ("loss", "dlogits")),
                   {"logits": rb.normal(seed + 7, n, d + 2), "targets": bad}, ref_cross_entropy, ["targets"],
                   valid=label == "list")
    rb.assert_clean()
