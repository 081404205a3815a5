"""Lesson 15: scores that read a head's attention map, and silencing a head, as a learner might write them."""
import numpy as np


# previous_token_score -----------------------------------------------------------------------------------------------

def prev_loop(A):
    T = len(A)
    return sum(A[t][t - 1] for t in range(1, T)) / (T - 1) if T > 1 else 0.0


def prev_diagonal(A):
    d = np.diagonal(A, offset=-1)
    return float(d.mean()) if d.size else 0.0


def prev_mask(A):
    T = A.shape[0]
    below = np.eye(T, k=-1, dtype=bool)
    return float(A[below].sum() / max(T - 1, 1))


# prefix_matching_score ----------------------------------------------------------------------------------------------

def prefix_loop(A, tokens):
    total, count = 0.0, 0
    for t in range(len(tokens)):
        here = [j + 1 for j in range(t) if tokens[j] == tokens[t]]
        if here:
            total += A[t, here].sum()
            count += 1
    return total / count if count else 0.0


def prefix_matrix(A, tokens):
    tokens = np.asarray(tokens)
    same = np.tril(tokens[:, None] == tokens[None, :], k=-1)   # same[t, j]: j < t holds my token
    after = np.roll(same, 1, axis=1)                           # move each mark to j + 1
    after[:, 0] = False
    has = same.any(axis=1)
    return float((A * after).sum(axis=1)[has].mean()) if has.any() else 0.0


def prefix_dict(A, tokens):
    seen, sums = {}, []
    for t, tok in enumerate(tokens):
        if tok in seen:
            sums.append(sum(A[t, j + 1] for j in seen[tok]))
        seen.setdefault(tok, []).append(t)
    return float(np.mean(sums)) if sums else 0.0


# ablate_head --------------------------------------------------------------------------------------------------------

def ablate_slice(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = np.array(Wo)
    out[head * d:(head + 1) * d, :] = 0
    return out


def ablate_mask(Wo, head, n_heads):
    owner = np.arange(Wo.shape[0]) // (Wo.shape[0] // n_heads)  # which head owns each row
    return np.where((owner == head)[:, None], 0.0, Wo)


def ablate_split(Wo, head, n_heads):
    blocks = np.split(Wo, n_heads, axis=0)
    blocks[head] = np.zeros_like(blocks[head])
    return np.concatenate(blocks, axis=0)


def ablate_columns(Wo, head, n_heads):
    d = Wo.shape[1] // n_heads
    out = Wo.copy()
    out[:, head * d:(head + 1) * d] = 0.0
    return out


def ablate_in_place(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    Wo[head * d:(head + 1) * d] = 0.0
    return Wo


WRONG = {
    "previous_token_score": [
                             ],
    "prefix_matching_score": [

                              ],
    "ablate_head": [("ablate-columns", ablate_columns), ("mutates-input", ablate_in_place),
                    ],
}
RIGHT = {
    "previous_token_score": [prev_loop, prev_diagonal, prev_mask],
    "prefix_matching_score": [prefix_loop, prefix_matrix, prefix_dict],
    "ablate_head": [ablate_slice, ablate_mask, ablate_split],
}
