"""Notebook 12: most_attended(A, tokens), the word each query attends to most."""
import numpy as np

# wrong ----------------------------------------------------------------------


def ma_argmax_axis0(A, tokens):
    return [tokens[i] for i in A.argmax(axis=0)]


def ma_indices(A, tokens):
    return A.argmax(axis=1)


def ma_argmin(A, tokens):
    return [tokens[j] for j in A.argmin(axis=1)]


def ma_loop_ties_latest(A, tokens):
    words = []
    for row in A:
        best = 0
        for j in range(len(row)):
            if row[j] >= row[best]:  # >= moves to every later equal weight
                best = j
        words.append(tokens[best])
    return words


def ma_query_words(A, tokens):
    return list(tokens[-A.shape[0]:])  # the query itself, whatever A says


# right ----------------------------------------------------------------------


def ma_loop(A, tokens):
    words = []
    for row in A:
        best = 0
        for j in range(len(row)):
            if row[j] > row[best]:
                best = j
        words.append(tokens[best])
    return words


def ma_python_max(A, tokens):
    return [tokens[max(range(len(row)), key=lambda j: row[j])] for row in A.tolist()]  # max keeps the first


def ma_float32(A, tokens):
    A = A.astype(np.float32)
    return [tokens[int(np.flatnonzero(row == row.max())[0])] for row in A]


def ma_tuple_of_words(A, tokens):
    return tuple(str(tokens[j]) for j in np.argmax(A, axis=-1))


WRONG = {
    "most_attended": [("most-attended-wrong-axis", ma_argmax_axis0), ("most-attended-indices", ma_indices),
                      ("most-attended-least", ma_argmin), ("most-attended-ties-latest", ma_loop_ties_latest),
                      (None, ma_query_words)],
}
RIGHT = {
    "most_attended": [ma_loop, ma_python_max, ma_float32, ma_tuple_of_words],
}


# attention_entropy ------------------------------------------------------------------------------------------------


def ent_plain(A):
    return -np.sum(A * np.log(A), axis=1)  # 0 * log 0 = 0 * -inf = NaN


def ent_bits(A):
    return -np.nansum(A * np.log2(A), axis=1)


def ent_columns(A):
    return -np.nansum(A * np.log(A), axis=0)


def ent_no_minus(A):
    logs = np.log(A, out=np.zeros_like(A), where=A > 0)
    return (A * logs).sum(axis=1)


def ent_nansum(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log(A), axis=1)


def ent_loop(A):
    import math
    return np.array([-sum(a * math.log(a) for a in row if a > 0) for row in A.tolist()])


def ent_log_where(A):
    logs = np.log(A, out=np.zeros_like(A), where=A > 0)
    return -np.einsum("ij,ij->i", A, logs)


def ent_masked_array(A):
    return -(np.ma.masked_equal(A, 0.0) * np.ma.log(np.ma.masked_equal(A, 0.0))).sum(axis=1).filled(0.0)


WRONG["attention_entropy"] = [("entropy-nan-from-zeros", ent_plain), ("entropy-in-bits", ent_bits),
                              ("entropy-wrong-axis", ent_columns), ("entropy-sign", ent_no_minus)]
RIGHT["attention_entropy"] = [ent_nansum, ent_loop, ent_log_where, ent_masked_array]
