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
