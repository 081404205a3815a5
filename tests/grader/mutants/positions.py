"""Notebook 08: embed (word vectors plus position vectors)."""
import numpy as np

# 08 embed -----------------------------------------------------------------------


def embed_last_positions(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[-n:]


def embed_positions_twice(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + 2 * pos_emb[:len(tokens)]


def embed_loop(tokens, tok_emb, pos_emb):
    X = np.zeros((len(tokens), tok_emb.shape[1]))
    for i, t in enumerate(tokens):
        X[i] = tok_emb[t] + pos_emb[i]
    return X


def embed_one_hot(tokens, tok_emb, pos_emb):
    n = len(tokens)
    onehot = np.eye(tok_emb.shape[0])[tokens]  # (n, vocab)
    return onehot @ tok_emb + np.eye(n, pos_emb.shape[0]) @ pos_emb


def embed_take(tokens, tok_emb, pos_emb):
    return np.take(tok_emb, tokens, axis=0) + np.take(pos_emb, np.arange(len(tokens)), axis=0)


def embed_float32(tokens, tok_emb, pos_emb):
    return tok_emb.astype(np.float32)[tokens] + pos_emb.astype(np.float32)[:len(tokens)]


WRONG = {
    "embed": [


              (None, embed_positions_twice)],
}
RIGHT = {
    "embed": [embed_loop, embed_one_hot, embed_take, embed_float32],
}


# 08 sinusoidal_positions ------------------------------------------------------------------------------------------


def sp_loops(n, d):
    import math
    P = np.zeros((n, d))
    for t in range(n):
        for c in range(d):
            a = t / math.pow(10000.0, (c - c % 2) / d)
            P[t, c] = math.sin(a) if c % 2 == 0 else math.cos(a)
    return P


def sp_stack(n, d):
    a = np.outer(np.arange(n), np.exp(-np.log(10000.0) * np.arange(0, d, 2) / d))  # (n, d/2)
    return np.stack([np.sin(a), np.cos(a)], axis=-1).reshape(n, d)


def sp_einsum_dstack(n, d):
    freq = 1.0 / np.power(10000.0, 2 * np.arange(d // 2) / d)
    a = np.einsum("t,f->tf", np.arange(n, dtype=float), freq)
    return np.dstack([np.sin(a), np.cos(a)]).reshape(n, d)


WRONG["sinusoidal_positions"] = [



                                 ]
RIGHT["sinusoidal_positions"] = [sp_loops, sp_stack, sp_einsum_dstack]
