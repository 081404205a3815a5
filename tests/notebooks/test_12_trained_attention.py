"""Notebook 12 (attention, trained): the claims its text makes.

The trained model's attention and predictions are recomputed by a forward pass written out here in plain numpy
(not TinyLM's own), the grammar's facts and its best possible loss from the generated sentences themselves, and the
exercise's reference is compared with a plain loop.
"""
import math

import numpy as np
import pytest

from helpers import plain_forward, softmax_rows
from helpers import plain_norm as norm

SENTENCE = "the cat sat on the mat".split()


ADJECTIVES = ("big", "small", "black", "old")  # written out: the grammar the notebook describes
VERBS = ("sat", "slept", "stood", "waited")


@pytest.fixture(scope="module")
def trained():
    from attnlib.train import train_task
    result = train_task("sentences", seed=0, progress=False)
    model, words = result.model, result.task.tokenizer.words

    def run(sentence):
        tokens = sentence.split()
        logits, maps = plain_forward(model.params, [words.index(w) for w in tokens], model.n_layers, model.n_heads)
        return tokens, softmax_rows(logits), maps

    return result, run


# ---------------------------------------------------------------------------
# the grammar

def test_12_the_place_follows_the_animal_and_on_follows_every_verb():
    from attnlib.data import PLACES, VERBS, cat_sentences
    places = {"cat": "mat", "dog": "rug", "bird": "branch", "frog": "log"}  # written out: the text's claim
    assert PLACES == places
    for sentence in cat_sentences(500, seed=4):
        words = sentence.split()
        animal = next(w for w in words if w in places)
        assert words[0] == "the" and words[-2] == places[animal]  # question 1: every sentence starts with "the"
        assert len(words) - 2 - words.index(animal) == 4  # the place: always four words after the animal
        verb = next(i for i, w in enumerate(words) if w in VERBS)
        assert words[verb + 1] == "on"  # question 4: "on" whatever the animal


def test_12_rule_determined_positions_are_exactly_the_places_of_the_last_animal():
    from attnlib.data import SentenceTask
    task = SentenceTask(seq_len=24)
    batch = task.batch(64, np.random.default_rng(5))
    words = task.tokenizer.words
    places = {"cat": "mat", "dog": "rug", "bird": "branch", "frog": "log"}
    for b in range(64):
        seen = None
        for t in range(24):
            w = words[batch.tokens[b, t]]
            seen = w if w in places else seen
            target = words[batch.targets[b, t]]
            assert batch.mask[b, t] == (target in places.values())
            if batch.mask[b, t]:
                assert target == places[seen]


def grammar_floor(task, batch_size, seed):
    """Mean -log p(next word) under the grammar itself, one word at a time."""
    from attnlib.data import ADJECTIVES, PLACES
    batch = task.batch(batch_size, np.random.default_rng(seed))
    total, count = 0.0, 0
    for row in batch.tokens:
        previous = "."
        for i in row:
            w = task.tokenizer.words[i]
            if w == "the" and previous == ".":
                total += math.log(8)  # 4 adjectives or 4 animals may follow
            elif w in ADJECTIVES or w in PLACES:
                total += math.log(4)  # 4 animals, or 4 verbs
            count += 1
            previous = w
    return total / count, batch


def test_12_the_best_possible_loss_is_about_0_63_and_the_model_is_close(trained):
    result, _ = trained
    floor, batch = grammar_floor(result.task, 256, seed=6)
    assert abs(floor - 0.63) < 0.02  # question 5
    loss, _ = result.model.loss_and_grads(batch.tokens, batch.targets)
    assert floor - 0.01 < loss < floor + 0.1


# ---------------------------------------------------------------------------
# before and after training

def test_12_tiny_scores_give_the_causal_average():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((6, 32))
    Wq, Wk = rng.normal(0.0, 0.02, (2, 32, 16))  # question 2: weights of std 0.02
    S = (X @ Wq) @ (X @ Wk).T / 4
    S[np.triu_indices(6, k=1)] = -np.inf
    average = np.tril(np.ones((6, 6))) / np.arange(1, 7)[:, None]
    assert np.abs(softmax_rows(S) - average).max() < 0.02


def test_12_untrained_tinylm_is_the_causal_average():
    import attnlib as at
    from attnlib.data import SentenceTask
    task = SentenceTask(seq_len=24)
    model = at.TinyLM(len(task.tokenizer), d_model=32, n_heads=2, n_layers=2, max_len=24, seed=0)
    _, maps = plain_forward(model.params, task.tokenizer.encode(SENTENCE), 2, 2)
    average = np.tril(np.ones((6, 6))) / np.arange(1, 7)[:, None]
    assert np.abs(maps - average).max() < 0.02


