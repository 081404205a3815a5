"""The essay's running example and toy data, generated in code (no downloads).

Every word gets a fixed vector: the same word always gives the same row of X,
whatever sentence it sits in, so the two "the" rows of "the cat sat on the mat"
are identical. Values are rounded to one decimal so tables stay readable.

The second half generates toy training data for TinyLM: a small grammar of "the
cat sat on the mat" sentences, a copy task, a fill-in-the-blank task and a repeat
task for induction heads, with a word-level Tokenizer.
"""
import re
import zlib
from collections import namedtuple

import numpy as np

from ._validate import as_int_array, non_negative_int, positive_int, public

ESSAY_SENTENCE = "the cat sat on the mat"


def tokenize(sentence):
    """Split a sentence into lowercase word tokens: "The cat sat." -> ['the', 'cat', 'sat']."""
    if not isinstance(sentence, str):
        raise ValueError(f"sentence must be a string, got {type(sentence).__name__}")
    tokens = re.findall(r"[a-z0-9']+", sentence.lower())
    if not tokens:
        raise ValueError(f"sentence {sentence!r} has no words to turn into tokens")
    return tokens


def word_vectors(tokens, d_model=6, seed=0):
    """X (n, d_model): one row per token, in [0, 1] rounded to 0.1, fixed per word."""
    d_model = positive_int("d_model", d_model)
    seed = non_negative_int("seed", seed)
    if isinstance(tokens, str):
        tokens = tokenize(tokens)
    if not isinstance(tokens, (list, tuple)) or not all(isinstance(w, str) for w in tokens):
        raise ValueError(f"tokens must be a sentence or a list of words (strings), got {tokens!r}")
    if len(tokens) == 0:
        raise ValueError("tokens is empty; give at least one word")
    rows = []
    for word in tokens:
        rng = np.random.default_rng([seed, zlib.crc32(word.encode())])
        rows.append(np.round(rng.uniform(0.0, 1.0, d_model), 1))
    return np.array(rows)  # (n, d_model)


def example_weights(d_in=6, d_out=6, seed=0):
    """A weight matrix (d_in, d_out) with entries in [-0.5, 0.5] rounded to 0.01."""
    d_in, d_out = positive_int("d_in", d_in), positive_int("d_out", d_out)
    rng = np.random.default_rng(non_negative_int("seed", seed))
    return np.round(rng.uniform(-0.5, 0.5, (d_in, d_out)), 2)


def essay_example(sentence=ESSAY_SENTENCE, d_model=6, d_head=6, seed=0):
    """The running example: tokens, X and the weights Wq, Wk, Wv, Wo as a dict.

    Wq, Wk, Wv are (d_model, d_head) and Wo is (d_head, d_model), each from its own seed.
    """
    tokens = tokenize(sentence)
    return {
        "tokens": tokens,
        "X": word_vectors(tokens, d_model, seed),
        "Wq": example_weights(d_model, d_head, seed + 1),
        "Wk": example_weights(d_model, d_head, seed + 2),
        "Wv": example_weights(d_model, d_head, seed + 3),
        "Wo": example_weights(d_head, d_model, seed + 4),
    }


# ----------------------------------------------------------------------------
# Toy corpora for training TinyLM (notebooks 11-13). Everything is generated
# from a seeded rng: no downloads. Each task's `batch(batch_size, rng)` returns
# Batch(tokens, targets, mask), all (B, T): targets[b, t] is what position t
# should predict (-1 where nothing is scored) and mask marks the positions whose
# answer the task's rule determines, where accuracy is measured.

Batch = namedtuple("Batch", ["tokens", "targets", "mask"])

# Every animal has its own place, so "the cat ... on the" can only end in "mat":
# the noun decides the word four tokens later (agreement across words).
PLACES = {"cat": "mat", "dog": "rug", "bird": "branch", "frog": "log"}
ADJECTIVES = ("big", "small", "black", "old")
VERBS = ("sat", "slept", "stood", "waited")


