"""TinyLM run through swappable ops: the functions of the exercises, one sequence at a time.

`TinyLM(..., ops={"softmax": my_softmax, ...})` runs the model through the
learner's own functions, with the exercise signatures; attnlib's fill in every
name not given. Rows are tokens: each op sees one sequence (T, d), as in the
exercises.

Forward, per sequence and per layer (H the normed rows, c the columns of head h):
    X = embed(tokens, tok_emb, pos_emb)
    H = layer_norm(X, ln1_g, ln1_b);  O_h = attention(H Wq[:, c], H Wk[:, c], H Wv[:, c])
    Y = X + concat(O_h) Wo;           Z = Y + gelu(layer_norm(Y, ln2_g, ln2_b) W1 + b1) W2 + b2
    logits[t] = next_token_logits(layer_norm(Z, ln_f_g, ln_f_b)[:t+1], W_out);  loss = cross_entropy(...)
`multi_head_attention` and `transformer_block`, when given, supply the value of Y - X
and of Z (so the loss sees them); the gradients always flow through the pieces.
Backward mirrors it with attention_backward, layer_norm_backward and, inside
attnlib's attention_backward, softmax_backward. GELU's derivative is attnlib's.
Generation feeds one token at a time through cache_step for every head and picks
the next token with sample_next.
"""
import math

import numpy as np

from . import backprop
from .attention import attention, attention_weights
from .cache import attend_step, sample_next
from .gradients import attention_backward, cross_entropy, layer_norm_backward
from .layers import BLOCK_KEYS, gelu, layer_norm, next_token_logits
from .mixing import softmax, softmax_backward

# The names TinyLM(ops=...) accepts, in course order.
OPS = ("softmax", "attention", "embed", "multi_head_attention", "layer_norm", "gelu", "transformer_block",
       "next_token_logits", "cross_entropy", "softmax_backward", "attention_backward", "layer_norm_backward",
       "cache_step", "sample_next")


def embed(tokens, tok_emb, pos_emb):
    """X (T, d_model) = tok_emb[tokens] + pos_emb[:T]."""
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def cache_step(q, k, v, K_cache, V_cache):
    """Append k, v as the last cache rows; return (o, K_new, V_new) with o = attend_step(q, K_new, V_new)."""
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])  # (t + 1, d), (t + 1, d_v)
    return attend_step(q, K_new, V_new), K_new, V_new


def attention_from(softmax):
    """attention(Q, K, V, causal, scale) built on a given softmax."""
    def attention(Q, K, V, causal=True, scale=True):
        S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]) if scale else 1.0)  # (n_q, n_k)
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=S.shape[1] - S.shape[0] + 1)
        return softmax(S) @ V  # (n_q, d_v)
    return attention


def attention_backward_from(softmax_backward):
    """attention_backward(Q, K, V, dO, causal, scale) built on a given softmax_backward."""
    def attention_backward(Q, K, V, dO, causal=True, scale=True):
        s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
        A = attention_weights(Q, K, causal, scale)  # (n_q, n_k)
        dS = softmax_backward(A, dO @ V.T) * s  # (n_q, n_k)
        return dS @ K, dS.T @ Q, A.T @ dO
    return attention_backward


def defaults():
    """attnlib's version of every op."""
    return {"softmax": softmax, "attention": attention, "embed": embed, "layer_norm": layer_norm, "gelu": gelu,
            "next_token_logits": next_token_logits, "cross_entropy": cross_entropy,
            "softmax_backward": softmax_backward, "attention_backward": attention_backward,
            "layer_norm_backward": layer_norm_backward, "cache_step": cache_step, "sample_next": sample_next}


def check_ops(ops):
    """The ops dict as given, after checking its names and values (ValueError otherwise)."""
    if not isinstance(ops, dict):
        raise ValueError(f"ops must be a dict mapping op names to functions, got {type(ops).__name__}")
    unknown = [k for k in ops if k not in OPS]
    if unknown:
        raise ValueError(f"ops has unknown names {unknown}; the ops are {', '.join(OPS)}")
    bad = [k for k, fn in ops.items() if not callable(fn)]
    if bad:
        raise ValueError(f"ops[{bad[0]!r}] must be a function, got {type(ops[bad[0]]).__name__}")
    return dict(ops)


