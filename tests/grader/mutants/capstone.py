"""The capstone: dicts of ops a learner might hand to check("capstone", ops), written with numpy only."""
import numpy as np


def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        n_q, n_k = S.shape
        S = np.where(np.arange(n_k)[None, :] > np.arange(n_k - n_q, n_k)[:, None], -np.inf, S)
    return softmax(S) @ V


def embed(tokens, tok_emb, pos_emb):
    return np.stack([tok_emb[t] + pos_emb[i] for i, t in enumerate(tokens)])


def layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(((X - mu) ** 2).mean(axis=1, keepdims=True) + eps) * g + b


def gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d = Wq.shape[1] // n_heads
    heads = [attention(X @ Wq[:, h * d:(h + 1) * d], X @ Wk[:, h * d:(h + 1) * d], X @ Wv[:, h * d:(h + 1) * d],
                       causal) for h in range(n_heads)]
    return np.hstack(heads) @ Wo


def transformer_block(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return Y + gelu(layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def cross_entropy(logits, targets):
    n = len(targets)
    Z = logits - logits.max(axis=1, keepdims=True)
    logP = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))  # log softmax: finite where the probability underflows
    loss = -np.mean(logP[np.arange(n), targets])
    dlogits = np.exp(logP)
    dlogits[np.arange(n), targets] -= 1
    return loss, dlogits / n


def softmax_backward(A, dA):
    return A * (dA - (A * dA).sum(axis=-1, keepdims=True))


def attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=S.shape[1] - S.shape[0] + 1)
    A = softmax(S)
    dS = softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def layer_norm_backward(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xc = X - X.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt((Xc ** 2).mean(axis=1, keepdims=True) + eps)
    Xhat = Xc * r
    dXhat = dY * g
    dX = r / d * (d * dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    s = K_new @ q / np.sqrt(len(q))
    a = np.exp(s - s.max())
    return a / a.sum() @ V_new, K_new, V_new


def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = softmax(np.asarray(logits) / temperature)
    return int(np.searchsorted(np.cumsum(p) / p.sum(), u, side="right"))


def rope(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)  # (n, d/2)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2], out[:, 1::2] = x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)
    return out


def grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        g = h // (n_heads // n_kv_heads)
        kv = slice(g * d, (g + 1) * d)
        heads.append(attention(X @ Wq[:, h * d:(h + 1) * d], X @ Wk[:, kv], X @ Wv[:, kv], causal))
    return np.hstack(heads) @ Wo


def grouped_cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.concatenate([K_cache, k[:, None]], axis=1), np.concatenate([V_cache, v[:, None]], axis=1)
    r = len(q) // len(k)
    o = np.stack([cache_step(q[h], K_new[h // r, -1], V_new[h // r, -1], K_new[h // r, :-1], V_new[h // r, :-1])[0]
                  for h in range(len(q))])
    return o, K_new, V_new


def grouped_routed_by_modulo(q, k, v, K_cache, V_cache):
    K_new, V_new = np.concatenate([K_cache, k[:, None]], axis=1), np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([cache_step(q[h], K_new[h % len(k), -1], V_new[h % len(k), -1], K_new[h % len(k), :-1],
                             V_new[h % len(k), :-1])[0] for h in range(len(q))])
    return o, K_new, V_new


def rolling_cache_step(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        rows = list(range(n_sinks)) + list(range(len(K) - window + n_sinks, len(K)))  # the sinks, then the newest
        K, V = K[rows], V[rows]
    s = K @ q / np.sqrt(len(q))
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


def rolling_evicts_newest(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[:window], np.vstack([V_cache, v])[:window]  # the new token falls out
    s = K @ q / np.sqrt(len(q))
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


ALL = {"softmax": softmax, "attention": attention, "embed": embed, "multi_head_attention": multi_head_attention,
       "layer_norm": layer_norm, "gelu": gelu, "transformer_block": transformer_block,
       "next_token_logits": next_token_logits, "cross_entropy": cross_entropy, "softmax_backward": softmax_backward,
       "attention_backward": attention_backward, "layer_norm_backward": layer_norm_backward,
       "cache_step": cache_step, "sample_next": sample_next, "rope": rope,
       "grouped_query_attention": grouped_query_attention, "grouped_cache_step": grouped_cache_step,
       "rolling_cache_step": rolling_cache_step}


# wrong ops ------------------------------------------------------------------------------------------------


def gelu_relu(X):
    return np.maximum(X, 0)


def layer_norm_backward_no_projection(X, g, dY, eps=1e-5):
    Xc = X - X.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt((Xc ** 2).mean(axis=1, keepdims=True) + eps)
    dXhat = dY * g
    dX = r * (dXhat - dXhat.mean(axis=1, keepdims=True))  # forgets the term along Xhat
    return dX, (dY * Xc * r).sum(axis=0), dY.sum(axis=0)


def cache_step_forgets_scale(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    s = K_new @ q
    a = np.exp(s - s.max())
    return a / a.sum() @ V_new, K_new, V_new


def cross_entropy_raises(logits, targets):
    return cross_entropy(logits, targets.reshape(1, -1))[0], None  # returns no gradient


def layer_norm_centres_in_place(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)  # the right values, but the caller's X is changed: training never sees it
    return X / np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps) * g + b


def layer_norm_eps_ignored(X, g, b, eps=1e-5):
    return layer_norm(X, g, b)  # the model only ever passes the default eps: training never sees it


def rope_halves(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, :d // 2], X[:, d // 2:]  # feature i paired with i + d/2
    return np.hstack([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)])


def rope_positions_from_one(X, positions, theta=10000.0):
    return rope(X, np.asarray(positions) + 1, theta)


def _with(**changes):
    return {**ALL, **changes}


# The capstone runs each op's own check first, so its id is that check's: the op's own mistake, named as in its
# exercise notebook (see attnlib/checks/capstone.py). An op whose check names nothing (cross_entropy_raises) keeps
# the id of what training showed.
WRONG = {"capstone": [
    ("gelu-relu", {"softmax": softmax, "gelu": gelu_relu}),
    ("layer-norm-backward-variance-term-missing", _with(layer_norm_backward=layer_norm_backward_no_projection)),
    ("scale-missing", _with(cache_step=cache_step_forgets_scale)),
    ("op-raised", {"cross_entropy": cross_entropy_raises}),
    ("mutates-input", _with(layer_norm=layer_norm_centres_in_place)),
    ("layer-norm-eps-ignored", {"layer_norm": layer_norm_eps_ignored, "gelu": gelu}),
]}

RIGHT = {"capstone": [
    ALL,
    {"softmax": softmax, "layer_norm": layer_norm, "gelu": gelu},
    {"attention_backward": attention_backward, "layer_norm_backward": layer_norm_backward,
     "cross_entropy": cross_entropy},
    {"cache_step": cache_step, "sample_next": sample_next, "next_token_logits": next_token_logits},
]}