@public
class Tokenizer:
    """Words <-> integer ids, one id per word of a fixed vocabulary.

    encode("the cat sat") -> array([...]); decode(ids) -> "the cat sat".
    `words` are distinct non-empty strings without spaces (encode splits a sentence at spaces).
    """

    def __init__(self, words):
        if isinstance(words, str):
            raise ValueError(f"words must be a list of words, got the string {words!r}; pass a list of words "
                             f"such as {words.split()!r}")
        try:
            words = list(words)
        except TypeError:
            raise ValueError(f"words must be a list of words, got {type(words).__name__}") from None
        not_str = [w for w in words if not isinstance(w, str)]
        if not_str:
            raise ValueError(f"words must all be strings, got {not_str[0]!r} ({type(not_str[0]).__name__})")
        for i, w in enumerate(words):  # encode() splits a sentence at whitespace: such a word could never be found
            if not w.strip():
                raise ValueError(f"words[{i}] is {w!r}: every word needs at least one character that is not a space")
            if any(ch.isspace() for ch in w):
                space = "a space" if " " in w else "whitespace"
                raise ValueError(f"words[{i}] is {w!r}, which contains {space}: encode() splits a sentence at "
                                 f"whitespace, so it could never be found; give its parts as separate words: "
                                 f"{w.split()!r}")
        if len(set(words)) != len(words) or not words:
            raise ValueError(f"words must be a non-empty list without repeats, got {words}")
        self.words = words
        self.ids = {w: i for i, w in enumerate(words)}

    def __len__(self):
        return len(self.words)

    def __repr__(self):
        return f"Tokenizer({len(self)} words: {' '.join(self.words)})"

    def encode(self, text):
        """A sentence (str) or a list of words -> int array (n,)."""
        if isinstance(text, str):
            words = text.split()
        elif isinstance(text, (list, tuple, np.ndarray)):
            words = list(text)
        else:
            raise ValueError(f"text must be a sentence (str) or a list of words, got {type(text).__name__}")
        unknown = [w for w in words if not isinstance(w, str) or w not in self.ids]
        if unknown:
            raise ValueError(f"words not in the vocabulary: {', '.join(map(repr, unknown))}; "
                             f"known words are: {' '.join(self.words)}")
        return np.array([self.ids[w] for w in words], dtype=np.int64)

    def decode(self, ids):
        """Int ids (n,) -> the words joined by spaces."""
        ids = as_int_array("ids", ids, "(n,)")
        if ids.ndim != 1:
            raise ValueError(f"ids must be a 1-D integer array, got shape {ids.shape}")
        if ids.size and (ids.min() < 0 or ids.max() >= len(self)):
            raise ValueError(f"ids must be in [0, {len(self)}), got values from {ids.min()} to {ids.max()}")
        return " ".join(self.words[i] for i in ids)


def _check_rng(rng):
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a np.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    return rng


def cat_sentence(rng):
    """One sentence of the grammar as a list of words: "the [adjective] animal verb on the place ."."""
    _check_rng(rng)
    animal = str(rng.choice(list(PLACES)))
    adjective = [str(rng.choice(ADJECTIVES))] if rng.random() < 0.5 else []
    return ["the", *adjective, animal, str(rng.choice(VERBS)), "on", "the", PLACES[animal], "."]


def cat_sentences(n, seed=0):
    """n sentences of the grammar, as strings."""
    rng = np.random.default_rng(non_negative_int("seed", seed))
    return [" ".join(cat_sentence(rng)) for _ in range(positive_int("n", n))]


GRAMMAR_WORDS = ["the", *PLACES, *PLACES.values(), *ADJECTIVES, *VERBS, "on", "."]