def test_12_plain_forward_agrees_with_tinylm(trained):
    result, run = trained
    tokens, P, maps = run("the cat sat on the mat . the dog sat on the rug .")
    ids = result.task.tokenizer.encode(tokens)
    assert np.allclose(maps, result.model.attention_maps(ids))
    assert np.allclose(P, softmax_rows(result.model.forward(ids)))


def test_12_trained_accuracy_is_perfect(trained):
    result, _ = trained
    assert result.accuracy >= 0.99


def test_12_the_second_the_looks_at_cat_and_predicts_mat(trained):
    result, run = trained
    tokens, P, maps = run("the cat sat on the mat")
    row = maps[:, :, 4].reshape(4, 6)
    assert [tokens[j] for j in row.argmax(axis=1)] == ["cat"] * 4
    assert np.sum(row[:, 1] > 0.6) == 3 and row[:, 1].min() > 0.3
    assert result.task.tokenizer.words[P[4].argmax()] == "mat" and P[4].max() > 0.8


def test_12_sat_looks_at_itself_in_layer_0_and_at_cat_in_layer_1_head_0(trained):
    _, run = trained
    tokens, P, maps = run("the cat sat on the mat")
    sat = maps[:, :, 2, :3].reshape(4, 3)
    assert [tokens[j] for j in sat.argmax(axis=1)] == ["sat", "sat", "cat", "the"]
    assert sat[:2, 2].min() > 0.4 and sat[:2, 1].max() < 0.15
    assert sat[0, 2] > 0.7  # head 0: most of the row on itself
    assert 0 < sat[1, 2] - sat[1, 0] < 0.1  # head 1: itself, with the first "the" close behind, not "mostly itself"
    head = maps[1, 0]
    assert head[3, 1] > 0.7 and head[4, 1] > 0.6  # "on" and the second "the" look at "cat" too


def test_12_the_animal_decides_the_place_and_nothing_else(trained):
    result, run = trained
    words = result.task.tokenizer.words
    for animal, place in {"cat": "mat", "dog": "rug", "bird": "branch", "frog": "log"}.items():
        _, P, _ = run(f"the {animal} sat on the")
        assert words[P[4].argmax()] == place
        assert P[2, words.index("on")] > 0.99


def test_12_with_an_adjective_before_the_animal_every_head_still_finds_it(trained):
    _, run = trained
    tokens, _, maps = run("the big cat sat on the")
    assert [tokens[j] for j in maps[:, :, -1].argmax(axis=-1).ravel()] == ["cat"] * 4


def test_12_in_a_second_sentence_layer_0_finds_dog(trained):
    result, run = trained
    tokens, P, maps = run("the cat sat on the mat . the dog sat on the")
    assert [tokens[j] for j in maps[0, :, 11].argmax(axis=-1)] == ["dog", "dog"]
    assert result.task.tokenizer.words[P[11].argmax()] == "rug"


def test_12_on_training_rows_the_animal_is_always_three_back():
    from attnlib.data import SentenceTask
    task = SentenceTask(seq_len=24)
    batch = task.batch(64, np.random.default_rng(9))
    words = task.tokenizer.words
    for b, t in zip(*np.nonzero(batch.mask)):
        assert t >= 3 and words[batch.tokens[b, t]] == "the"
        assert words[batch.tokens[b, t - 3]] in ("cat", "dog", "bird", "frog")


def test_12_one_word_after_the_animal_layer_0_still_finds_it(trained):
    result, run = trained
    words = result.task.tokenizer.words
    places = {"cat": "mat", "dog": "rug", "bird": "branch", "frog": "log"}
    tokens, _, maps = run("the cat old sat on the")
    assert tokens[-4] == "old"  # three back from the last "the" (question 3)
    assert [tokens[j] for j in maps[:, :, -1].argmax(axis=-1).ravel()] == ["cat"] * 4
    assert maps[0, :, -1, 2].max() < 0.15
    for animal in places:
        for adjective in ADJECTIVES:
            for verb in VERBS:
                tokens, P, maps = run(f"the {animal} {adjective} {verb} on the")
                assert [tokens[j] for j in maps[0, :, -1].argmax(axis=-1)] == [animal, animal]
                assert maps[0, :, -1, 1].min() >= 0.395
                assert words[P[-1].argmax()] == places[animal] and P[-1].max() >= 0.795


def test_12_a_phrase_after_the_animal_leaves_the_model_lost(trained):
    result, run = trained
    words = result.task.tokenizer.words
    tokens, P, maps = run("the cat on the log sat on the")
    assert maps[:, :, -1].max() < 0.35
    assert words[P[-1].argmax()] not in ("mat", "rug", "branch", "log") and P[-1, words.index("mat")] < 0.05


