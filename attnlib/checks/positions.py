"""Lesson 08, positions: embed (a word vector plus a position vector for every token) and
sinusoidal_positions (the fixed position vectors of the original transformer)."""
import numpy as np

from .probes import WORDS, features, rand
from .spec import Exercise, Probe


def embed(tokens, tok_emb, pos_emb):
    """Reference: tokens (n,) int, tok_emb (vocab, d_model), pos_emb (max_len, d_model) -> X (n, d_model)."""
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[:n]  # (n, d_model): row i is word tokens[i] at place i


def embed_steps(tokens, tok_emb, pos_emb, *, c):
    """X = tok_emb[tokens] + pos_emb[:n]: the word's row plus its place's row."""
    n = len(tokens)
    words = c("word rows", right=tok_emb[tokens], words_by_position=tok_emb[:n],
              words_scaled_by_root_d=tok_emb[tokens] * np.sqrt(tok_emb.shape[1]))
    places = c.step("position rows", right=lambda: pos_emb[:n], positions_by_token_id=lambda: pos_emb[tokens],
                    positions_from_the_end=lambda: pos_emb[len(pos_emb) - n:],
                    positions_off_by_one=lambda: pos_emb[1:n + 1], positions_whole_table=lambda: pos_emb,
                    positions_last_row_only=lambda: pos_emb[n - 1])
    return c.step("word and place", right=lambda: words + places, positions_not_added=lambda: words,
                  positions_multiplied=lambda: words * places,
                  positions_concatenated=lambda: np.concatenate([words, places], axis=1))


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
        pipeline=embed_steps,
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


def sinusoid_steps(n, d, *, c):
    """P (n, d): column pair i turns at 1 / 10000^(2i/d) radians per position, sin in the even column, cos in the
    odd one."""
    t = np.arange(n)[:, None] + c("first position", right=0, sinusoid_positions_from_one=1)  # (n, 1)
    i = np.arange(d // 2)
    exponent = c("pair exponent", right=2 * i / d, sinusoid_pair_index_not_doubled=i / d,
                 sinusoid_one_frequency=(2 * i) // d, sinusoid_column_index_in_exponent=4 * i / d)
    base = c("base", right=10000.0, sinusoid_wrong_base=1000.0, sinusoid_wrong_base__log10=np.exp(4.0))
    f = base ** exponent  # (d/2,)
    with np.errstate(over="ignore"):
        angle = c("angle", right=t / f, sinusoid_frequencies_inverted=t * f,
                  sinusoid_precedence=t / 10000.0 ** (2.0 * i) / d)
    even, odd = c("sin and cos", right=(np.sin, np.cos), sinusoid_sin_cos_swapped=(np.cos, np.sin))
    layout = c("column layout", right="pairs", sinusoid_halves_not_interleaved="halves",
               sinusoid_stacked_then_reshaped="stacked")
    if layout != "pairs":  # all sines, then all cosines: side by side, or stacked and read back row by row
        return np.hstack([even(angle), odd(angle)]) if layout == "halves" else \
            np.stack([even(angle), odd(angle)]).reshape(len(t), d)
    per_column = c("frequency per", right=None, sinusoid_frequency_per_column=1,
                   sinusoid_column_index_in_exponent__every_column=2)  # the column index, times 1 or 2, over d
    if per_column:
        angle = t / 10000.0 ** (per_column * np.arange(d)[None, :] / d)
        angle_even, angle_odd = angle[:, 0::2], angle[:, 1::2]
    else:
        angle_even = angle_odd = angle
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = even(angle_even), odd(angle_odd)
    return P


CHOICES = {
    "word rows": "Look at which rows of the word table you take: the token ids pick them.",
    "position rows": "Look at which rows of the position table you take: the places 0, 1, ..., n-1.",
    "word and place": "Look at how the word vector and the position vector are combined: added, the same width.",
    "first position": "Look at row 0 of your table: the first token sits at position 0.",
    "pair exponent": "Look at the exponent of pair i: 2i over d, a fraction.",
    "base": "Look at the number raised to the exponent.",
    "angle": "Look at how the position and the frequency combine: the first pair turns fastest.",
    "sin and cos": "Look at row 0 of your table: 0, 1, 0, 1, ...",
    "column layout": "Look at which columns a pair takes: 2i and 2i + 1, side by side.",
    "frequency per": "Look at which columns share a frequency: the two of one pair.",
}


def _sin_probe(n, d):
    return Probe((n, d), names=("n", "d"), rows=[f"t{t}" for t in range(n)], cols=features(d))


EXERCISES.append(Exercise(
    name="sinusoidal_positions",
    reference=sinusoidal_positions,
    probes=[_sin_probe(6, 4), _sin_probe(5, 8), _sin_probe(1, 2), _sin_probe(3, 6), _sin_probe(40, 16)],
    pipeline=sinusoid_steps,
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
    "positions-last-row-only": "Every token got the same position vector, the row of the last position; token i "
                               "gets row i of the position table.",
    "sinusoid-one-frequency": "Every pair of columns got the same frequency: the exponent 2i/d was computed with "
                              "floor division (//), which is 0 for every pair.",
    "sinusoid-sin-cos-swapped": "Sine and cosine are swapped: the even columns hold the sine, the odd columns the "
                                "cosine, so row 0 is 0, 1, 0, 1, ...",
    "sinusoid-halves-not-interleaved": "All the sines come first and all the cosines after, instead of alternating "
                                       "column by column.",
    "sinusoid-stacked-then-reshaped": "The sine table and the cosine table were stacked on a new first axis and "
                                      "reshaped to (n, d): the first half of the rows holds every position's sines, "
                                      "the second half their cosines, so each row mixes two positions' values. The "
                                      "pair axis must come last before the reshape, so that sin and cos alternate.",
    "sinusoid-pair-index-not-doubled": "The exponent of 10000 uses the pair number i over d, half the exponent of the "
                                       "formula: the slowest pair turns only about a hundred times slower than the "
                                       "fastest.",
    "sinusoid-frequency-per-column": "Every column got its own frequency; the two columns of a pair (2i and 2i + 1) "
                                     "share one angle, the sine and the cosine of the same number.",
    "sinusoid-frequencies-inverted": "The positions were multiplied by the powers of 10000 instead of divided by them, "
                                     "so later pairs turn faster instead of more slowly.",
    "sinusoid-column-index-in-exponent": "The exponent of 10000 doubles the column index 2i where the pair number i "
                                         "belongs (2·2i/d): each pair turns as slowly as the pair twice as far along.",
    "sinusoid-precedence": "The position was divided by 10000 to the power 2i and then by d, where the exponent of "
                           "10000 is the whole fraction 2i/d: a power binds tighter than a division.",
    "sinusoid-wrong-base": "The frequencies use a base other than 10000.",
    "sinusoid-positions-from-one": "The positions start at 1; the first row is position 0, which gives 0, 1, 0, 1, "
                                   "...",
}