def grammatical(sentence):
    """True when `sentence` (a str, or a list of words) is one sentence of the grammar, its place agreeing with
    its animal: "the [adjective] animal verb on the place ."."""
    words = sentence.split() if isinstance(sentence, str) else list(sentence)
    if len(words) == 8 and words[1] in ADJECTIVES:
        words = words[:1] + words[2:]  # the optional adjective
    return (len(words) == 7 and words[0] == "the" and words[1] in PLACES and words[2] in VERBS
            and words[3:] == ["on", "the", PLACES[words[1]], "."])


def sentences_of(text):
    """The sentences of a generated text (str), each ending at a ".": a last unfinished one is left out."""
    return [s.strip() + " ." for s in text.split(".")[:-1]]


class SentenceTask:
    """Next-token prediction on a stream of grammar sentences.

    Each row is sentences laid end to end, cut to seq_len. The rule-determined
    positions are those whose next word is a place: only attention back to the
    animal can tell "mat" from "rug".
    """

    name = "sentences"

    def __init__(self, seq_len=24):
        self.seq_len = positive_int("seq_len", seq_len)
        self.tokenizer = Tokenizer(GRAMMAR_WORDS)
        self.place_ids = self.tokenizer.encode(list(PLACES.values()))

    def batch(self, batch_size, rng):
        _check_rng(rng)
        rows = []
        for _ in range(positive_int("batch_size", batch_size)):
            words = []
            while len(words) < self.seq_len + 1:
                words += cat_sentence(rng)
            rows.append(self.tokenizer.encode(words[:self.seq_len + 1]))
        seq = np.stack(rows)  # (B, T + 1)
        targets = seq[:, 1:]
        return Batch(seq[:, :-1], targets, np.isin(targets, self.place_ids))


class CopyTask:
    """Repeat a random run of words: "w1 .. wk | w1 .. wk".

    After the bar each word equals the one k + 1 positions back, so a head that
    attends exactly that far back solves it: the learned attention map shows a
    stripe parallel to the diagonal. Tokens before the bar are random and
    unpredictable; the rule-determined positions are the bar and the words
    after it (the last one has nothing to predict and is dropped).
    """

    name = "copy"

    def __init__(self, span=8, words=None):
        self.span = positive_int("span", span)
        words = list(words) if words is not None else list(PLACES) + list(ADJECTIVES) + list(PLACES.values())
        self.tokenizer = Tokenizer(words + ["|"])
        self.n_words = len(words)
        self.seq_len = 2 * self.span

    def batch(self, batch_size, rng):
        B, k = positive_int("batch_size", batch_size), self.span
        _check_rng(rng)
        run = rng.integers(0, self.n_words, (B, k))  # (B, k)
        bar = np.full((B, 1), self.n_words)
        seq = np.concatenate([run, bar, run], axis=1)  # (B, 2k + 1)
        mask = np.zeros((B, 2 * k), dtype=bool)
        mask[:, k:] = True  # from the bar on, the next word is a copy
        return Batch(seq[:, :-1], seq[:, 1:], mask)


class LookBackTask:
    """A stream of random words; at every position, name the word `lag` positions back.

    Each row is seq_len words drawn independently (nothing can be memorised), and the target at
    position t is the word at t - lag: "big cat rug old ..." asks, lag words later, for "big". Only
    the positions t >= lag have an answer and are scored. The rule never changes along the row, so a
    model that measures the distance between two positions does it anywhere; one that learned where
    each position is may not, at positions it never trained on (notebook 16: seq_len can be set
    longer for testing than for training).
    """

    name = "look back"

    def __init__(self, seq_len=16, lag=8, words=None):
        self.seq_len = positive_int("seq_len", seq_len)
        self.lag = positive_int("lag", lag)
        if self.lag >= self.seq_len:
            raise ValueError(f"lag must be smaller than seq_len so that some position has an answer, got lag={lag} "
                             f"and seq_len={seq_len}")
        words = list(words) if words is not None else list(PLACES) + list(ADJECTIVES) + list(PLACES.values())
        self.tokenizer = Tokenizer(words)
        self.n_words = len(words)

    def batch(self, batch_size, rng):
        B, T, lag = positive_int("batch_size", batch_size), self.seq_len, self.lag
        _check_rng(rng)
        tokens = rng.integers(0, self.n_words, (B, T))  # (B, T)
        targets = np.full((B, T), -1)
        targets[:, lag:] = tokens[:, :-lag]  # the word lag positions back
        return Batch(tokens, targets, targets >= 0)


