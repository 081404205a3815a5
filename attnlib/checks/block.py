"""Lesson 10, the block: layer_norm, gelu and transformer_block."""
from math import erf, sqrt

import numpy as np

import attnlib as at
from .probes import features, rand
from .properties import causality, failing, large_offset, precision, shift_invariance
from .spec import Exercise, Probe


# layer_norm, gelu and transformer_block: the block composed of the layer norm's, the heads' and the MLP's steps --

def layer_norm_steps(X, g, b, eps=1e-5, *, c):
    """(X - mean) / sqrt(var + eps) * g + b along each row."""
    axis = c("norm axis", right=-1, layer_norm_wrong_axis=0, layer_norm_whole_matrix=None)
    mu = X.mean(axis=axis, keepdims=True)
    var = c.step("norm variance", right=lambda: X.var(axis=axis, keepdims=True),
                 layer_norm_unbiased_variance=lambda: X.var(axis=axis, keepdims=True, ddof=1),
                 layer_norm_mean_of_squares=lambda: (X ** 2).mean(axis=axis, keepdims=True))
    if c("norm kind", right="layer", layer_norm_rms="rms") == "rms":  # RMSNorm: the mean square, no centring
        mu, var = 0.0, (X ** 2).mean(axis=axis, keepdims=True)
    eps = c("norm eps", right=eps, layer_norm_eps_ignored=1e-5, layer_norm_eps_ignored__zero=0.0)
    r = c.step("norm std", right=lambda: np.sqrt(var + eps), layer_norm_eps_outside_sqrt=lambda: np.sqrt(var) + eps,
               layer_norm_divides_by_variance=lambda: var + eps)
    x_hat = (X - c("centre", right=mu, layer_norm_not_centred=0.0)) / r
    scale, shift = c("gain and bias", right=(g, b), layer_norm_gain_bias_swapped=(b, g),
                     layer_norm_gain_bias_missing=(1.0, 0.0))
    return c.step("affine", right=lambda: x_hat * scale + shift,
                  layer_norm_gain_bias_order=lambda: (x_hat + shift) * scale)


def _ln_probe(seed, n, d, spread, offset=1.0, shift=0.0, **kw):
    """Rows of the given spread around random row offsets, all moved by `shift` (a large one tests precision)."""
    X = rand(seed, n, d, scale=spread) + rand(seed + 1, n, 1, scale=offset) + shift
    return Probe((X, rand(seed + 2, d) + 1.0, rand(seed + 3, d)), kw, names=("X", "g", "b"),
                 cols=features(d))


def gelu_steps(X, *, c):
    """GPT-2's tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    inner = c("gelu brackets", right=np.sqrt(2.0 / np.pi) * (X + 0.044715 * X ** 3),
              gelu_brackets_misplaced=np.sqrt(2.0 / np.pi) * X + 0.044715 * X ** 3,
              gelu_cubic_missing=np.sqrt(2.0 / np.pi) * X)
    return c.step("gelu formula", right=lambda: 0.5 * X * (1.0 + np.tanh(inner)),
                  gelu_exact_erf=lambda: 0.5 * X * (1.0 + np.vectorize(erf)(X / sqrt(2.0))),
                  gelu_sigmoid_approx=lambda: X / (1.0 + np.exp(-1.702 * X)),
                  gelu_missing_half=lambda: X * (1.0 + np.tanh(inner)),
                  gelu_relu=lambda: np.maximum(X, 0.0))


def block_steps(X, p, n_heads, causal=True, *, c):
    """Y = X + MHA(LN1(X)); out = Y + MLP(LN2(Y)), pre-LN. The sub-layers are attnlib's: their own mistakes are
    their own exercises'."""
    def ln(H, which):
        if which == "ln1":
            return _ln(H, p, "ln1") if c("first norm", right=True, layer_norm_missing=False) else H
        which = c("second norm", right=which, layer_norm_reused="ln1", layer_norm_missing__second=None)
        return H if which is None else _ln(H, p, which)

    def attend(H):
        return _attend(H, p, c("block heads", right=n_heads, heads_ignored=1), causal)

    def mlp(H):
        act = c("mlp activation", right=at.gelu, mlp_missing_gelu=lambda Z: Z,
                activation_not_gelu=lambda Z: np.maximum(Z, 0.0))
        b1, b2 = c("mlp biases", right=(p["b1"], p["b2"]), bias_missing=(0.0, p["b2"]), bias_missing__b2=(p["b1"], 0.0))
        return c.step("mlp bias", right=lambda: act(H @ p["W1"] + b1) @ p["W2"] + b2,
                      bias_after_activation=lambda: (act(H @ p["W1"]) + b1) @ p["W2"] + b2,
                      gelu_misplaced=lambda: act((H @ p["W1"] + b1) @ p["W2"] + b2))

    placement = c("norm placement", right="pre", post_ln="post", parallel_block="parallel",
                  residual_missing__both="no residuals")
    if placement == "post":
        Y = ln(X + attend(X), "ln1")
        return ln(Y + mlp(Y), "ln2")
    L1 = ln(X, "ln1")
    A = attend(L1)
    Y = c("attention residual", right=X, residual_missing=0.0, residual_adds_normalised=L1) + A
    if placement != "pre":  # parallel: both sub-layers read X; no residuals: each reads the last one's output
        return Y + mlp(ln(X, "ln2")) if placement == "parallel" else mlp(ln(A, "ln2"))
    H = ln(c("mlp input", right=Y, mlp_reads_wrong_input=A), "ln2")
    return c.step("mlp residual", right=lambda: Y, residual_missing__mlp=lambda: 0.0, mlp_residual_from_x=lambda: X,
                  residual_adds_normalised__mlp=lambda: ln(Y, "ln2"),
                  residual_adds_normalised__added=lambda: Y + ln(Y, "ln2")) + mlp(H)


