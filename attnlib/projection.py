"""Notebooks 01-02: a projection is one matrix product.

The essay writes x' = W x with column vectors. The course keeps tokens as rows,
so the same product reads x' = x @ W with W of shape (d_in, d_out): the essay's W
transposed. Stacking inputs as the rows of X projects them all at once, and each
output row depends only on its own input row.
"""
import numpy as np

from ._validate import as_float_array, check_finite_product, check_inner


def project(x, W):
    """Project one vector: x (d_in,) @ W (d_in, d_out) -> (d_out,)."""
    x = as_float_array("x", x, 1, "(d_in,)")
    W = as_float_array("W", W, 2, "(d_in, d_out)")
    check_inner("x", x.shape, "W", W.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        y = x @ W  # (d_out,)
    return check_finite_product(y, "x @ W", x=x, W=W)


def project_rows(X, W):
    """Project every row at once: X (n, d_in) @ W (d_in, d_out) -> (n, d_out).

    Row i of the result is project(X[i], W): rows never influence each other.
    """
    X = as_float_array("X", X, 2, "(n, d_in)")
    W = as_float_array("W", W, 2, "(d_in, d_out)")
    check_inner("X", X.shape, "W", W.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        Y = X @ W  # (n, d_out)
    return check_finite_product(Y, "X @ W", X=X, W=W)