def resolve(ops):
    """Every op: the given ones, attnlib's for the rest. A given softmax (or softmax_backward) is used by
    attnlib's attention (attention_backward) when the learner did not give that one too."""
    f = {**defaults(), **ops}
    if "softmax" in ops and "attention" not in ops:
        f["attention"] = attention_from(ops["softmax"])
    if "softmax_backward" in ops and "attention_backward" not in ops:
        f["attention_backward"] = attention_backward_from(ops["softmax_backward"])
    f["multi_head_attention"] = ops.get("multi_head_attention")
    f["transformer_block"] = ops.get("transformer_block")
    return f


def _cols(h, d_head):
    return slice(h * d_head, (h + 1) * d_head)


def _array(value, shape, what):
    """The learner's output as a float array of the expected shape, or a ValueError naming the op."""
    out = np.asarray(value, dtype=float)
    if out.shape != shape:
        raise ValueError(f"{what} returned shape {out.shape}, the model needs {shape}")
    return out


def block_forward(f, X, p, n_heads, causal, scale):
    """One block on X (T, d_model) through the ops f; returns Z and what the backward needs."""
    T, d = X.shape
    dh = d // n_heads
    H1 = _array(f["layer_norm"](X, p["ln1_g"], p["ln1_b"]), (T, d), "layer_norm")
    Q, K, V = H1 @ p["Wq"], H1 @ p["Wk"], H1 @ p["Wv"]  # (T, d_model) each
    M = np.concatenate([_array(f["attention"](Q[:, _cols(h, dh)], K[:, _cols(h, dh)], V[:, _cols(h, dh)],
                                              causal, scale), (T, dh), "attention")
                        for h in range(n_heads)], axis=1)  # (T, d_model): the heads side by side
    U = M @ p["Wo"]
    if f["multi_head_attention"]:
        U = _array(f["multi_head_attention"](H1, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal), (T, d),
                   "multi_head_attention")
    Y = X + U
    H2 = _array(f["layer_norm"](Y, p["ln2_g"], p["ln2_b"]), (T, d), "layer_norm")
    A1 = H2 @ p["W1"] + p["b1"]  # (T, d_ff)
    G = _array(f["gelu"](A1), A1.shape, "gelu")
    Z = Y + G @ p["W2"] + p["b2"]
    if f["transformer_block"]:
        Z = _array(f["transformer_block"](X, p, n_heads, causal), (T, d), "transformer_block")
    return Z, (X, H1, Q, K, V, M, Y, H2, A1, G)


def block_backward(f, dZ, p, record, n_heads, causal, scale):
    """dZ (T, d_model) -> dX and the block's gradients, through the ops f."""
    X, H1, Q, K, V, M, Y, H2, A1, G = record
    dh = X.shape[1] // n_heads
    g = {"W2": G.T @ dZ, "b2": dZ.sum(axis=0)}
    _, gelu_cache = backprop.gelu_forward(A1)
    dA1 = backprop.gelu_backward(dZ @ p["W2"].T, gelu_cache)  # (T, d_ff)
    g["W1"], g["b1"] = H2.T @ dA1, dA1.sum(axis=0)
    dY, g["ln2_g"], g["ln2_b"] = f["layer_norm_backward"](Y, p["ln2_g"], dA1 @ p["W1"].T)
    dY = dY + dZ  # the residual around the MLP
    g["Wo"] = M.T @ dY
    dM = dY @ p["Wo"].T  # (T, d_model)
    dQ, dK, dV = (np.zeros_like(Q) for _ in range(3))
    for h in range(n_heads):
        c = _cols(h, dh)
        dQ[:, c], dK[:, c], dV[:, c] = f["attention_backward"](Q[:, c], K[:, c], V[:, c], dM[:, c], causal, scale)
    g["Wq"], g["Wk"], g["Wv"] = H1.T @ dQ, H1.T @ dK, H1.T @ dV
    dX, g["ln1_g"], g["ln1_b"] = f["layer_norm_backward"](X, p["ln1_g"], dQ @ p["Wq"].T + dK @ p["Wk"].T
                                                          + dV @ p["Wv"].T)
    return dX + dY, g  # the residual around attention