def _attend(H, p, n_heads, causal):
    return at.multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)


def _ln(H, p, which):
    return at.layer_norm(H, p[f"{which}_g"], p[f"{which}_b"])


CHOICES = {
    "gelu brackets": "Look at the brackets inside your tanh: which terms the constant in front multiplies.",
    "mlp bias": "Look at the MLP's order: W1, plus b1, GELU, then W2 plus b2.",
    "mlp biases": "Count the biases your MLP adds: b1 after W1, b2 after W2.",
    "mlp input": "Look at what the MLP reads: the layer norm of the stream after attention's residual.",
    "first norm": "Look at what attention reads: the layer norm of the block's input, not the input itself.",
    "norm axis": "Look at the axis of your mean and variance: along each row, one token's features.",
    "norm kind": "Look at what you subtract from each row before dividing: its mean.",
    "norm variance": "Look at what your variance divides by: d, the biased variance.",
    "norm eps": "Look at how your function uses its eps argument.",
    "norm std": "Look at where eps goes: inside the square root, added to the variance.",
    "gain and bias": "Look at which of g and b multiplies and which is added.",
    "centre": "Look at what you subtract from each row before dividing: its own mean.",
    "affine": "Look at the order of the last two steps: the normalised row times g, then plus b.",
    "gelu formula": "Check three things: the leading half times x, the root of two over pi, and the cubic term "
                    "inside the tanh.",
    "second norm": "Look at which parameters your second layer norm uses: ln2's own.",
    "block heads": "Look at the number of heads your attention runs.",
    "mlp activation": "Look between the MLP's two matrices: GELU goes there.",
    "norm placement": "Look at where each layer norm sits: before its sub-layer, on the way in.",
    "attention residual": "Look at each sub-layer's result: it is added back to the stream it read.",
    "mlp residual": "Look at each sub-layer's result: it is added back to the stream it read.",
}


def _block_params(seed, d, d_ff):
    shapes = {"ln1_g": (d,), "ln1_b": (d,), "Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d),
              "ln2_g": (d,), "ln2_b": (d,), "W1": (d, d_ff), "b1": (d_ff,), "W2": (d_ff, d), "b2": (d,)}
    p = {k: rand(seed + i, *s, scale=0.5) for i, (k, s) in enumerate(shapes.items())}
    p["ln1_g"] += 1.0
    p["ln2_g"] += 1.0
    return p


def _block_probe(seed, n, d, n_heads, **kw):
    return Probe((rand(seed, n, d), _block_params(seed + 1, d, 4 * d), n_heads), kw,
                 names=("X", "p", "n_heads"), cols=features(d))


