"""Helpers for the tests (importable because tests/conftest.py puts tests/ on sys.path)."""
import importlib
import math
import os
import pathlib

import numpy as np
import pytest

IN_CI = os.environ.get("CI") == "true"
ROOT = pathlib.Path(__file__).resolve().parent.parent

# the first code cell of every narrative notebook
SETUP_LINES = ["import numpy as np", "import attnlib as at", "from attnlib.viewers import viz, widgets",
               'np.set_printoptions(formatter={"float": viz.number})  # 2 decimals, rounded as the tables round']


def need(module, why=""):
    """Import an optional module, or skip (fail under CI=true) with a stated reason."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = f"needs {module} ({exc}); {why}".rstrip("; ")
        if IN_CI:
            pytest.fail(f"CI=true but a dependency is missing: {reason}")
        pytest.skip(reason)


def unavailable(reason):
    """Skip for a missing system dependency, or fail under CI=true."""
    if IN_CI:
        pytest.fail(f"CI=true but a dependency is missing: {reason}")
    pytest.skip(reason)


def rng(seed=0):
    return np.random.default_rng(seed)


def load_notebook(stem, folder="notebooks"):
    import nbformat
    return nbformat.read(ROOT / folder / f"{stem}.ipynb", as_version=4)


def output_ignored(cell):
    """True when nbval leaves this cell's outputs uncompared, as nbval's own marker parser reads it."""
    from nbval.plugin import find_comment_markers
    return dict(find_comment_markers(cell.source)).get("check", True) is False


def code_lines(cell):
    """A code cell's lines without blanks and comments."""
    return [l for l in cell.source.splitlines() if l.strip() and not l.strip().startswith("#")]


def softmax_rows(S):
    """Plain row softmax with -inf allowed (no attnlib): an independent reference."""
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def numeric_grad(f, M, h=1e-6):
    """df/dM by central differences; f() reads M, which is nudged in place and restored."""
    g = np.zeros_like(M)
    for idx in np.ndindex(M.shape):
        old = M[idx]
        M[idx] = old + h
        up = f()
        M[idx] = old - h
        down = f()
        M[idx] = old
        g[idx] = (up - down) / (2 * h)
    return g


def rel_error(a, b):
    """|a - b| / (|a| + |b|) in the Frobenius norm: 0 for equal arrays, 1 for opposite ones."""
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a) + np.linalg.norm(b), 1e-300))


def plain_norm(X, g, b):
    """Row-wise layer norm with the biased variance and eps 1e-5, in plain numpy."""
    mu = X.mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(((X - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5) * g + b


def plain_rotate(M, theta=10000.0):
    """RoPE written out: row t of M (n, d), pair (2i, 2i+1), times the 2x2 rotation by t * theta^(-2i/d)."""
    out, d = np.array(M, dtype=np.float64), M.shape[1]
    for t in range(M.shape[0]):
        for i in range(d // 2):
            a = t / theta ** (2 * i / d)
            x, y = out[t, 2 * i], out[t, 2 * i + 1]
            out[t, 2 * i], out[t, 2 * i + 1] = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
    return out


def plain_forward(p, ids, n_layers, n_heads, causal=True, scale=True, mlp=True, positions="learned", n_kv_heads=None,
                  window=None, n_sinks=0):
    """A TinyLM forward pass on one sequence, written out in plain numpy from the block's equations (no attnlib):
    an independent reading of a trained model. Returns logits (n, vocab) and maps (n_layers, n_heads, n, n).
    scale=False leaves out 1/sqrt(d_head); mlp=False is an attention-only block (no second norm, no MLP).
    positions: "learned" adds p["pos_emb"][t] to row t, "sinusoid" adds sin/cos(t / 10000^(2i/d_model)) (even,
    odd columns), "rope" adds nothing and rotates each head's q and k rows (plain_rotate). n_kv_heads: Wk and Wv
    hold that many groups of d_head columns, query head h reading group h // (n_heads // n_kv_heads) (None: one
    group per head). window: row i also loses every column j with i - j >= window - n_sinks and j >= n_sinks (a
    sliding window with n_sinks sinks)."""
    norm = plain_norm

    def gelu(X):
        return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))

    n = len(ids)
    X = np.array(p["tok_emb"][ids], dtype=np.float64)  # (n, d_model)
    if positions == "learned":
        X += p["pos_emb"][:n]
    elif positions == "sinusoid":
        for t in range(n):
            for i in range(X.shape[1] // 2):
                X[t, 2 * i] += math.sin(t / 10000 ** (2 * i / X.shape[1]))
                X[t, 2 * i + 1] += math.cos(t / 10000 ** (2 * i / X.shape[1]))
    turn = plain_rotate if positions == "rope" else (lambda M: M)
    maps = []
    for i in range(n_layers):
        b = {key.split(".")[-1]: value for key, value in p.items() if key.startswith(f"blocks.{i}.")}
        H = norm(X, b["ln1_g"], b["ln1_b"])
        d = H.shape[1] // n_heads
        outs, layer = [], []
        for h in range(n_heads):
            cols = slice(h * d, (h + 1) * d)
            g = h // (n_heads // (n_kv_heads or n_heads))  # the K/V group head h reads (h itself without groups)
            kv = slice(g * d, (g + 1) * d)
            S = turn(H @ b["Wq"][:, cols]) @ turn(H @ b["Wk"][:, kv]).T / (np.sqrt(d) if scale else 1.0)  # (n, n)
            if causal:
                S[np.triu_indices(n, k=1)] = -np.inf
            if window is not None:
                for r in range(n):
                    for c in range(n):
                        if r - c >= window - n_sinks and c >= n_sinks:
                            S[r, c] = -np.inf
            layer.append(softmax_rows(S))
            outs.append(layer[-1] @ (H @ b["Wv"][:, kv]))  # (n, d_head)
        X = X + np.concatenate(outs, axis=1) @ b["Wo"]
        if mlp:
            X = X + gelu(norm(X, b["ln2_g"], b["ln2_b"]) @ b["W1"] + b["b1"]) @ b["W2"] + b["b2"]
        maps.append(layer)
    return norm(X, p["ln_f_g"], p["ln_f_b"]) @ p["W_out"], np.array(maps)
