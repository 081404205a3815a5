"""Notebook 14 (generation and the KV cache): the claims its text makes.

Memory is measured with tracemalloc against an attention written out here in plain numpy; the shared-head
claim, the cache sizes and the cached step are recomputed in plain numpy too, and the lesson after it is
checked in the course order.
"""
import math
import tracemalloc

import numpy as np

from claims import plain_attention
from helpers import ROOT, softmax_rows


def full_scores_attention(Q, K, V):
    """Unmasked softmax(Q K^T / sqrt(d)) V, building the whole n x n score matrix."""
    return softmax_rows(Q @ K.T / math.sqrt(Q.shape[1])) @ V


def peak_mib(fn):
    tracemalloc.start()
    out = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, peak / 2 ** 20


def test_14_a_32k_score_matrix_is_a_billion_numbers_and_4_gib_in_float32():
    assert 32768 ** 2 == 2 ** 30 and 32768 ** 2 * np.dtype(np.float32).itemsize == 4 * 2 ** 30


def test_14_tiled_attention_grows_in_step_with_n_and_plain_attention_with_n_squared():
    import attnlib as at
    peaks = {}
    for n in (1024, 2048):
        Q, K, V = np.random.default_rng(40).normal(size=(3, n, 64))
        O_plain, peaks["plain", n] = peak_mib(lambda Q=Q, K=K, V=V: full_scores_attention(Q, K, V))
        O_tiled, peaks["tiled", n] = peak_mib(lambda Q=Q, K=K, V=V: at.tiled_attention(Q, K, V, False, block=128))
        _, peaks["masked", n] = peak_mib(lambda Q=Q, K=K, V=V: at.attention(Q, K, V))
        assert np.allclose(O_plain, O_tiled)
        assert peaks["plain", n] > n * n * 8 / 2 ** 20  # the plain version holds the n x n scores
    assert peaks["tiled", 1024] < peaks["plain", 1024] / 4 and peaks["masked", 1024] < peaks["plain", 1024] / 2
    assert peaks["plain", 2048] > 3 * peaks["plain", 1024]
    assert peaks["tiled", 2048] < 2.2 * peaks["tiled", 1024] and peaks["masked", 2048] < 2.2 * peaks["masked", 1024]


def test_14_query_heads_sharing_a_kv_head_still_give_different_outputs():
    rng = np.random.default_rng(41)
    Q = rng.normal(size=(4, 6, 8))
    K, V = rng.normal(size=(2, 2, 6, 8))
    S_mask = np.triu(np.full((6, 6), -np.inf), k=1)
    O = [softmax_rows(Q[h] @ K[h // 2].T / math.sqrt(8) + S_mask) @ V[h // 2] for h in range(4)]
    assert not np.allclose(O[0], O[1]) and not np.allclose(O[2], O[3])
    mha = [softmax_rows(Q[h] @ np.repeat(K, 2, axis=0)[h].T / math.sqrt(8) + S_mask) @ np.repeat(V, 2, axis=0)[h]
           for h in range(4)]  # each K/V head repeated for its group: ordinary multi-head attention
    assert np.allclose(np.array(O), np.array(mha))


def test_14_counted_in_operations_a_cached_step_is_t_times_cheaper():
    """The notebook's TinyLM, counted by hand: per row, one multiply-add per weight of Wq, Wk, Wv, Wo, W1, W2 in each
    layer and of the output head; per head, 2 t d_head for one query against t keys and 2 t^2 d_head for t queries."""
    from attnlib.model import TinyLM
    model = TinyLM(vocab_size=8, d_model=32, n_heads=2, n_layers=2, max_len=520, seed=0)
    d, d_ff, vocab, layers, heads, d_head = 32, 4 * 32, 8, 2, 2, 16
    per_row = layers * (4 * d * d + 2 * d * d_ff) + d * vocab
    assert per_row == 24832 and model.d_head == d_head
    assert per_row == sum(W.size for k, W in model.params.items() if W.ndim == 2 and not k.endswith("_emb"))
    for t in (32, 128, 512, 4096):
        recompute = t * per_row + layers * heads * 2 * t * t * d_head
        cached = per_row + layers * heads * 2 * t * d_head
        assert recompute == t * cached  # the same factor t for the matrices and for attention


def test_14_is_followed_by_lesson_15():
    import nbformat
    from attnlib.course import STEMS
    assert STEMS.index("15_induction_heads") == STEMS.index("14_generation_and_kv_cache") + 1
    nb = nbformat.read(ROOT / "notebooks" / "14_generation_and_kv_cache.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "(15_induction_heads.ipynb)" in nb.cells[-1].source and "last notebook" not in text


# ---------------------------------------------------------------------------
# the answers: cache sizes, online softmax, the cached step

def test_14_cache_sizes_by_hand():
    import attnlib as at
    assert at.kv_cache_bytes(12, 12, 64, 1024) == 2 * 12 * 12 * 64 * 1024 * 2
    mha = 2 * 32 * 32 * 128 * 32768 * 2
    assert at.kv_cache_bytes(32, 32, 128, 32768) == mha == 16 * 2 ** 30 and mha > 14e9
    assert at.kv_cache_bytes(32, 8, 128, 32768) * 4 == mha == at.kv_cache_bytes(32, 1, 128, 32768) * 32
    assert at.kv_cache_bytes(40, 40, 128, 4096) == 5 * at.kv_cache_bytes(40, 8, 128, 4096)  # question 3


def test_14_online_softmax_merges_blocks_exactly():
    rng = np.random.default_rng(8)
    s, v = 4 * rng.standard_normal(40), rng.standard_normal((40, 3))
    m, l, acc = -np.inf, 0.0, np.zeros(3)
    for k in range(0, 40, 7):  # blocks of 7 keys, in order
        block = s[k:k + 7]
        m_new = max(m, block.max())
        l = l * math.exp(m - m_new) + np.exp(block - m_new).sum()
        acc = acc * math.exp(m - m_new) + np.exp(block - m_new) @ v[k:k + 7]
        m = m_new
    assert np.allclose(acc / l, softmax_rows(s) @ v)


def test_14_cached_step_equals_the_last_row_of_full_attention():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((9, 8))
    Wq, Wk, Wv = rng.standard_normal((3, 8, 8))
    full = plain_attention(X, Wq, Wk, Wv, causal=True)
    for t in range(1, 10):  # question 2: the step at t compares one query with t keys
        K, V = X[:t] @ Wk, X[:t] @ Wv
        a = softmax_rows(K @ (X[t - 1] @ Wq) / math.sqrt(8))
        assert a.shape == (t,) and np.allclose(a @ V, full[t - 1])