def sequence_forward(f, model, tokens):
    """Logits (T, vocab) for one sequence (T,) through the ops f, and the records for the backward."""
    p = model.params
    X = _array(f["embed"](tokens, p["tok_emb"], p["pos_emb"]), (len(tokens), model.d_model), "embed")
    records = []
    for i in range(model.n_layers):
        X, record = block_forward(f, X, model.block_params(i), model.n_heads, model.causal, model.attn_scale)
        records.append(record)
    N = _array(f["layer_norm"](X, p["ln_f_g"], p["ln_f_b"]), X.shape, "layer_norm")
    logits = np.stack([_array(f["next_token_logits"](N[:t + 1], p["W_out"]), (model.vocab_size,),
                              "next_token_logits") for t in range(len(tokens))])  # (T, vocab)
    return logits, (tokens, records, X, N)


def sequence_backward(f, model, dlogits, state, grads):
    """Add one sequence's gradients (from dlogits (T, vocab)) into grads."""
    p = model.params
    tokens, records, X, N = state
    grads["W_out"] += N.T @ dlogits
    dX, dg, db = f["layer_norm_backward"](X, p["ln_f_g"], dlogits @ p["W_out"].T)
    grads["ln_f_g"] += dg
    grads["ln_f_b"] += db
    for i in reversed(range(model.n_layers)):
        b = model.block_params(i)
        dX, g = block_backward(f, dX, b, records[i], model.n_heads, model.causal, model.attn_scale)
        for key in BLOCK_KEYS:
            grads[f"blocks.{i}.{key}"] += g[key]
    np.add.at(grads["tok_emb"], tokens, dX)  # a token used twice gets both rows
    grads["pos_emb"][:len(tokens)] += dX


def loss_and_grads(f, model, tokens, targets, ignore_index):
    """Mean cross-entropy over the scored positions of the batch (B, T), and the gradients, through the ops f."""
    runs = [sequence_forward(f, model, row) for row in tokens]
    scored = targets != ignore_index  # (B, T)
    logits = np.concatenate([L[s] for (L, _), s in zip(runs, scored)])  # (N, vocab): every scored row
    loss, dlogits = f["cross_entropy"](logits, targets[scored])
    dlogits = _array(dlogits, logits.shape, "cross_entropy (its dlogits)")
    grads = {key: np.zeros_like(value) for key, value in model.params.items()}
    start = 0
    for (L, state), s in zip(runs, scored):
        d = np.zeros_like(L)
        d[s] = dlogits[start:start + s.sum()]
        start += s.sum()
        sequence_backward(f, model, d, state, grads)
    return float(loss), grads


def generate(f, model, prompt, n_new, temperature, rng):
    """Feed prompt (T,) one token at a time through cache_step, then n_new picked tokens; all tokens (T + n_new,)."""
    p, dh = model.params, model.d_head
    K = [[np.zeros((0, dh)) for _ in range(model.n_heads)] for _ in range(model.n_layers)]
    V = [[np.zeros((0, dh)) for _ in range(model.n_heads)] for _ in range(model.n_layers)]
    out = [int(t) for t in prompt]
    for pos in range(len(out) + n_new - 1):
        x = _array(f["embed"](np.array(out[pos:pos + 1]), p["tok_emb"], p["pos_emb"][pos:]), (1, model.d_model),
                   "embed")
        for i in range(model.n_layers):
            b = model.block_params(i)
            h = f["layer_norm"](x, b["ln1_g"], b["ln1_b"])[0]  # (d_model,): the new row
            q, k, v = h @ b["Wq"], h @ b["Wk"], h @ b["Wv"]
            o = []
            for j in range(model.n_heads):
                c = _cols(j, dh)
                o_j, K[i][j], V[i][j] = f["cache_step"](q[c], k[c], v[c], K[i][j], V[i][j])
                o.append(_array(o_j, (dh,), "cache_step"))
            y = x + np.concatenate(o) @ b["Wo"]  # (1, d_model)
            u = f["gelu"](f["layer_norm"](y, b["ln2_g"], b["ln2_b"]) @ b["W1"] + b["b1"])
            x = y + u @ b["W2"] + b["b2"]
        if pos + 1 < len(out):
            continue  # still reading the prompt
        N = f["layer_norm"](x, p["ln_f_g"], p["ln_f_b"])
        logits = _array(f["next_token_logits"](N, p["W_out"]), (model.vocab_size,), "next_token_logits")
        u = rng.random() if temperature else 0.0
        out.append(int(f["sample_next"](logits, temperature, u)))
    return np.array(out)
