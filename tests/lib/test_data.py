"""Toy corpora: the tokenizer, and each task's rule checked on the words themselves."""
import numpy as np
import pytest

from attnlib import data
from attnlib.data import BlankTask, CopyTask, LookBackTask, SentenceTask, Tokenizer
from helpers import rng


def test_tokenizer_round_trip_and_unknown_words():
    tok = Tokenizer(["the", "cat", "sat", "on", "mat"])
    ids = tok.encode("the cat sat on the mat")
    np.testing.assert_array_equal(ids, [0, 1, 2, 3, 0, 4])
    assert tok.decode(ids) == "the cat sat on the mat"
    np.testing.assert_array_equal(tok.encode(["mat", "cat"]), [4, 1])
    with pytest.raises(ValueError, match="'dog'"):
        tok.encode("the dog sat")
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        tok.decode(np.array([0, 5]))
    with pytest.raises(ValueError, match="repeats"):
        Tokenizer(["a", "b", "a"])


@pytest.mark.parametrize("word", ["cat", "ca't", ".", "|", "_", "chat\u200b", "", " ", "cat ", " cat", "c at",
                                  "c\tat", "c\nat", "c\u00a0at", "c\u3000at"])
def test_tokenizer_takes_exactly_the_words_a_sentence_can_hold(word):
    """encode() splits a sentence with str.split(), so a word is usable when splitting it gives it back whole."""
    usable = word.split() == [word]
    if usable:
        tok = Tokenizer(["the", word])
        assert tok.decode(tok.encode(f"the {word} the")) == f"the {word} the"
    else:
        with pytest.raises(ValueError, match=r"words\[1\] is "):
            Tokenizer(["the", word])


def test_grammar_sentences_follow_the_rule():
    sentences = data.cat_sentences(200, seed=1)
    assert sentences == data.cat_sentences(200, seed=1)
    assert sentences != data.cat_sentences(200, seed=2)
    assert len(set(sentences)) > 50
    for s in sentences:
        words = s.split()
        assert words[0] == "the" and words[-1] == "." and words[-4:-2] == ["on", "the"]
        animal = words[1] if len(words) == 7 else words[2]
        assert len(words) in (7, 8)
        assert words[-2] == {"cat": "mat", "dog": "rug", "bird": "branch", "frog": "log"}[animal]


def test_sentence_task_marks_the_place_words():
    task = SentenceTask(seq_len=20)
    tokens, targets, mask = task.batch(16, rng(0))
    assert tokens.shape == targets.shape == mask.shape == (16, 20)
    np.testing.assert_array_equal(tokens[:, 1:], targets[:, :-1])  # next-token targets
    words = np.array(task.tokenizer.words)
    assert set(words[targets[mask]]) <= {"mat", "rug", "branch", "log"}
    assert set(words[targets[~mask]]).isdisjoint({"mat", "rug", "branch", "log"})
    assert mask.sum() >= 16 * 2


def test_copy_task_repeats_from_a_fixed_distance():
    task = CopyTask(span=5)
    tokens, targets, mask = task.batch(8, rng(1))
    assert tokens.shape == (8, 10)
    bar = task.tokenizer.ids["|"]
    assert np.all(tokens[:, 5] == bar) and np.all(tokens[:, :5] != bar)
    np.testing.assert_array_equal(tokens[:, 6:], tokens[:, :4])  # the copy
    for b in range(8):
        for t in range(10):
            if mask[b, t]:
                assert targets[b, t] == tokens[b, t - 5]  # determined: the word span positions back
    assert mask[:, 5:].all() and not mask[:, :5].any()
    a = task.batch(4, rng(7)).tokens
    assert np.array_equal(a, task.batch(4, rng(7)).tokens) and not np.array_equal(a, task.batch(4, rng(8)).tokens)


def test_blank_task_answer_comes_after_the_blank():
    task = BlankTask()
    tokens, targets, mask = task.batch(64, rng(2))
    words = np.array(task.tokenizer.words)
    assert np.all(mask.sum(axis=1) == 1)
    assert np.all(targets[~mask] == -1)
    for b in range(64):
        sentence = list(words[tokens[b]])
        i = sentence.index("_")
        assert mask[b, i]
        answer = words[targets[b, i]]
        place = sentence[sentence.index("on") + 2]
        assert data.PLACES[answer] == place
        assert place not in sentence[:i] and answer not in sentence  # only the future tells
    # the four animals all appear, so a causal model cannot beat about 1 in 4
    assert len(set(words[targets[mask]])) == 4


def test_look_back_task_asks_for_the_word_lag_positions_back():
    task = LookBackTask(seq_len=12, lag=5)
    tokens, targets, mask = task.batch(64, rng(2))
    assert tokens.shape == targets.shape == mask.shape == (64, 12) and len(task.tokenizer) == 12
    for b in range(64):
        for t in range(12):
            assert mask[b, t] == (t >= 5)
            assert targets[b, t] == (tokens[b, t - 5] if t >= 5 else -1)
    assert len(np.unique(tokens)) == 12  # every word turns up: nothing is fixed by position
    long = LookBackTask(seq_len=24, lag=5).batch(2, rng(3))
    assert long.tokens.shape == (2, 24) and long.mask[:, 5:].all()


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="lag must be smaller than seq_len"):
        LookBackTask(seq_len=8, lag=8)
    with pytest.raises(ValueError, match="span"):
        CopyTask(span=0)
    with pytest.raises(ValueError, match="seq_len"):
        BlankTask(seq_len=5)
    with pytest.raises(ValueError, match="batch_size"):
        SentenceTask().batch(0, rng(0))


def test_grammatical_accepts_every_grammar_sentence_and_nothing_near_it():
    assert all(data.grammatical(s) for s in data.cat_sentences(300, seed=4))
    assert data.grammatical(["the", "big", "dog", "slept", "on", "the", "rug", "."])
    for wrong in ("the cat sat on the rug .",          # the place does not agree with the animal
                  "the cat sat on the mat",            # no full stop
                  "the big old cat sat on the mat .",  # two adjectives
                  "the mat sat on the cat .",          # roles swapped
                  "the cat on the mat .",              # no verb
                  "big the cat sat on the mat .", ""):
        assert not data.grammatical(wrong), wrong


def test_sentences_of_splits_at_full_stops_and_drops_an_unfinished_tail():
    text = "the cat sat on the mat . the dog slept on the rug . the frog"
    assert data.sentences_of(text) == ["the cat sat on the mat .", "the dog slept on the rug ."]
    assert data.sentences_of("on the mat") == []
