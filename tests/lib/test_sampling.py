"""attnlib.sample_next: greedy at temperature 0, inverse-CDF sampling above it, exactly as numpy samples."""
import numpy as np
import pytest

import attnlib as at


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


@pytest.mark.parametrize("temperature", [0.05, 0.5, 1.0, 3.0])
def test_same_tokens_as_generator_choice_with_the_same_random_stream(temperature):
    """Generator.choice(p=p) draws u = rng.random() and inverts the CDF: the same u gives the same token."""
    draw = np.random.default_rng(0)
    for trial in range(300):
        vocab = int(draw.integers(1, 13))
        logits = draw.normal(0.0, 3.0, vocab)
        p = softmax(logits / temperature)
        seed = int(draw.integers(2**32))
        expected = np.random.default_rng(seed).choice(vocab, p=p)
        u = np.random.default_rng(seed).random()
        assert at.sample_next(logits, temperature, u) == expected, (trial, logits, u)


def test_a_seeded_stream_of_tokens_matches_generator_choice():
    logits = np.array([2.0, 1.0, 0.5, -1.0, 0.0, 1.5])
    p = softmax(logits / 0.8)
    a, b = np.random.default_rng(42), np.random.default_rng(42)
    assert [int(a.choice(6, p=p)) for _ in range(500)] == [at.sample_next(logits, 0.8, b.random()) for _ in range(500)]


def test_inverse_cdf_by_hand():
    logits = np.log(np.array([0.2, 0.5, 0.3]))  # p = [0.2, 0.5, 0.3], cumulative [0.2, 0.7, 1.0]
    assert [at.sample_next(logits, 1.0, u) for u in (0.0, 0.19, 0.21, 0.69, 0.71, 0.999)] == [0, 0, 1, 1, 2, 2]


def test_the_first_index_whose_cumulative_probability_is_greater_than_u():
    """u exactly on a boundary belongs to the next token: a token of probability 0 is never returned."""
    logits = np.log(np.array([0.25, 0.25, 0.5]))
    assert at.sample_next(logits, 1.0, 0.25) == 1
    assert at.sample_next(np.array([-np.inf, 0.0, 0.0]), 1.0, 0.0) == 1


def test_temperature_zero_is_argmax_and_ignores_u():
    logits = np.array([0.1, 2.0, -3.0, 1.9])
    assert all(at.sample_next(logits, 0.0, u) == 1 for u in (0.0, 0.3, 0.999))
    assert at.sample_next(logits, 0, 0.5) == 1  # an int temperature too
    assert isinstance(at.sample_next(logits, 0.0, 0.5), int)


def test_ties_go_to_the_first_index_at_temperature_zero_and_split_evenly_above():
    logits = np.array([1.0, 3.0, 3.0, 0.0])
    assert at.sample_next(logits, 0.0, 0.9) == 1
    assert at.sample_next(logits, 1e-8, 0.49) == 1  # two tied maxima share the probability
    assert at.sample_next(logits, 1e-8, 0.51) == 2


def test_tiny_temperature_becomes_the_argmax_without_overflow():
    logits = np.array([1.0, 3.0, 2.0, 2.999])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow, no NaN
        assert [at.sample_next(logits, 1e-8, u) for u in (0.0, 0.5, 0.999999)] == [1, 1, 1]


def test_huge_temperature_is_uniform():
    logits = np.array([5.0, -5.0, 0.0, 1.0])
    assert [at.sample_next(logits, 1e12, u) for u in (0.1, 0.3, 0.6, 0.9)] == [0, 1, 2, 3]


def test_huge_logits_stay_stable():
    logits = np.array([1e4, 1e4 - 1.0, 1e4 - 3.0, -1e4])  # p about [0.705, 0.259, 0.035, 0]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert [at.sample_next(logits, 1.0, u) for u in (0.5, 0.8, 0.99)] == [0, 1, 2]
        assert at.sample_next(np.array([1e300, -1e300, 5.0]), 1e-8, 0.3) == 0
        assert at.sample_next(np.array([1e300, 1e300]), 0.5, 0.7) == 1


def test_float32_logits_and_a_single_token():
    logits = np.array([0.5, 2.5, 1.0], dtype=np.float32)
    p = softmax(logits.astype(np.float64))
    assert at.sample_next(logits, 1.0, p[0] - 1e-6) == 0
    assert at.sample_next(logits, 1.0, p[0] + 1e-6) == 1
    assert at.sample_next(np.array([7.0]), 2.0, 0.999) == 0


def test_never_mutates_and_returns_a_python_int():
    logits = np.array([1.0, 2.0, 3.0])
    kept = logits.copy()
    assert type(at.sample_next(logits, 0.7, 0.5)) is int
    assert np.array_equal(logits, kept)