EXERCISES = [
    Exercise(
        name="layer_norm",
        reference=at.layer_norm,
        probes=[_ln_probe(300, 4, 6, 2.0), _ln_probe(310, 3, 5, 3e-3, offset=1e-3), _ln_probe(320, 5, 3, 0.5, eps=0.1),
                _ln_probe(330, 4, 6, 1.0, shift=1e7)],
        pipeline=layer_norm_steps,
        verified="row-wise mean 0 / variance 1 then * g + b, including nearly constant rows, eps=0.1 and rows "
                 "around ten million (float64 precision)",
        hint1="Work row by row: subtract the row mean, divide by the row standard deviation, "
              "then scale by g and shift by b.",
        hint2="Take the mean and the variance along each row and keep them as columns, so that they line up "
              "with the row they came from. Use the biased variance (divide by d, not d minus 1), and put eps "
              "inside the square root, not after it.",
        formula="y = (x - mean(x)) / sqrt(var(x) + eps) * g + b",
    ),
    Exercise(
        name="gelu",
        reference=at.gelu,
        probes=[Probe((np.linspace(-4.0, 4.0, 9),), names=("X",), cols=[f"{v:g}" for v in np.linspace(-4, 4, 9)]),
                Probe((rand(330, 4, 6, scale=2.0),), names=("X",), cols=features(6))],
        pipeline=gelu_steps,
        verified="the tanh-approximate GELU, elementwise, on a line of values and a matrix",
        hint1="GELU weighs each input by the probability that a standard normal value lies below it: it lets "
              "large positive values through, blocks large negative ones, and is smooth near 0.",
        hint2="Use GPT-2's tanh form, not erf and not a sigmoid. Check three things: the leading factor of one "
              "half times x, the constant in front (the root of two over pi), and the cubic term inside the tanh "
              "with its coefficient 0.044715.",
        formula="gelu(x) = 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))",
    ),
    Exercise(
        name="transformer_block",
        uses=('layer_norm', 'gelu', 'multi_head_attention'),
        reference=at.transformer_block,
        probes=[_block_probe(400, 5, 6, 2), _block_probe(430, 4, 6, 3, causal=False), _block_probe(460, 3, 4, 2)],
        pipeline=block_steps,
        verified="pre-LN attention and MLP sub-layers, each added back to its input, for 2 and 3 heads",
        hint1="Two sub-layers, each wrapped the same way: normalise the input, run the sub-layer, "
              "add the result to the input.",
        hint2="Two lines, one per sub-layer. Each normalises its input with its own layer norm (ln1 before "
              "attention, ln2 before the MLP), runs the sub-layer and adds the result back to the un-normalised "
              "stream. The MLP reads the stream after the attention residual, with GELU between its two matrices.",
        formula="Y = X + MHA(LN1(X)); out = Y + gelu(LN2(Y) W1 + b1) W2 + b2",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _row_offsets(X):
    return X + 1e7 * np.arange(1, len(X) + 1)[:, None]


def gelu_constants(f, seen):
    """Fit 0.5 x (1 + tanh(a (x + b x^p))) to the learner's values: which constant is off."""
    x = np.concatenate([np.linspace(-1.5, -0.25, 6), np.linspace(0.25, 1.5, 6)])
    got = f(x)
    if not isinstance(got, np.ndarray) or got.shape != x.shape:
        return None
    with np.errstate(all="ignore"):
        gate = got / x
        if np.allclose(got, at.gelu(x) / x, rtol=1e-6):
            return "gelu-gate-only", "your values are GELU(x) / x"
        u = np.arctanh(2.0 * gate - 1.0)
    if not np.isfinite(u).all():
        return None
    for p in (3, 2):
        M = np.stack([x, x ** p], axis=1)
        (a, ab), *_ = np.linalg.lstsq(M, u, rcond=None)
        if np.allclose(M @ [a, ab], u, rtol=1e-6, atol=1e-9):
            b = ab / a
            right = (np.isclose(a, np.sqrt(2.0 / np.pi), rtol=1e-4), np.isclose(b, 0.044715, rtol=1e-4), p == 3)
            if all(right):
                return None
            return "gelu-wrong-constant", (f"your values fit 0.5 x (1 + tanh({a:.4g} (x + {b:.4g} x^{p}))); the "
                                           f"constants should be {np.sqrt(2.0 / np.pi):.4g}, 0.044715 and the power 3")
    return None


def output_normalised(f, seen):
    """Each column of the output is a scaled, shifted copy of the normalised right answer: an extra layer norm."""
    for _p, got, e in failing(seen):
        centred = e - e.mean(axis=-1, keepdims=True)
        x_hat = centred / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True) + 1e-5)
        fits = []
        for c in range(e.shape[1]):
            M = np.stack([x_hat[:, c], np.ones(len(e))], axis=1)
            coef, *_ = np.linalg.lstsq(M, got[:, c], rcond=None)
            fits.append(np.allclose(M @ coef, got[:, c], rtol=1e-6, atol=1e-9))
        if all(fits) and len(e) > 2:
            return "extra-layer-norm", "your output is a layer norm of the right one"
    return None


FINDINGS = {
    "layer_norm": [
        precision(large_offset(0), ("variance-cancellation", "only the probe whose rows sit around ten million fails, "
                                    "and your other results agree to float64 precision: the variance lost its digits")),
        shift_invariance(0, _row_offsets, "variance-cancellation",
                         "adding a large constant to each row changed your result; layer norm must not change"),
    ],
    "gelu": [gelu_constants],
    "transformer_block": [
        output_normalised,
        causality((rand(470, 5, 6), _block_params(471, 6, 24), 2), {"causal": False}, [0]),
    ],
}
