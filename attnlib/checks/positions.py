"""Lesson 08, positions: embed (a word vector plus a position vector for every token)."""
import numpy as np

from .probes import WORDS, features, rand
from .spec import Exercise, Probe


def embed(tokens, tok_emb, pos_emb):
    """Reference: tokens (n,) int, tok_emb (vocab, d_model), pos_emb (max_len, d_model) -> X (n, d_model)."""
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[:n]  # (n, d_model): row i is word tokens[i] at place i


# named mistakes ---------------------------------------------------------------------------------------------------

def positions_not_added(tokens, tok_emb, pos_emb):
    return tok_emb[tokens]


def positions_by_token_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def positions_from_the_end(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[len(pos_emb) - len(tokens):]  # the last n rows of the table


def positions_counted_from_one(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[1:len(tokens) + 1]


def words_by_position(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[:n] + pos_emb[:n]  # rows 0..n-1 of the word table, whatever the tokens


def positions_concatenated(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


# probes -----------------------------------------------------------------------------------------------------------

def _probe(sentence, vocab, seed, d_model, max_len):
    """A sentence as ids into vocab, a word table (len(vocab), d_model) and a position table (max_len, d_model)."""
    tokens = np.array([vocab.index(w) for w in sentence])  # (n,) int
    tok_emb, pos_emb = rand(seed, len(vocab), d_model), rand(seed + 1, max_len, d_model)
    return Probe((tokens, tok_emb, pos_emb), names=("tokens", "tok_emb", "pos_emb"), rows=sentence,
                 cols=features(d_model))


VOCAB = sorted(set(WORDS))  # 11 words: 'all', 'and', 'cat', ...
S1 = "the cat sat on the mat".split()  # a repeated word, ids out of order
S2 = "it sat on the mat and then it slept".split()  # longer, a repeated word, d_model 5
S3 = "the cat slept".split()  # exactly as long as the position table, ids beyond its last row

EXERCISES = [
    Exercise(
        name="embed",
        reference=embed,
        probes=[_probe(S1, VOCAB, 800, 4, 10), _probe(S2, VOCAB, 802, 5, 12), _probe(S3, VOCAB, 804, 3, 3)],
        mistakes=[("positions-not-added", positions_not_added),
                  ("positions-by-token-id", positions_by_token_id),
                  ("positions-from-the-end", positions_from_the_end),
                  ("positions-off-by-one", positions_counted_from_one),
                  ("words-by-position", words_by_position),
                  ("positions-concatenated", positions_concatenated)],
        verified="tok_emb[tokens] + pos_emb[:n] for three sentences: repeated words, a position table longer than "
                 "the sentence and one exactly as long",
        hint1="Each row of X says two things: which word it is (a row of tok_emb) and where it stands (a row of "
              "pos_emb); the two vectors are added. A word that appears twice gets the same word vector twice, but "
              "two different position vectors.",
        hint2="Two lookups with different indices: the token ids pick rows of tok_emb, the places 0, 1, ..., n-1 pick "
              "rows of pos_emb. pos_emb has max_len rows, usually more than the sentence needs; keep only the first n. "
              "The result is (n, d_model), the same width as both tables.",
        formula="X[i] = tok_emb[tokens[i]] + pos_emb[i] for i = 0 .. n-1, i.e. X = tok_emb[tokens] + pos_emb[:n]",
    ),
]