@pytest.mark.parametrize("args, message", [
    (([1.0, 2.0], -0.5, 0.5), r"temperature must be >= 0"),
    (([1.0, 2.0], float("inf"), 0.5), r"temperature must be a finite real number"),
    (([1.0, 2.0], 1.0, 1.0), r"u must be >= 0.0 and < 1.0"),
    (([1.0, 2.0], 1.0, -0.1), r"u must be >= 0.0 and < 1.0"),
    (([1.0, 2.0], 1.0, None), r"u must be a finite real number"),
    (([1.0, np.nan], 1.0, 0.5), r"logits contains NaN"),
    (([1.0, np.inf], 1.0, 0.5), r"logits contains NaN or \+inf"),
    (([-np.inf, -np.inf], 1.0, 0.5), r"logits are -inf everywhere"),
    ((np.ones((2, 3)), 1.0, 0.5), r"logits must be a 1-D array"),
    ((np.array([], dtype=float), 1.0, 0.5), r"logits is empty"),
    ((np.array([1, 2, 3]), 1.0, 0.5), r"logits must be a float array"),
    (([1.0, 2.0], True, 0.5), r"temperature must be a finite real number"),
])
def test_bad_input_names_the_argument(args, message):
    with pytest.raises(ValueError, match=message):
        at.sample_next(*args)


# top_k_filter and top_p_filter: which tokens survive, checked by hand and against a brute-force search

def test_top_k_keeps_the_k_largest_by_hand():
    logits = np.array([1.0, 3.0, -2.0, 2.0])
    assert np.array_equal(at.top_k_filter(logits, 2), [-np.inf, 3.0, -np.inf, 2.0])
    assert np.array_equal(at.top_k_filter(logits, 1), [-np.inf, 3.0, -np.inf, -np.inf])


def test_top_k_keeps_every_tie_at_the_kth_value():
    assert np.array_equal(at.top_k_filter(np.array([1.0, 3.0, 3.0, 2.0]), 1), [-np.inf, 3.0, 3.0, -np.inf])
    assert np.array_equal(at.top_k_filter(np.array([2.0, 5.0, 2.0, 0.0]), 2), [2.0, 5.0, 2.0, -np.inf])


def test_top_k_at_or_above_the_vocabulary_keeps_everything_and_copies():
    logits = np.array([0.5, -np.inf, 2.0])
    for k in (2, 3, 50):
        out = at.top_k_filter(logits, k)
        assert np.array_equal(out, logits) and out is not logits
    assert np.array_equal(logits, [0.5, -np.inf, 2.0])  # the input is untouched


def _nucleus_by_search(logits, p):
    """The shortest run of most probable tokens (ties: lower id first) whose probabilities sum to >= p."""
    P = softmax(logits)
    ranked = sorted(range(len(P)), key=lambda i: (-P[i], i))
    for n in range(1, len(P) + 1):
        if sum(P[i] for i in ranked[:n]) >= p:
            return set(ranked[:n])
    return set(ranked)


def test_top_p_matches_a_brute_force_search():
    draw = np.random.default_rng(3)
    for trial in range(300):
        logits = draw.normal(0.0, 2.0, int(draw.integers(1, 10)))
        p = float(draw.uniform(0.05, 0.999))
        out = at.top_p_filter(logits, p)
        kept = set(np.flatnonzero(out > -np.inf))
        assert kept == _nucleus_by_search(logits, p), (trial, logits, p)
        assert np.array_equal(out[list(kept)], logits[list(kept)])


def test_top_p_reached_exactly_stops_there():
    """Eight equal logits: each probability is exactly 1/8, so p = 0.25 is reached by two tokens, the first two."""
    out = at.top_p_filter(np.zeros(8), 0.25)
    assert np.array_equal(np.flatnonzero(out == 0.0), [0, 1])
    assert len(np.flatnonzero(at.top_p_filter(np.zeros(8), 0.2500001) == 0.0)) == 3


def test_top_p_one_keeps_every_token_and_a_huge_logit_keeps_one():
    logits = np.array([3.0, -800.0, 0.0])  # exp(-803) underflows: its probability is 0 in float64
    assert np.array_equal(at.top_p_filter(logits, 1.0), logits)
    assert np.array_equal(at.top_p_filter(np.array([1e300, 0.0, -np.inf]), 0.5), [1e300, -np.inf, -np.inf])


@pytest.mark.parametrize("call, words", [
    (lambda: at.top_k_filter(np.zeros(3), 0), "k must be >= 1"),
    (lambda: at.top_k_filter(np.zeros(3), 1.5), "k must be a positive integer"),
    (lambda: at.top_p_filter(np.zeros(3), 0.0), "p"),
    (lambda: at.top_p_filter(np.zeros(3), 1.5), "p"),
    (lambda: at.top_p_filter(np.full(3, -np.inf), 0.5), "-inf everywhere"),
])
def test_filters_refuse_bad_input_by_name(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_generate_with_top_k_1_or_a_tiny_top_p_is_greedy():
    model = at.TinyLM(vocab_size=9, d_model=16, n_heads=2, n_layers=2, max_len=20, seed=1)
    prompt = np.array([1, 4])
    greedy = model.generate(prompt, 12)
    for options in (dict(top_k=1), dict(top_p=1e-9)):
        sampled = model.generate(prompt, 12, temperature=1.5, rng=np.random.default_rng(5), **options)
        assert np.array_equal(sampled, greedy), options
    wide = model.generate(prompt, 12, temperature=1.5, rng=np.random.default_rng(5), top_k=9)
    assert np.array_equal(wide, model.generate(prompt, 12, temperature=1.5, rng=np.random.default_rng(5)))
