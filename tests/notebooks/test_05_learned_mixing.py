"""Notebook 05 (learned mixing): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy instead of the notebook's own code.
Its motivation is checked against the trained model that notebook 12 shows.
"""
import numpy as np


def test_05_answers_shapes_and_key_scaling():
    from attnlib.data import essay_example
    ex = essay_example(d_head=4)
    Q, K = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]
    assert Q.shape == K.shape == (6, 4) and (Q @ K.T).shape == (6, 6)  # question 1
    K10 = K.copy()
    K10[2] *= 10.0
    S, S10 = Q @ K.T, Q @ K10.T
    assert np.allclose(S10[:, 2], 10 * S[:, 2]) and np.allclose(np.delete(S10, 2, 1), np.delete(S, 2, 1))


def test_05_xxt_is_symmetric_but_qkt_is_not():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((5, 6))
    Wq, Wk = rng.standard_normal((2, 6, 6))
    assert np.allclose(X @ X.T, (X @ X.T).T)
    S = (X @ Wq) @ (X @ Wk).T
    assert not np.allclose(S, S.T)
    assert np.allclose(S, X @ (Wq @ Wk.T) @ X.T)


def test_05_in_the_grammar_the_place_is_fixed_by_the_animal():
    from attnlib.data import cat_sentences
    place_of = {}
    for sentence in cat_sentences(300, seed=4):
        words = sentence.split()
        animal = words[words.index("the", 1) - 3]  # "... animal verb on the place ."
        place_of.setdefault(animal, set()).add(words[-2])
    assert place_of["cat"] == {"mat"} and place_of["dog"] == {"rug"} and place_of["bird"] == {"branch"}
    assert all(len(places) == 1 for places in place_of.values())


def test_05_motivation_the_trained_second_the_looks_at_cat():
    from attnlib.train import train_task
    run = train_task("sentences", seed=0, progress=False)  # the model notebook 12 shows
    words = "the cat sat on the mat .".split()
    tokens = run.task.tokenizer.encode(words)
    maps = run.model.attention_maps(tokens)  # (layers, heads, T, T)
    for layer_maps in maps:
        for A in layer_maps:
            assert words[int(np.argmax(A[4]))] == "cat"  # every head of every layer
    next_word = run.task.tokenizer.words[int(run.model.forward(tokens[None])[0, 4].argmax())]
    assert next_word == "mat"
    strong = [(l, h) for l in range(maps.shape[0]) for h in range(maps.shape[1]) if maps[l, h, 4, 1] > 0.5]
    assert len(strong) >= 3  # most heads give "cat" more than half of the row


def test_05_a_fixed_three_back_rule_picks_the_hat():
    s1, s2 = "the cat sat on the mat".split(), "the cat with the hat sat on the mat".split()
    assert s1[4 - 3] == "cat" and s2[7 - 3] == "hat"


def test_05_q_and_k_entries_end_at_the_third_decimal():
    """05 prints the factors of one score with three decimals and says that is all they have."""
    from attnlib.data import essay_example
    ex = essay_example()
    tenths, hundredths = ex["X"] * 10, np.stack([ex["Wq"], ex["Wk"]]) * 100
    assert np.allclose(tenths, np.round(tenths), atol=1e-9) and np.allclose(hundredths, np.round(hundredths), atol=1e-9)
    ints = [np.round(tenths).astype(int) @ np.round(h).astype(int) for h in hundredths]  # exact integer products
    Q, K = (ex["X"] @ ex[w] for w in ("Wq", "Wk"))
    assert np.allclose(Q * 1000, ints[0], rtol=0, atol=1e-9) and np.allclose(K * 1000, ints[1], rtol=0, atol=1e-9)
    assert int(ints[0][4] @ ints[1][1]) == -351002  # the score by hand: -0.351002, exactly
