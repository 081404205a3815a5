"""Notebook 12: most_attended(A, tokens), the word each query attends to most."""
import numpy as np

# wrong ----------------------------------------------------------------------


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
    "most_attended": [

                      (None, ma_query_words)],
}
RIGHT = {
    "most_attended": [ma_loop, ma_python_max, ma_float32, ma_tuple_of_words],
}


# attention_entropy ------------------------------------------------------------------------------------------------


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


WRONG["attention_entropy"] = [
                              ]
RIGHT["attention_entropy"] = [ent_nansum, ent_loop, ent_log_where, ent_masked_array]
