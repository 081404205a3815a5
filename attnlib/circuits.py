"""Notebook 15: reading what a trained stack of heads does.

Two scores, each a number per head measured on its attention map A (T, T), and the
tool that tests what a score suggests:

    previous_token_score(A)            mean weight of each row on the position just before it
    prefix_matching_score(A, tokens)   mean weight on the token right after an earlier copy
                                       of the current one: where an induction head looks
    ablate_head(Wo, head, n_heads)     W_o with one head's rows zeroed: the model without that head

A high score says where a head looks; only ablation says whether the model needs it.
"""
import numpy as np

from ._validate import Array, as_int_array, contract, non_negative_int, positive_int


def _square(args, dims):
    A = args["A"]
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must be one or more square attention maps (..., T, T), got shape {A.shape}")


def _tokens_of_A(args, dims):
    _square(args, dims)
    tokens, T = args["tokens"], args["A"].shape[-1]
    if tokens.shape != (T,):
        raise ValueError(f"tokens must be one sequence (T,) with T = {T} as A {args['A'].shape}, "
                         f"got shape {tokens.shape}")


@contract(_square, A=Array(what="(..., T, T) of attention weights"))
def previous_token_score(A):
    """Mean weight on the previous position, A[t, t - 1] over t = 1 .. T-1: A (T, T) -> a float, (..., T, T) -> (...).

    1 for a head that always looks one back; a map with T = 1 has no previous position and scores 0.
    """
    T = A.shape[-1]
    if T == 1:
        return np.zeros(A.shape[:-2])[()]
    t = np.arange(1, T)
    return A[..., t, t - 1].mean(axis=-1)[()]  # [()] makes a 0-d result a float


@contract(_tokens_of_A, A=Array(what="(..., T, T) of attention weights"),
          tokens=lambda name, v: as_int_array(name, v, "(T,)"))
def prefix_matching_score(A, tokens):
    """Mean weight on "the token after an earlier copy of mine": A (T, T) or (..., T, T), tokens (T,) -> (...).

    For each position t whose token appeared before, at positions j < t, the weights A[t, j + 1]
    are added up; the score is the mean of those sums over such positions (0 if there are none).
    An induction head scores near 1 on a repeated sequence: it looks where the answer sits.
    """
    T = len(tokens)
    earlier = (tokens[None, :] == tokens[:, None]) & (np.arange(T)[None, :] < np.arange(T)[:, None])  # (T, T): j < t
    after = np.zeros((T, T), dtype=bool)  # after[t, j + 1]: j is an earlier copy of tokens[t]
    after[:, 1:] = earlier[:, :-1]
    rows = earlier.any(axis=1)  # (T,) positions with an earlier copy
    if not rows.any():
        return np.zeros(A.shape[:-2])[()]
    return (A * after).sum(axis=-1)[..., rows].mean(axis=-1)[()]


def _head_rows(args, dims):
    Wo, head, n_heads = args["Wo"], args["head"], args["n_heads"]
    if Wo.shape[0] % n_heads:
        raise ValueError(f"Wo has {Wo.shape[0]} rows, which n_heads={n_heads} heads cannot share equally")
    if head >= n_heads:
        raise ValueError(f"head must be in [0, {n_heads}) for n_heads={n_heads}, got {head}")


@contract(_head_rows, Wo=Array("n_heads * d_head", "d_model"), head=non_negative_int, n_heads=positive_int)
def ablate_head(Wo, head, n_heads):
    """Wo (D, d_model), D = n_heads * d_head, with head `head`'s rows set to 0; returns a new array (D, d_model).

    The heads' outputs are concatenated before W_o, so head h reaches the residual stream only
    through rows h * d_head .. (h + 1) * d_head of W_o: with them zeroed the head says nothing.
    """
    d_head = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out
