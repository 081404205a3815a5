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
