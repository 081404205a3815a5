"""Notebook 08: embed (word vectors plus position vectors)."""
import numpy as np

# 08 embed -----------------------------------------------------------------------


def embed_words_only(tokens, tok_emb, pos_emb):
    return tok_emb[tokens]


def embed_position_of_the_word(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed_last_positions(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[-n:]


def embed_one_based(tokens, tok_emb, pos_emb):
    return np.array([tok_emb[t] + pos_emb[i + 1] for i, t in enumerate(tokens)])


def embed_first_word_rows(tokens, tok_emb, pos_emb):
    return tok_emb[np.arange(len(tokens))] + pos_emb[np.arange(len(tokens))]


def embed_side_by_side(tokens, tok_emb, pos_emb):
    return np.hstack([tok_emb[tokens], pos_emb[:len(tokens)]])


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
    "embed": [("positions-not-added", embed_words_only), ("positions-by-token-id", embed_position_of_the_word),
              ("positions-from-the-end", embed_last_positions), ("positions-off-by-one", embed_one_based),
              ("words-by-position", embed_first_word_rows), ("positions-concatenated", embed_side_by_side),
              (None, embed_positions_twice)],
}
RIGHT = {
    "embed": [embed_loop, embed_one_hot, embed_take, embed_float32],
}


# 08 sinusoidal_positions ------------------------------------------------------------------------------------------


def sp_cos_first(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t / 10000 ** (2 * i / d)
            P[t, 2 * i], P[t, 2 * i + 1] = np.cos(a), np.sin(a)
    return P


def sp_two_halves(n, d):
    a = np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    return np.concatenate([np.sin(a), np.cos(a)], axis=1)


def sp_i_over_d(n, d):
    a = np.arange(n)[:, None] / 10000 ** (np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, ::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sp_column_exponent(n, d):
    a = np.arange(n)[:, None] / 10000 ** (np.arange(d) / d)  # column j uses j/d, also the cosine columns
    return np.where(np.arange(d) % 2 == 0, np.sin(a), np.cos(a))


def sp_times(n, d):
    a = np.arange(n)[:, None] * 10000 ** (np.arange(0, d, 2) / d)
    P = np.zeros((n, d))
    P[:, ::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


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


WRONG["sinusoidal_positions"] = [("sinusoid-sin-cos-swapped", sp_cos_first),
                                 ("sinusoid-halves-not-interleaved", sp_two_halves),
                                 ("sinusoid-pair-index-not-doubled", sp_i_over_d),
                                 ("sinusoid-frequency-per-column", sp_column_exponent),
                                 ("sinusoid-frequencies-inverted", sp_times)]
RIGHT["sinusoidal_positions"] = [sp_loops, sp_stack, sp_einsum_dstack]