def test_12_notebook_05_made_up_weights_put_cat_first_by_a_hair():
    from attnlib.data import essay_example
    ex = essay_example()
    S = (ex["X"] @ ex["Wq"]) @ (ex["X"] @ ex["Wk"]).T
    row = S[4, :5]  # the second "the", over the words it may see
    assert row.argmax() == 1 and np.sort(row)[-1] - np.sort(row)[-2] < 0.05


def test_12_trained_layer_0_head_0_scores_cat_first_by_a_wide_margin(trained):
    result, _ = trained
    p, tok = result.model.params, result.task.tokenizer
    ids = tok.encode(SENTENCE)
    H = norm(p["tok_emb"][ids] + p["pos_emb"][:6], p["blocks.0.ln1_g"], p["blocks.0.ln1_b"])  # (6, 32)
    d = H.shape[1] // result.model.n_heads
    S = (H @ p["blocks.0.Wq"][:, :d]) @ (H @ p["blocks.0.Wk"][:, :d]).T / math.sqrt(d)
    row = S[4, :5]
    assert row.argmax() == 1 and np.sort(row)[-1] - np.sort(row)[-2] > 0.7
    assert S[2, :3].argmax() == 2 and S[2, 1] < 0  # "sat": itself first, "cat" below 0


# ---------------------------------------------------------------------------
# the exercise

def test_12_most_attended_reference_is_the_first_largest_weight_of_each_row():
    from attnlib.checks.trained_attention import EXERCISES, most_attended

    def plain(A, tokens):
        out = []
        for row in A:
            best = 0
            for j, a in enumerate(row):
                if a > row[best]:
                    best = j
            out.append(tokens[best])
        return out

    rng = np.random.default_rng(8)
    for n_q, n_k in ((1, 1), (3, 5), (6, 6), (4, 2)):
        A = softmax_rows(rng.standard_normal((n_q, n_k)))
        tokens = [f"w{j}" for j in range(n_k)]
        assert most_attended(A, tokens) == plain(A, tokens)
    ties = np.array([[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [1 / 3, 1 / 3, 1 / 3]])
    assert most_attended(ties, ["a", "b", "c"]) == ["a", "b", "a"]
    for probe in EXERCISES[0].probes:  # every probe: n_q words, the plain answer
        A, tokens = probe.args
        assert most_attended(A, tokens) == plain(A, tokens) and len(probe.rows) == A.shape[0]


# ---------------------------------------------------------------------------
# entropy

def plain_entropy(row):
    """-sum a log a with a loop, 0 log 0 = 0."""
    return -sum(a * math.log(a) for a in row if a > 0)


def test_12_entropy_by_hand_is_0_for_one_hot_and_log_m_for_an_even_row_over_m_keys():
    assert plain_entropy([1.0, 0.0, 0.0, 0.0]) == 0
    for m in (1, 2, 4, 6):
        assert math.isclose(plain_entropy([1 / m] * m + [0.0] * 3), math.log(m), abs_tol=1e-12)
    assert round(plain_entropy([0.7, 0.1, 0.1, 0.1]), 3) == 0.940  # the fourth row of the notebook's example
    rng = np.random.default_rng(21)
    for row in softmax_rows(rng.normal(0.0, 2.0, (500, 4))):  # never above the even row
        assert 0 < plain_entropy(row) < math.log(4)


def test_12_entropy_of_the_trained_rows(trained):
    from attnlib.checks.trained_attention import attention_entropy
    result, run = trained
    tokens, _, maps = run("the cat sat on the mat")
    H = np.array([[plain_entropy(row) for row in maps[l, h]] for l in range(2) for h in range(2)])  # (4, 6)
    even = np.log(np.arange(1, 7))
    assert np.allclose(attention_entropy(maps[0, 0]), H[0])  # the exercise's reference agrees
    assert np.all(H <= even + 1e-12)
    assert abs(H.mean() - 0.8) < 0.04 and abs(even.mean() - 1.1) < 0.01  # "from 1.1 nats on average to 0.8"
    assert H[3, 1] < 0.1 and H[1, 5] > 0.95 * even[5] and np.all(H[:, 4] < even[4] - 0.3)
    _, _, maps_lost = run("the cat on the log sat on the")
    H_lost = [plain_entropy(row) for row in maps_lost[:, :, -1].reshape(4, -1)]
    assert min(H_lost) > math.log(8) - 0.3  # the lost sentence: nearly even rows


def test_12_untrained_rows_have_the_largest_entropy():
    import attnlib as at
    from attnlib.data import SentenceTask
    task = SentenceTask(seq_len=24)
    model = at.TinyLM(len(task.tokenizer), d_model=32, n_heads=2, n_layers=2, max_len=24, seed=0)
    _, maps = plain_forward(model.params, task.tokenizer.encode(SENTENCE), 2, 2)
    H = np.array([[plain_entropy(row) for row in maps[l, h]] for l in range(2) for h in range(2)])
    assert np.abs(H - np.log(np.arange(1, 7))).max() < 0.001
