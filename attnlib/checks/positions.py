"""Lesson 08, positions: embed (a word vector plus a position vector for every token) and
sinusoidal_positions (the fixed position vectors of the original transformer)."""
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
        hint2="Two lookups with different indices: the token ids pick rows of the word table, the places 0, 1, ..., "
              "n-1 pick rows of the position table. The position table has max_len rows, usually more than the "
              "sentence needs; keep only the first n. The result is (n, d_model), the width of both tables.",
        formula="X[i] = tok_emb[tokens[i]] + pos_emb[i] for i = 0 .. n-1, i.e. X = tok_emb[tokens] + pos_emb[:n]",
    ),
]


# sinusoidal_positions(n, d) --------------------------------------------------------------------------------------

def sinusoidal_positions(n, d):
    """Reference: P (n, d) with P[t, 2i] = sin(t / 10000^(2i/d)) and P[t, 2i+1] = cos(t / 10000^(2i/d))."""
    t = np.arange(n)[:, None]  # (n, 1): the positions
    angle = t / 10000.0 ** (np.arange(0, d, 2) / d)  # (n, d/2): one frequency per pair of columns
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(angle), np.cos(angle)
    return P


def _sinusoid(n, d, t0=0, pair=lambda i, d: 2 * i / d, base=10000.0, first=np.sin, second=np.cos,
              interleaved=True, divide=True):
    """The table with one piece swapped; the defaults give the right one."""
    t = np.arange(t0, t0 + n)[:, None]
    f = base ** pair(np.arange(d // 2), d)
    angle = t / f if divide else t * f
    if not interleaved:
        return np.hstack([first(angle), second(angle)])
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = first(angle), second(angle)
    return P


def sin_cos_swapped(n, d):
    return _sinusoid(n, d, first=np.cos, second=np.sin)


def halves_not_interleaved(n, d):
    return _sinusoid(n, d, interleaved=False)


def pair_index_not_doubled(n, d):
    return _sinusoid(n, d, pair=lambda i, d: i / d)


def frequency_per_column(n, d):
    P = np.empty((n, d))
    t, k = np.arange(n)[:, None], np.arange(d)[None, :]
    angle = t / 10000.0 ** (k / d)  # every column its own frequency, the cos columns one step off
    P[:, 0::2], P[:, 1::2] = np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])
    return P


def frequencies_inverted(n, d):
    return _sinusoid(n, d, divide=False)


def positions_from_one(n, d):
    return _sinusoid(n, d, t0=1)


def pair_index_floored(n, d):
    return _sinusoid(n, d, pair=lambda i, d: (2 * i) // d)  # 2i // d is 0 for every pair: one frequency


def wrong_base(n, d):
    return _sinusoid(n, d, base=1000.0)


def _sin_probe(n, d):
    return Probe((n, d), names=("n", "d"), rows=[f"t{t}" for t in range(n)], cols=features(d))


EXERCISES.append(Exercise(
    name="sinusoidal_positions",
    reference=sinusoidal_positions,
    probes=[_sin_probe(6, 4), _sin_probe(5, 8), _sin_probe(1, 2), _sin_probe(3, 6), _sin_probe(40, 16)],
    mistakes=[("sinusoid-sin-cos-swapped", sin_cos_swapped),
              ("sinusoid-halves-not-interleaved", halves_not_interleaved),
              ("sinusoid-pair-index-not-doubled", pair_index_not_doubled),
              ("sinusoid-frequency-per-column", frequency_per_column),
              ("sinusoid-frequencies-inverted", frequencies_inverted),
              ("sinusoid-positions-from-one", positions_from_one),
              ("sinusoid-wrong-base", wrong_base),
              ("sinusoid-one-frequency", pair_index_floored)],
    verified="sin on the even columns and cos on the odd ones, one frequency per pair, for tables from (1, 2) "
             "to (40, 16)",
    hint1="Each pair of columns is a clock hand turning at its own speed: the first pair turns fastest (one radian "
          "per position), each later pair slower, down to ten thousand times slower. The even column of a pair is "
          "the sine of the angle, the odd column its cosine.",
    hint2="Give every pair i one angle per position: the position divided by ten thousand raised to the power 2i "
          "over d. Columns 2i and 2i + 1 share that angle; check that row 0 is 0, 1, 0, 1, ... and that column 0 "
          "is the sine of the position itself.",
    formula="P[t, 2i] = sin(t / 10000^(2i/d)), P[t, 2i+1] = cos(t / 10000^(2i/d)), i = 0 .. d/2 − 1",
))


DIAGNOSES = {
    "sinusoid-one-frequency": "Every pair of columns got the same frequency: the exponent 2i/d was computed with "
                              "floor division (//), which is 0 for every pair.",
    "sinusoid-sin-cos-swapped": "Sine and cosine are swapped: the even columns hold the sine, the odd columns the "
                                "cosine, so row 0 is 0, 1, 0, 1, ...",
    "sinusoid-halves-not-interleaved": "All the sines come first and all the cosines after, instead of alternating "
                                       "column by column.",
    "sinusoid-pair-index-not-doubled": "The exponent of 10000 uses the pair number i over d, half the exponent of the "
                                       "formula: the slowest pair turns only about a hundred times slower than the "
                                       "fastest.",
    "sinusoid-frequency-per-column": "Every column got its own frequency; the two columns of a pair (2i and 2i + 1) "
                                     "share one angle, the sine and the cosine of the same number.",
    "sinusoid-frequencies-inverted": "The positions were multiplied by the powers of 10000 instead of divided by them, "
                                     "so later pairs turn faster instead of more slowly.",
    "sinusoid-wrong-base": "The frequencies use a base other than 10000.",
    "sinusoid-positions-from-one": "The positions start at 1; the first row is position 0, which gives 0, 1, 0, 1, "
                                   "...",
}

NUDGES = {
    "sinusoid-one-frequency": "Print the exponent 2i/d for each pair of columns.",
    "sinusoid-sin-cos-swapped": "Print row 0 of your table: it should read 0, 1, 0, 1, ...",
    "sinusoid-halves-not-interleaved": "Look at how you place the sines and cosines in the table: side by side in "
                                       "two halves, or alternating?",
    "sinusoid-pair-index-not-doubled": "Print the exponent you use for the last pair: it should be close to 1.",
    "sinusoid-frequency-per-column": "Compare the angle of column 2i with the angle of column 2i + 1.",
    "sinusoid-frequencies-inverted": "Look at whether you divide or multiply the position by the power of 10000.",
    "sinusoid-wrong-base": "Look at the constant you raise to a power.",
    "sinusoid-positions-from-one": "Print row 0 of your table, and the positions you start from.",
}