class BlankTask:
    """Fill in the blank: "the _ sat on the mat ." -> "cat".

    The animal is replaced by "_" and the target at that position is the animal;
    no other position is scored. The answer is given only by the place word
    AFTER the blank, so a causal model can only guess (1 in 4), while a
    bidirectional model (TinyLM(..., causal=False)) can read it.
    """

    name = "blank"

    def __init__(self, seq_len=8):
        self.seq_len = positive_int("seq_len", seq_len)
        if self.seq_len < 8:
            raise ValueError(f"seq_len must be >= 8 to hold the longest sentence, got {seq_len}")
        self.tokenizer = Tokenizer(GRAMMAR_WORDS + ["_"])

    def batch(self, batch_size, rng):
        B = positive_int("batch_size", batch_size)
        _check_rng(rng)
        tokens = np.full((B, self.seq_len), self.tokenizer.ids["."])
        targets = np.full((B, self.seq_len), -1)
        for b in range(B):
            words = cat_sentence(rng)
            i = 1 if words[1] in PLACES else 2  # the animal's position
            targets[b, i] = self.tokenizer.ids[words[i]]
            words[i] = "_"
            tokens[b, :len(words)] = self.tokenizer.encode(words)
        return Batch(tokens, targets, targets >= 0)



SYLLABLES = tuple(c + v for c in "bdfghklmnprstvz" + "j" for v in "aeio")  # 64 made-up words: ba, be, .., jo


class RepeatTask:
    """Random syllables, then a stretch of them said again: "ko ma ri [..] fe do ko ma ri fe do".

    Every row has seq_len + 1 distinct syllables drawn fresh (nothing can be memorised): a random
    prefix, a stretch of L words (L drawn from span for each row) and, at the end, the same stretch
    again. Inside the repeat, the next word sits right after the earlier copy of the current word,
    which no fixed distance finds (L varies). The rule-determined positions are the repeat's
    words whose next word is in the repeat too.
    """

    name = "repeat"

    def __init__(self, seq_len=24, span=(3, 10)):
        self.seq_len = positive_int("seq_len", seq_len)
        self.tokenizer = Tokenizer(SYLLABLES)
        try:
            low, high = (positive_int("span", s) for s in span)
        except TypeError:
            raise ValueError(f"span must be a pair (shortest, longest) of stretch lengths, got {span!r}") from None
        if not 2 <= low <= high or 2 * high > self.seq_len + 1:
            raise ValueError(f"span must satisfy 2 <= shortest <= longest and 2 * longest <= seq_len + 1 = "
                             f"{self.seq_len + 1}, got {span!r}")
        if self.seq_len + 1 - high > len(SYLLABLES):
            raise ValueError(f"seq_len={seq_len} needs more than the {len(SYLLABLES)} distinct syllables")
        self.span = (low, high)

    def batch(self, batch_size, rng):
        B, T = positive_int("batch_size", batch_size), self.seq_len
        _check_rng(rng)
        seq, mask = np.empty((B, T + 1), dtype=np.int64), np.zeros((B, T), dtype=bool)
        for b in range(B):
            L = int(rng.integers(self.span[0], self.span[1] + 1))
            s = T + 1 - 2 * L                              # prefix x[:s], stretch x[s:s+L], repeat x[s+L:]
            x = rng.permutation(len(SYLLABLES))[:T + 1 - L]  # distinct syllables
            seq[b] = np.concatenate([x[:s + L], x[s:s + L]])
            mask[b, s + L:s + 2 * L - 1] = True            # inside the repeat, the next word repeats too
        return Batch(seq[:, :-1], seq[:, 1:], mask)
